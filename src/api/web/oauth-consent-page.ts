import type { ConsentView } from '../../application/mcp-oauth/authorization.js';
import type { RunProfile } from '../../store/run-profiles.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { SignedIn } from './session.js';

/** Where the client would send the person's browser: shown, since the client names itself. */
function clientName(view: ConsentView): string {
  const name = view.client.metadata.client_name;
  return typeof name === 'string' && name !== '' ? name : view.client.client_id;
}

function profileChoice(profile: RunProfile, index: number): SafeHtml {
  return html`<label class="profile">
    <input type="radio" name="profile" value="${profile.id}" ${index === 0 ? html`checked` : ''} />
    <strong>${profile.name}</strong>
    <span class="badge ${profile.trust_tier}">${profile.trust_tier}</span>
    <span class="badge">${profile.autonomy}</span>
    ${profile.description && html`<span class="meta">${profile.description}</span>`}
  </label>`;
}

/**
 * An MCP client asks to act for the signed-in person: who asks, where it will be sent, and the
 * workspace's run profiles to pick from. Allowing creates a run from the profile, invoked by them.
 */
export function oauthConsentPage(session: SignedIn, view: ConsentView): SafeHtml {
  const action = `/oauth/consent/${view.request.id}`;
  const name = clientName(view);
  return page(
    { title: 'Connect an MCP client', session },
    html`<h1>Connect ${name}</h1>
      <section class="card">
        <p>
          <strong>${name}</strong> asks to call the gate's tools as a run you start. Every call is
          decided by the gate as any run's is: the profile's policy, tools and budget.
        </p>
        <dl>
          <dt>Client</dt>
          <dd><code>${view.client.client_id}</code></dd>
          <dt>Returns to</dt>
          <dd><code>${view.request.redirect_uri}</code></dd>
          <dt>For</dt>
          <dd><code>${view.request.resource}</code></dd>
        </dl>
        ${
          view.profiles.length === 0
            ? html`<p class="notice error" role="alert">
                  Your workspace has no run profile yet: ask an administrator to create one.
                </p>
                <form method="post" action="${action}" class="decide">
                  <input type="hidden" name="csrf" value="${session.csrf}" />
                  <div class="actions">
                    <button type="submit" name="decision" value="deny" class="deny">Cancel</button>
                  </div>
                </form>`
            : html`<form method="post" action="${action}" class="decide">
                <input type="hidden" name="csrf" value="${session.csrf}" />
                <fieldset class="grant">
                  <legend>Run profile</legend>
                  ${view.profiles.map(profileChoice)}
                </fieldset>
                <div class="actions">
                  <button type="submit" name="decision" value="allow">Allow</button>
                  <button type="submit" name="decision" value="deny" class="deny">Deny</button>
                </div>
              </form>`
        }
      </section>`,
  );
}
