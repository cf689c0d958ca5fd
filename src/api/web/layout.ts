import type { FastifyReply } from 'fastify';
import { html, type SafeHtml } from './html.js';
import type { WebSession } from './session.js';

interface PageOptions {
  title: string;
  /** Shows who is signed in and a sign-out button. */
  session?: WebSession | undefined;
  /** Loads the pages' script (the live list, the decision form's keys). */
  script?: boolean;
  /** Sends the browser on to this URL at once (a meta refresh: no script needed). */
  refreshTo?: string;
}

function signOut(session: WebSession): SafeHtml {
  const { holder } = session;
  return html`<div class="who">
    <span
      >Signed in as
      ${
        holder.kind === 'operator'
          ? html`<strong>the operator</strong>`
          : html`<strong>${holder.member.name}</strong> (${holder.member.role})`
      }</span
    >
    ${holder.kind === 'member' && html`<a href="/tokens">API tokens</a>`}
    <form method="post" action="/logout">
      <input type="hidden" name="csrf" value="${session.csrf}" />
      <button type="submit">Sign out</button>
    </form>
  </div>`;
}

/** The page shell every HTML page shares: no inline script or style, so the CSP stays strict. */
export function page(
  { title, session, script = false, refreshTo }: PageOptions,
  body: SafeHtml,
): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · fluidbox gate</title>
        <link rel="stylesheet" href="/approvals/app.css" />
        ${script && html`<script src="/approvals/app.js" defer></script>`}
        ${refreshTo && html`<meta http-equiv="refresh" content="0;url=${refreshTo}" />`}
      </head>
      <body>
        <header class="bar">
          <nav>
            <a href="/approvals">fluidbox gate · approvals</a>
            ${session?.holder.kind === 'member' && html`<a href="/connections">connections</a>`}
            ${
              session?.holder.kind === 'member' &&
              session.holder.member.role === 'admin' &&
              html`<a href="/run-profiles">run profiles</a>`
            }
          </nav>
          ${session && signOut(session)}
        </header>
        <main>${body}</main>
      </body>
    </html> `;
}

/** Every HTML answer gets these: no framing, no referrer leaking approval URLs, nothing cached. */
export const htmlSecurityHeaders = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

export function sendPage(reply: FastifyReply, status: number, body: SafeHtml) {
  return reply.code(status).type('text/html; charset=utf-8').send(body.text);
}

/** The web form's routes, under one tag in the API document: their errors are pages. */
export const webFormTags = ['web form'];
