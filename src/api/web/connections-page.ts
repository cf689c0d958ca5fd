import { authorizePath } from '../../application/oauth-connections.js';
import { mayAuthorize, mayDisconnect } from '../../domain/tools/connection-custody.js';
import type { ConnectionRow } from '../../store/connections.js';
import { badge, when } from './approval-fields.js';
import type { Notice } from './approval-detail-page.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { SignedIn } from './session.js';

const disconnectPath = (id: string) => `/connections/${id}/disconnect`;

function notice(shown: Notice | undefined): SafeHtml {
  return shown
    ? html`<p class="notice ${shown.kind}" role="status" id="notice">${shown.text}</p>`
    : html``;
}

function actions(session: SignedIn, row: ConnectionRow): SafeHtml {
  const connect =
    row.credential_type === 'oauth' &&
    mayAuthorize(row, session.member) &&
    html`<a class="button" href="${authorizePath(row.id)}"
      >${row.status === 'awaiting_authorization' ? 'Connect' : 'Reconnect'}</a
    >`;
  const disconnect =
    mayDisconnect(row, session.member) &&
    html`<form method="post" action="${disconnectPath(row.id)}" class="inline">
      <input type="hidden" name="csrf" value="${session.csrf}" />
      <button type="submit" class="deny">
        ${row.owner_user_id === session.member.id ? 'Disconnect' : 'Revoke'}
      </button>
    </form>`;
  return html`<div class="actions">${connect}${disconnect}</div>`;
}

function item(session: SignedIn, row: ConnectionRow): SafeHtml {
  return html`<tr data-connection="${row.id}">
    <td><strong>${row.name}</strong><br /><code class="meta">${row.url}</code></td>
    <td>${row.kind}</td>
    <td>
      ${badge(row.status)}
      ${row.status_reason && html`<p class="meta status-reason">${row.status_reason}</p>`}
    </td>
    <td>${row.scopes ?? html`<span class="meta">the server's choice</span>`}</td>
    <td>${row.last_used_at ? when(row.last_used_at) : html`<span class="meta">never</span>`}</td>
    <td>${actions(session, row)}</td>
  </tr>`;
}

/** A member's connections: their personal ones, and for an admin the workspace's org ones. */
export function connectionsPage(
  session: SignedIn,
  rows: readonly ConnectionRow[],
  shown?: Notice,
): SafeHtml {
  return page(
    { title: 'Connections', session },
    html`<h1>Connections</h1>
      ${notice(shown)}
      <p class="meta">
        Your own connections${session.member.role === 'admin' && ", and the workspace's"}: the gate
        calls these servers for your runs, with the authorization you give it here. It never shows a
        token.
      </p>
      ${
        rows.length === 0
          ? html`<div class="list"><p class="empty">No connections.</p></div>`
          : html`<div class="list">
              <table id="connections">
                <thead>
                  <tr>
                    <th>Server</th>
                    <th>Kind</th>
                    <th>Status</th>
                    <th>Scopes</th>
                    <th>Last use</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${rows.map((row) => item(session, row))}
                </tbody>
              </table>
            </div>`
      }`,
  );
}

/** Asks the member to go on to the authorization server for this connection. */
export function authorizePage(session: SignedIn, row: ConnectionRow): SafeHtml {
  const again = row.status !== 'awaiting_authorization';
  return page(
    { title: `Connect ${row.name}`, session },
    html`<section class="card">
      <h1>${again ? 'Reconnect' : 'Connect'} ${row.name}</h1>
      <p>
        The gate will send you to the authorization server of <code>${row.url}</code>. Sign in there
        and allow access; you come back here when it is done.
      </p>
      ${
        again &&
        html`<p class="meta">
          Reconnecting replaces the authorization the gate holds: runs started before keep their
          tools, but their calls to this server are refused.
        </p>`
      }
      <form method="post" action="${authorizePath(row.id)}">
        <input type="hidden" name="csrf" value="${session.csrf}" />
        <button type="submit" id="connect">Continue to the authorization server</button>
      </form>
    </section>`,
  );
}

/**
 * Sends the browser on to the authorization server. A page rather than a redirect: the form's
 * CSP allows posting only to the gate, and a browser applies that to a redirect after a post too.
 */
export function continuePage(session: SignedIn, to: URL): SafeHtml {
  return page(
    { title: 'Continue to the authorization server', session, refreshTo: to.href },
    html`<section class="card">
      <h1>Continue to the authorization server</h1>
      <p><a href="${to.href}" id="continue">Continue to ${to.host}</a></p>
    </section>`,
  );
}

/**
 * The authorization server sent the browser back without the gate's session cookie (it is
 * SameSite=Strict, and the redirect came from another site): one click from our own page sends
 * it. The code and state are posted back unchanged; the state alone says whose they are.
 */
export function finishPage(callback: {
  code: string;
  state: string;
  iss?: string | undefined;
}): SafeHtml {
  return page(
    { title: 'Finish connecting' },
    html`<section class="card">
      <h1>Finish connecting</h1>
      <form method="post" action="/connections/oauth/callback">
        <input type="hidden" name="code" value="${callback.code}" />
        <input type="hidden" name="state" value="${callback.state}" />
        ${
          callback.iss === undefined
            ? ''
            : html`<input type="hidden" name="iss" value="${callback.iss}" />`
        }
        <button type="submit" id="finish">Finish connecting</button>
      </form>
    </section>`,
  );
}

/** The authorization server did not authorize (the person declined, or it refused). */
export function declinedPage(error: string, session: SignedIn | undefined): SafeHtml {
  return page(
    { title: 'Not connected', session },
    html`<section class="card">
      <h1>Not connected</h1>
      <p id="declined">
        The authorization server did not authorize the connection (<code>${error}</code>). Nothing
        changed.
      </p>
      <p><a href="/connections">Back to your connections</a></p>
    </section>`,
  );
}
