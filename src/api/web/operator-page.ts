import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { WebSession } from './session.js';

/**
 * What the operator's web session sees: it exists for the Temporal UI's codec, and is no member
 * of any workspace, so it sees and decides no approvals. Shown after signing in (200) and on
 * every page for members (403).
 */
export function operatorPage(session: WebSession): SafeHtml {
  return page(
    { title: 'Signed in as the operator', session },
    html`<section class="card">
      <h1>Signed in as the operator</h1>
      <p>
        This sign-in lets the Temporal UI open the gate's encrypted payloads through
        <code>/codec/decode</code>. The operator is no member of a workspace: it sees and decides no
        approvals.
      </p>
      <p>To decide approvals, sign out and sign in with your user token.</p>
    </section>`,
  );
}
