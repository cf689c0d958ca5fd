/**
 * What the approver needs beside the call: the run's latest decisions, its budget, where it
 * comes from. Arguments of earlier calls are shown only to those who may read them.
 */
import { callSummary } from '../../domain/approvals/call-reading.js';
import { pullRequestUrl } from '../../domain/approvals/run-source-link.js';
import { seesArguments } from '../../domain/gate/approval.js';
import { formatUsd } from '../../domain/budget/pricing.js';
import type { BudgetFigures } from '../../store/budget.js';
import type { Member } from '../../store/members.js';
import type { RunDecision } from '../../store/run-decisions.js';
import { badge, ruleName, when } from './approval-fields.js';
import { detailPath } from './approval-list-page.js';
import { html, type SafeHtml } from './html.js';
import type { RunSummary } from './run-summaries.js';
import { visibleText } from './visible-text.js';

export const runPath = (runId: string) => `/approvals/runs/${encodeURIComponent(runId)}`;

export interface RunContext {
  run: RunSummary | undefined;
  budget: BudgetFigures | undefined;
  decisions: readonly RunDecision[];
}

function decidedBy(decision: RunDecision): SafeHtml {
  const { approval } = decision;
  if (approval?.status === 'approved' || approval?.status === 'denied')
    return html`${approval.decided_by_name ?? 'an approver'}`;
  if (approval?.status === 'expired') return html`the expiry`;
  if (decision.by_grant) return html`a standing approval`;
  if (decision.source && decision.source !== 'policy') return html`the ${decision.source} stage`;
  return ruleName(decision.rule_id);
}

function decisionRow(decision: RunDecision, member: Member, invokedBy: string | undefined) {
  const { approval } = decision;
  const what =
    approval && seesArguments(approval, member, invokedBy)
      ? html`<code class="summary"
          >${visibleText(callSummary(decision.tool, approval.arguments)).text}</code
        >`
      : html`<span class="meta">${approval ? 'arguments hidden' : 'not asked of a person'}</span>`;
  return html`<tr>
    <td>
      ${
        approval
          ? html`<a href="${detailPath(decision)}"
              ><code>${visibleText(decision.tool).text}</code></a
            >`
          : html`<code>${visibleText(decision.tool).text}</code>`
      }
    </td>
    <td class="what">${what}</td>
    <td>${badge(decision.decision)}</td>
    <td>${decidedBy(decision)}</td>
    <td>${decision.decided_at && when(decision.decided_at)}</td>
  </tr>`;
}

/** The run's pull request, linked when the run names one. */
export function pullRequest(run: RunSummary | undefined): SafeHtml {
  if (run?.source.kind !== 'pull_request') return html``;
  const pr = run.source.pull_request;
  const url = pullRequestUrl(run.source);
  const number = pr?.number !== undefined ? `#${pr.number}` : 'unnumbered';
  return html`<dt>Pull request</dt>
    <dd>
      ${url ? html`<a href="${url}" rel="noreferrer" id="pull-request-link">${number}</a>` : number}
      from <code>${pr?.head_repo ?? 'an unknown or hidden head'}</code>
      ${pr?.sender && html`by ${pr.sender}`}
    </dd>`;
}

/** Dollars to the cent, or to the first significant digit below one cent. */
function dollars(nanos: number): string {
  const exact = formatUsd(nanos);
  const [whole = '0', fraction = ''] = exact.split('.');
  const cents = fraction.padEnd(2, '0');
  const shown =
    /^0*$/.test(cents.slice(0, 2)) && nanos > 0
      ? fraction.replace(/(0*[1-9]).*/, '$1')
      : cents.slice(0, 2);
  return `$${whole}.${shown.padEnd(2, '0')}`;
}

export function budgetLine(budget: BudgetFigures | undefined): SafeHtml {
  if (!budget) return html`<p class="meta">Unknown.</p>`;
  const n = (value: number) => value.toLocaleString('en-US');
  return html`<p id="budget">
    <strong id="budget-spent" title="${formatUsd(budget.used_nanos)} USD"
      >${dollars(budget.used_nanos)}</strong
    >
    spent, ${dollars(budget.held_nanos)} held; <strong>${n(budget.used_tokens)}</strong> tokens
    used, ${n(budget.held_tokens)} held, of ${n(budget.max_tokens)}.
  </p>`;
}

export function runContext(context: RunContext, member: Member): SafeHtml {
  const invokedBy = context.run?.invoked_by;
  return html`<h2>Budget</h2>
    ${budgetLine(context.budget)}
    <h2>The run's latest decisions</h2>
    ${
      context.decisions.length === 0
        ? html`<p class="meta" id="run-decisions">Nothing decided in this run yet.</p>`
        : html`<div class="list">
            <table id="run-decisions">
              <thead>
                <tr>
                  <th>Tool</th>
                  <th>What it did</th>
                  <th>Decision</th>
                  <th>By</th>
                  <th>When</th>
                </tr>
              </thead>
              <tbody>
                ${context.decisions.map((d) => decisionRow(d, member, invokedBy))}
              </tbody>
            </table>
          </div>`
    }`;
}
