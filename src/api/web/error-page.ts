import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { WebSession } from './session.js';

const headings: Record<number, string> = {
  400: 'That request was not understood',
  401: 'Please sign in',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Already decided',
  413: 'Too large',
  415: 'Not a form',
  503: 'Try again shortly',
};

export function errorPage(status: number, detail: string, session?: WebSession): SafeHtml {
  const heading = headings[status] ?? 'Something went wrong';
  return page(
    { title: heading, session },
    html`<section class="card">
      <h1>${heading}</h1>
      <p>${detail}</p>
      <p>
        ${
          status === 401
            ? html`<a href="/login">Sign in</a>`
            : html`<a href="/approvals">Back to the pending approvals</a>`
        }
      </p>
    </section>`,
  );
}
