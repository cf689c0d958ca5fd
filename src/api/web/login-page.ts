import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';

interface LoginPageOptions {
  csrf: string;
  /** Where to go after signing in: an approvals page only. */
  next?: string | undefined;
  error?: string | undefined;
  /** The way to the company's identity provider, when one is configured. */
  oidcHref?: string | undefined;
  /** Whether a member may paste a user token (otherwise the form takes the operator key only). */
  tokenSignIn: boolean;
}

export function loginPage({
  csrf,
  next,
  error,
  oidcHref,
  tokenSignIn,
}: LoginPageOptions): SafeHtml {
  return page(
    { title: 'Sign in' },
    html`<section class="login card">
      <h1>Sign in</h1>
      ${error && html`<div class="notice error" role="alert">${error}</div>`}
      ${
        oidcHref &&
        html`<p>
          <a class="button" id="oidc-sign-in" href="${oidcHref}"
            >Sign in with your company account</a
          >
        </p>`
      }
      <p class="meta">
        ${
          tokenSignIn
            ? html`Or paste the user token you were given when you were added to the workspace (it
                starts with <code>fgu_</code>), or, to let the Temporal UI open payloads, the
                operator key.`
            : html`To let the Temporal UI open payloads, the operator may paste the operator key.`
        }
        It is checked and forgotten; the browser keeps only a session cookie.
      </p>
      <form method="post" action="/login">
        <input type="hidden" name="csrf" value="${csrf}" />
        ${next && html`<input type="hidden" name="next" value="${next}" />`}
        <label for="token">${tokenSignIn ? 'User token' : 'Operator key'}</label>
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
