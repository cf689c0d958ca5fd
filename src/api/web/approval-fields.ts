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
