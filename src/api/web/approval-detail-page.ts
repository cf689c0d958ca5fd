import type { Rule } from '../../domain/policy/policy.js';
import type { ApprovalRow } from '../../store/approvals.js';
import { badge, repository, ruleName, when } from './approval-fields.js';
import { detailPath } from './approval-list-page.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { RunSummary } from './run-summaries.js';
import type { SignedIn } from './session.js';
import { visibleText } from './visible-text.js';

export interface ApprovalDetail {
  approval: ApprovalRow;
  run: RunSummary | undefined;
  policy: { name: string; rule: Rule | undefined } | undefined;
  decidedByName: string | undefined;
  /** Pending, and this member has authority over it: only then are there buttons. */
  mayDecide: boolean;
  /** Deciders and the run's invoker read the arguments; other members see that they exist. */
  showArguments: boolean;
}

export interface Notice {
  kind: 'ok' | 'error' | 'info';
  text: string;
}

/** Pretty JSON, shown as text: the html tag escapes it, so arguments can never become markup. */
const json = (value: unknown) => html`<pre><code>${JSON.stringify(value, null, 2)}</code></pre>`;

const escapedNotice = html`<p class="notice info" role="note" id="escaped-notice">
  This call holds invisible or direction-changing characters; each is shown as its code,
  <code>\\u{…}</code>, so the text reads as what runs.
</p>`;

/** The arguments as an approver must read them: hidden characters escaped, with a notice. */
function argumentsShown(detail: ApprovalDetail): SafeHtml {
  if (!detail.showArguments)
    return html`<p class="meta" id="arguments-hidden">
      Only those who may decide this call, and the member who started the run, see its arguments.
    </p>`;
  const shown = visibleText(JSON.stringify(detail.approval.arguments, null, 2));
  const tool = visibleText(detail.approval.tool);
  return html`${(shown.escaped || tool.escaped) && escapedNotice}
    <div id="arguments">
      <pre><code>${shown.text}</code></pre>
    </div>`;
}

function pullRequest(run: RunSummary | undefined): SafeHtml {
  if (run?.source.kind !== 'pull_request') return html``;
  const pr = run.source.pull_request;
  return html`<dt>Pull request</dt>
    <dd>
      ${pr?.number !== undefined ? `#${pr.number}` : 'unnumbered'} from
      <code>${pr?.head_repo ?? 'an unknown or hidden head'}</code>
      ${pr?.sender && html`by ${pr.sender}`}
    </dd>`;
}

function outcome(detail: ApprovalDetail): SafeHtml {
  const { approval } = detail;
  if (approval.status === 'pending') return html``;
  const who =
    approval.status === 'expired'
      ? `expired; the policy's on_timeout decided ${approval.decision ?? ''}`
      : approval.status === 'failed_closed'
        ? 'denied by the gate, which could no longer wait for a decision'
        : `${approval.status} by ${detail.decidedByName ?? 'an approver'}`;
  return html`<dt>Outcome</dt>
    <dd>
      ${who}${approval.decided_at && html`, ${when(approval.decided_at)}`}
      ${approval.reason && html`<br />Reason: ${visibleText(approval.reason).text}`}
    </dd>`;
}

function decisionForm(approval: ApprovalRow, csrf: string): SafeHtml {
  return html`<form class="decide" method="post" action="${detailPath(approval)}/decision">
    <input type="hidden" name="csrf" value="${csrf}" />
    <label for="reason">Reason (optional)</label>
    <textarea id="reason" name="reason" maxlength="1000"></textarea>
    <div class="actions">
      <button class="approve" type="submit" name="decision" value="approve">Approve</button>
      <button class="deny" type="submit" name="decision" value="deny">Deny</button>
    </div>
  </form>`;
}

function noDecisionReason(approval: ApprovalRow): string {
  if (approval.status !== 'pending') return 'This call has been decided.';
  return approval.authority === 'owner'
    ? 'This call uses a personal connection: only its owner may decide it.'
    : 'Only approvers and admins of this workspace may decide this call.';
}

export function approvalDetailPage(
  session: SignedIn,
  detail: ApprovalDetail,
  notice?: Notice,
): SafeHtml {
  const { approval, run, policy } = detail;
  return page(
    { title: `Approval: ${visibleText(approval.tool).text}`, session },
    html`<p><a href="/approvals">← All pending approvals</a></p>
      ${notice && html`<div class="notice ${notice.kind}" role="status">${notice.text}</div>`}
      <h1>${visibleText(approval.tool).text} ${badge(approval.status)}</h1>
      <section class="card">
        <h2>The run</h2>
        <dl>
          <dt>Repository</dt>
          <dd>${repository(run)}</dd>
          <dt>Trust tier</dt>
          <dd>${run ? badge(run.trust_tier) : 'unknown'}</dd>
          <dt>Invoked by</dt>
          <dd>${run?.invoked_by_name ?? 'unknown'}</dd>
          <dt>Source</dt>
          <dd>${run?.source.kind.replace('_', ' ') ?? 'unknown'}</dd>
          ${pullRequest(run)}
          <dt>Session</dt>
          <dd><code>${approval.session_id}</code></dd>
        </dl>

        <h2>The call</h2>
        <dl>
          <dt>Tool</dt>
          <dd><code>${visibleText(approval.tool).text}</code></dd>
          <dt>Tool call</dt>
          <dd><code>${approval.tool_call_id}</code></dd>
        </dl>
        <h2>Arguments</h2>
        ${argumentsShown(detail)}

        <h2>Why it asks</h2>
        <dl>
          <dt>Policy</dt>
          <dd>${policy?.name ?? 'unknown'}, version ${approval.policy_version}</dd>
          <dt>Rule</dt>
          <dd>${ruleName(approval.rule_id)}</dd>
          ${
            policy?.rule &&
            html`<dt>Matches</dt>
              <dd>${json(policy.rule.match)}</dd>`
          }
          <dt>Who may decide</dt>
          <dd>
            ${
              approval.authority === 'owner'
                ? "only the personal connection's owner"
                : "the workspace's approvers and admins"
            }
          </dd>
        </dl>

        <h2>Status</h2>
        <dl>
          <dt>Status</dt>
          <dd>${badge(approval.status)}</dd>
          <dt>Requested</dt>
          <dd>${when(approval.requested_at)}</dd>
          <dt>Expires</dt>
          <dd>${when(approval.expires_at)} (then ${approval.on_timeout})</dd>
          ${outcome(detail)}
        </dl>

        ${
          detail.mayDecide
            ? decisionForm(approval, session.csrf)
            : html`<p class="meta" id="no-authority">${noDecisionReason(approval)}</p>`
        }
      </section>`,
  );
}
