import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';

export interface LoginPageOptions {
  csrf: string;
  /** Where to go after signing in: an approvals page only. */
  next?: string | undefined;
  error?: string | undefined;
}

export function loginPage({ csrf, next, error }: LoginPageOptions): SafeHtml {
  return page(
    { title: 'Sign in' },
    html`<section class="login card">
      <h1>Sign in</h1>
      <p class="meta">
        Paste the user token you were given when you were added to the workspace (it starts with
        <code>fgu_</code>), or, to let the Temporal UI open payloads, the operator key. It is
        checked and forgotten; the browser keeps only a session cookie.
      </p>
      ${error && html`<div class="notice error" role="alert">${error}</div>`}
      <form method="post" action="/login">
        <input type="hidden" name="csrf" value="${csrf}" />
        ${next && html`<input type="hidden" name="next" value="${next}" />`}
        <label for="token">User token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          spellcheck="false"
          required
        />
        <button type="submit">Sign in</button>
      </form>
    </section>`,
  );
}
