import { createHash } from 'node:crypto';
import type { ApprovalRow } from '../../store/approvals.js';
import { badge, repository, ruleName, when } from './approval-fields.js';
import { visibleText } from './visible-text.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { RunSummary } from './run-summaries.js';
import type { SignedIn } from './session.js';

/** Names one state of a member's pending set: it changes exactly when the set does. */
export function pendingVersion(rows: readonly ApprovalRow[]): string {
  const keys = rows.map((row) => `${row.session_id}\n${row.tool_call_id}`).join('\n\n');
  return createHash('sha256').update(keys).digest('base64url').slice(0, 22);
}

export const detailPath = (row: Pick<ApprovalRow, 'session_id' | 'tool_call_id'>) =>
  `/approvals/${encodeURIComponent(row.session_id)}/${encodeURIComponent(row.tool_call_id)}`;

function item(row: ApprovalRow, run: RunSummary | undefined): SafeHtml {
  return html`<tr data-session="${row.session_id}" data-tool-call="${row.tool_call_id}">
    <td>
      <a href="${detailPath(row)}"><code>${visibleText(row.tool).text}</code></a>
    </td>
    <td>${repository(run)}</td>
    <td>${run ? badge(run.trust_tier) : ''}</td>
    <td>${run?.invoked_by_name}</td>
    <td>${ruleName(row.rule_id)}</td>
    <td>${when(row.requested_at)}</td>
    <td>${when(row.expires_at)}</td>
  </tr>`;
}

/** The list itself: the part the page's script fetches again when the set changes. */
export function approvalList(
  rows: readonly ApprovalRow[],
  runs: ReadonlyMap<string, RunSummary>,
): SafeHtml {
  const count = rows.length === 1 ? '1 call is waiting' : `${rows.length} calls are waiting`;
  return html`<section id="approvals" data-version="${pendingVersion(rows)}">
    <p class="meta" id="approval-count">${count} for your decision.</p>
    ${
      rows.length === 0
        ? html`<div class="list"><p class="empty">Nothing is waiting for you.</p></div>`
        : html`<div class="list">
            <table>
              <thead>
                <tr>
                  <th>Tool</th>
                  <th>Repository</th>
                  <th>Trust tier</th>
                  <th>Invoked by</th>
                  <th>Rule</th>
                  <th>Requested</th>
                  <th>Expires</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map((row) => item(row, runs.get(row.run_id)))}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

export function approvalListPage(
  session: SignedIn,
  rows: readonly ApprovalRow[],
  runs: ReadonlyMap<string, RunSummary>,
): SafeHtml {
  return page(
    { title: 'Approvals', session, script: true },
    html`<h1>Pending approvals</h1>
      <p class="meta"><span class="live offline" id="live">Connecting…</span></p>
      ${approvalList(rows, runs)}`,
  );
}
