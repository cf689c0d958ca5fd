import type { PersonalToken } from '../../store/personal-tokens.js';
import { when } from './approval-fields.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { SignedIn } from './session.js';

function tokenState(token: PersonalToken): SafeHtml {
  if (token.revoked_at) return html`<span class="badge denied">revoked</span>`;
  if (token.expires_at.getTime() <= Date.now())
    return html`<span class="badge expired">expired</span>`;
  return html`<span class="badge approved">active</span>`;
}

function row(session: SignedIn, token: PersonalToken): SafeHtml {
  return html`<tr data-token="${token.id}">
    <td>${token.name}</td>
    <td>${when(token.created_at)}</td>
    <td>${when(token.expires_at)}</td>
    <td>${tokenState(token)}</td>
    <td>
      ${
        token.revoked_at === null &&
        html`<form method="post" action="/tokens/${token.id}/revoke">
          <input type="hidden" name="csrf" value="${session.csrf}" />
          <button type="submit" class="deny">Revoke</button>
        </form>`
      }
    </td>
  </tr>`;
}

/** The member's own API tokens: listed, minted, revoked; a new token is shown this once. */
export function personalTokensPage(
  session: SignedIn,
  tokens: readonly PersonalToken[],
  minted?: { name: string; token: string },
): SafeHtml {
  return page(
    { title: 'API tokens', session },
    html`<h1>Your API tokens</h1>
      <p class="meta">
        A token acts as you (${session.member.role}) in the API, as
        <code>Authorization: Bearer …</code>, until it expires or you revoke it.
      </p>
      ${
        minted &&
        html`<div class="notice ok" role="status">
          <p>Your new token <strong>${minted.name}</strong>; copy it now, it is not shown again:</p>
          <pre id="minted-token">${minted.token}</pre>
        </div>`
      }
      <section class="card">
        <h2>New token</h2>
        <form method="post" action="/tokens" class="decide">
          <input type="hidden" name="csrf" value="${session.csrf}" />
          <label for="token-name">Name</label>
          <input id="token-name" name="name" type="text" maxlength="100" required />
          <label for="token-days">Expires after (days)</label>
          <input id="token-days" name="days" type="number" min="1" max="365" value="30" required />
          <div class="actions"><button type="submit">Create token</button></div>
        </form>
      </section>
      <h2>Tokens</h2>
      ${
        tokens.length === 0
          ? html`<div class="list"><p class="empty">You have no API tokens.</p></div>`
          : html`<div class="list">
              <table id="tokens">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Created</th>
                    <th>Expires</th>
                    <th>State</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${tokens.map((token) => row(session, token))}
                </tbody>
              </table>
            </div>`
      }`,
  );
}
