import { createHash } from 'node:crypto';
import { callSummary } from '../../domain/approvals/call-reading.js';
import { pullRequestUrl } from '../../domain/approvals/run-source-link.js';
import { seesArguments } from '../../domain/gate/approval.js';
import type { ListedApproval } from '../../store/approval-lists.js';
import type { ApprovalRow } from '../../store/approvals.js';
import type { Member } from '../../store/members.js';
import { age, badge, decider, repository, ruleName, when } from './approval-fields.js';
import { visibleText } from './visible-text.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { RunSummary } from './run-summaries.js';
import type { SignedIn } from './session.js';

/** Names one state of a member's pending set: it changes exactly when the set does. */
export function pendingVersion(
  rows: readonly Pick<ApprovalRow, 'session_id' | 'tool_call_id'>[],
): string {
  const keys = rows.map((row) => `${row.session_id}\n${row.tool_call_id}`).join('\n\n');
  return createHash('sha256').update(keys).digest('base64url').slice(0, 22);
}

export const detailPath = (row: Pick<ApprovalRow, 'session_id' | 'tool_call_id'>) =>
  `/approvals/${encodeURIComponent(row.session_id)}/${encodeURIComponent(row.tool_call_id)}`;

export type ListTab = 'mine' | 'all' | 'decided';

/** One page of one of the list's views, as the list page renders it. */
export interface ListView {
  tab: ListTab;
  page: number;
  perPage: number;
  total: number;
  rows: readonly ListedApproval[];
  runs: ReadonlyMap<string, RunSummary>;
  /** The version of the member's visible pending set, which the live stream compares. */
  version: string;
  member: Member;
  now: Date;
}

const tabs: { tab: ListTab; label: string }[] = [
  { tab: 'mine', label: 'To decide by me' },
  { tab: 'all', label: 'All pending' },
  { tab: 'decided', label: 'Decided' },
];

const listPath = (tab: ListTab, pageNumber = 1) =>
  `/approvals?view=${tab}${pageNumber > 1 ? `&page=${pageNumber}` : ''}`;

/** What the call does in one line, or that its arguments are not this member's to read. */
function whatItDoes(row: ListedApproval, member: Member): SafeHtml {
  if (!seesArguments(row, member, row.invoked_by))
    return html`<span class="meta">arguments hidden</span>`;
  return html`<code class="summary"
    >${visibleText(callSummary(row.tool, row.arguments)).text}</code
  >`;
}

function pendingRow(row: ListedApproval, view: ListView): SafeHtml {
  return html`<tr data-session="${row.session_id}" data-tool-call="${row.tool_call_id}">
    <td>
      <a href="${detailPath(row)}"><code>${visibleText(row.tool).text}</code></a>
    </td>
    <td class="what">${whatItDoes(row, view.member)}</td>
    <td>${ruleName(row.rule_id)}</td>
    <td>${age(row.requested_at, view.now)}</td>
    <td>${when(row.expires_at)}</td>
  </tr>`;
}

function decidedRow(row: ListedApproval, view: ListView): SafeHtml {
  const shown = seesArguments(row, view.member, row.invoked_by);
  const reason =
    row.reason === null
      ? html`<span class="meta">none given</span>`
      : shown
        ? visibleText(row.reason).text
        : html`<span class="meta">hidden</span>`;
  return html`<tr data-session="${row.session_id}" data-tool-call="${row.tool_call_id}">
    <td>
      <a href="${detailPath(row)}"><code>${visibleText(row.tool).text}</code></a>
    </td>
    <td class="what">${whatItDoes(row, view.member)}</td>
    <td>${badge(row.status)}</td>
    <td>${decider(row.status, row.decided_by_name)}</td>
    <td>${row.decided_at && when(row.decided_at)}</td>
    <td class="reason">${reason}</td>
  </tr>`;
}

function runHeading(run: RunSummary | undefined, count: number): SafeHtml {
  const pr = run?.source.kind === 'pull_request' ? run.source.pull_request : undefined;
  const url = run && pullRequestUrl(run.source);
  const number = pr?.number === undefined ? undefined : `#${pr.number}`;
  return html`<h2 class="run-heading">
    ${repository(run)}
    ${number && (url ? html`<a href="${url}" rel="noreferrer">${number}</a>` : number)}
    <span class="meta">started by ${run?.invoked_by_name ?? 'unknown'}</span>
    ${run && badge(run.trust_tier)}
    <span class="meta">${count} ${count === 1 ? 'call' : 'calls'}</span>
  </h2>`;
}

/** The page's rows, one group per run, in the order the store gave them. */
function groups(view: ListView): SafeHtml[] {
  const byRun = new Map<string, ListedApproval[]>();
  for (const row of view.rows) byRun.set(row.run_id, [...(byRun.get(row.run_id) ?? []), row]);
  const decided = view.tab === 'decided';
  const head = decided
    ? html`<tr>
        <th>Tool</th>
        <th>What it does</th>
        <th>Outcome</th>
        <th>By</th>
        <th>When</th>
        <th>Why</th>
      </tr>`
    : html`<tr>
        <th>Tool</th>
        <th>What it does</th>
        <th>Rule</th>
        <th>Waiting</th>
        <th>Expires</th>
      </tr>`;
  return [...byRun].map(
    ([runId, rows]) =>
      html`<section class="run-group" data-run="${runId}">
        ${runHeading(view.runs.get(runId), rows.length)}
        <div class="list">
          <table>
            <thead>
              ${head}
            </thead>
            <tbody>
              ${rows.map((row) => (decided ? decidedRow(row, view) : pendingRow(row, view)))}
            </tbody>
          </table>
        </div>
      </section>`,
  );
}

function pager(view: ListView): SafeHtml {
  const pages = Math.max(1, Math.ceil(view.total / view.perPage));
  if (pages === 1) return html``;
  return html`<nav class="pager" aria-label="Pages">
    ${view.page > 1 && html`<a href="${listPath(view.tab, view.page - 1)}" rel="prev">← Newer</a>`}
    <span>Page ${view.page} of ${pages}</span>
    ${view.page < pages && html`<a href="${listPath(view.tab, view.page + 1)}" rel="next">Older →</a>`}
  </nav>`;
}

function countLine(view: ListView): string {
  const calls = view.total === 1 ? '1 call' : `${view.total} calls`;
  if (view.tab === 'decided') return `${calls} decided.`;
  return view.tab === 'mine' ? `${calls} waiting for your decision.` : `${calls} waiting.`;
}

function emptyText(tab: ListTab): string {
  if (tab === 'decided') return 'Nothing has been decided yet.';
  return tab === 'mine' ? 'Nothing is waiting for you.' : 'Nothing is waiting.';
}

/** The list itself: the part the page's script fetches again when the set changes. */
export function approvalList(view: ListView): SafeHtml {
  return html`<section id="approvals" data-version="${view.version}">
    <p class="meta" id="approval-count">${countLine(view)}</p>
    ${
      view.rows.length === 0
        ? html`<div class="list"><p class="empty">${emptyText(view.tab)}</p></div>`
        : groups(view)
    }
    ${pager(view)}
  </section>`;
}

export function approvalListPage(session: SignedIn, view: ListView): SafeHtml {
  const title = tabs.find((t) => t.tab === view.tab)?.label ?? 'Approvals';
  return page(
    { title, session, script: true },
    html`<h1>Approvals</h1>
      <nav class="tabs" aria-label="Approval views">
        ${tabs.map(
          (t) =>
            html`<a href="${listPath(t.tab)}" ${t.tab === view.tab && html`aria-current="page"`}
              >${t.label}</a
            >`,
        )}
      </nav>
      <p class="meta"><span class="live offline" id="live">Connecting…</span></p>
      ${approvalList(view)}`,
  );
}
