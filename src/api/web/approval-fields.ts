import { html, type SafeHtml } from './html.js';
import { repositoryOf, type RunSummary } from './run-summaries.js';

/** Shared renderings of an approval's fields, so the list and the detail page say the same. */

/** A timestamp in UTC, readable, with the exact instant in `datetime`. */
export function when(at: Date): SafeHtml {
  const iso = at.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

export function badge(text: string): SafeHtml {
  return html`<span class="badge ${text}">${text.replace('_', ' ')}</span>`;
}

export function repository(run: RunSummary | undefined): SafeHtml {
  const name = run && repositoryOf(run.source);
  return name ? html`<code>${name}</code>` : html`<span class="meta">none named</span>`;
}

export function ruleName(ruleId: string | null): SafeHtml {
  return ruleId
    ? html`<code>${ruleId}</code>`
    : html`<span class="meta">the policy's default</span>`;
}

/** How long a call has waited, as a person says it, with the exact instant in `datetime`. */
export function age(since: Date, now: Date): SafeHtml {
  const minutes = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 60_000));
  const text =
    minutes < 1
      ? 'under a minute'
      : minutes < 60
        ? `${minutes} min`
        : minutes < 48 * 60
          ? `${Math.floor(minutes / 60)} h ${minutes % 60} min`
          : `${Math.floor(minutes / (24 * 60))} days`;
  return html`<time datetime="${since.toISOString()}">${text}</time>`;
}

/** Who settled an approval, as the decided view and the detail page name them. */
export function decider(status: string, decidedByName: string | null | undefined): string {
  if (status === 'expired') return 'the expiry';
  if (status === 'failed_closed') return 'the gate';
  if (status === 'pending') return '';
  return decidedByName ?? 'an approver';
}
