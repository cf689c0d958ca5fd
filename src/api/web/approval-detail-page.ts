import { callSummary, readCall } from '../../domain/approvals/call-reading.js';
import { grantLengths, lengthText } from '../../domain/approvals/grant-lengths.js';
import type { ScopeExplanation } from '../../domain/approvals/grant-offers.js';
import type { ScopeKind } from '../../domain/approvals/grant-scopes.js';
import type { Rule } from '../../domain/policy/policy.js';
import type { FrozenTool } from '../../domain/tools/tools.js';
import type { ApprovalRow } from '../../store/approvals.js';
import { badge, decider, repository, ruleName, when } from './approval-fields.js';
import { detailPath } from './approval-list-page.js';
import { argumentViews } from './argument-views.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import { pullRequest, runContext, runPath, type RunContext } from './run-context.js';
import type { SignedIn } from './session.js';
import { visibleText } from './visible-text.js';

export interface ApprovalDetail extends RunContext {
  approval: ApprovalRow;
  /** The tool as the run froze it: its description and argument schema. */
  tool: FrozenTool | undefined;
  policy: { name: string; rule: Rule | undefined } | undefined;
  decidedByName: string | undefined;
  /** Pending, and this member has authority over it: only then are there buttons. */
  mayDecide: boolean;
  /** Deciders and the run's invoker read the arguments; other members see that they exist. */
  showArguments: boolean;
  /** The standing approvals the gate offers this decider, the exact one first. */
  grantOffers: readonly GrantOffer[];
}

/** A scope the gate offers, as a person reads it. */
export interface GrantOffer {
  kind: ScopeKind;
  text: string;
  explanation: ScopeExplanation;
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
  const { approval } = detail;
  const escaped =
    visibleText(JSON.stringify(approval.arguments)).escaped ||
    visibleText(approval.tool).escaped ||
    visibleText(detail.tool?.description ?? '').escaped;
  return html`${escaped && escapedNotice}
    <div id="arguments">
      ${argumentViews({
        reading: readCall(approval.tool, approval.arguments),
        args: approval.arguments,
        tool: detail.tool,
        rule: ruleName(approval.rule_id),
      })}
    </div>`;
}

function outcome(detail: ApprovalDetail): SafeHtml {
  const { approval } = detail;
  if (approval.status === 'pending') return html``;
  const who =
    approval.status === 'expired'
      ? `expired; the policy's on_timeout decided ${approval.decision ?? ''}`
      : approval.status === 'failed_closed'
        ? 'denied by the gate, which could no longer wait for a decision'
        : `${approval.status} by ${decider(approval.status, detail.decidedByName)}`;
  const reason =
    approval.reason &&
    (detail.showArguments
      ? html`<br />Message to the agent: ${visibleText(approval.reason).text}`
      : html`<br /><span class="meta">A message to the agent was given.</span>`);
  return html`<dt>Outcome</dt>
    <dd id="outcome">
      ${who}${approval.decided_at && html`, ${when(approval.decided_at)}`} ${reason}
    </dd>`;
}

const scopeLabels: Record<ScopeKind, string> = {
  exact: 'This call exactly',
  any_content: 'This path, any content',
};

function scopeChoice(offer: GrantOffer, first: boolean): SafeHtml {
  const id = `grant-scope-${offer.kind}`;
  const { allows, free, example } = offer.explanation;
  return html`<div class="scope-offer">
    <input
      type="radio"
      id="${id}"
      name="grant_scope"
      value="${offer.kind}"
      ${first ? html`checked` : html``}
      aria-describedby="${id}-what"
    />
    <label for="${id}"
      >${scopeLabels[offer.kind]}: <code>${visibleText(offer.text).text}</code></label
    >
    <dl id="${id}-what">
      <dt>Allows</dt>
      <dd>${visibleText(allows).text}</dd>
      <dt>Stays free</dt>
      <dd>${visibleText(free).text}</dd>
      <dt>Would let through</dt>
      <dd><code>${visibleText(example).text}</code></dd>
    </dl>
  </div>`;
}

function grantChoice(offers: readonly GrantOffer[]): SafeHtml {
  if (offers.length === 0)
    return html`<p class="meta" id="no-grant">
      The gate offers no standing approval for this call: approving allows it once.
    </p>`;
  return html`<fieldset class="grant">
    <legend>When approving, also allow the same without asking?</legend>
    <label for="grant_for">How long</label>
    <select id="grant_for" name="grant_for">
      ${grantLengths.map(
        ({ value, for_s }, i) =>
          html`<option value="${value}" ${i === 0 ? html`selected` : html``}>
            ${lengthText(for_s)}
          </option>`,
      )}
    </select>
    <p class="meta">What the same is, if you choose a length:</p>
    ${offers.map((offer, i) => scopeChoice(offer, i === 0))}
  </fieldset>`;
}

function decisionForm(
  approval: ApprovalRow,
  csrf: string,
  offers: readonly GrantOffer[],
): SafeHtml {
  return html`<form class="decide" method="post" action="${detailPath(approval)}/decision">
    <input type="hidden" name="csrf" value="${csrf}" />
    <label for="reason">Message to the agent</label>
    <p class="meta" id="reason-hint">
      Sent with a deny: the agent reads it as the reason and can do something else instead.
    </p>
    <textarea
      id="reason"
      name="reason"
      maxlength="1000"
      aria-describedby="reason-hint"
      placeholder="No, and instead…"
    ></textarea>
    ${grantChoice(offers)}
    <div class="actions">
      <button class="approve" type="submit" name="decision" value="approve" aria-keyshortcuts="a">
        Approve
      </button>
      <button class="deny" type="submit" name="decision" value="deny" aria-keyshortcuts="d">
        Deny with this message
      </button>
    </div>
    <p class="meta" id="shortcuts">
      Keys: <kbd>a</kbd> approve · <kbd>d</kbd> write the message · <kbd>Ctrl</kbd>+<kbd>Enter</kbd>
      in the message denies with it.
    </p>
  </form>`;
}

function noDecisionReason(approval: ApprovalRow): string {
  if (approval.status !== 'pending') return 'This call has been decided.';
  return approval.authority === 'owner'
    ? 'This call uses a personal connection: only its owner may decide it.'
    : 'Only approvers and admins of this workspace may decide this call.';
}

function summaryLine(detail: ApprovalDetail): SafeHtml {
  if (!detail.showArguments) return html``;
  const line = callSummary(detail.approval.tool, detail.approval.arguments);
  return html`<p class="call-line"><code>${visibleText(line).text}</code></p>`;
}

export function approvalDetailPage(
  session: SignedIn,
  detail: ApprovalDetail,
  notice?: Notice,
): SafeHtml {
  const { approval, run, policy } = detail;
  return page(
    { title: `Approval: ${visibleText(approval.tool).text}`, session, script: true },
    html`<p><a href="/approvals">← Approvals</a></p>
      ${notice && html`<div class="notice ${notice.kind}" role="status">${notice.text}</div>`}
      <h1>${visibleText(approval.tool).text} ${badge(approval.status)}</h1>
      ${summaryLine(detail)}
      <section class="card" aria-labelledby="the-call">
        <h2 id="the-call">The call</h2>
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
          <dt>Requested</dt>
          <dd>${when(approval.requested_at)}</dd>
          <dt>Expires</dt>
          <dd>${when(approval.expires_at)} (then ${approval.on_timeout})</dd>
          ${outcome(detail)}
        </dl>

        ${
          detail.mayDecide
            ? decisionForm(approval, session.csrf, detail.grantOffers)
            : html`<p class="meta" id="no-authority">${noDecisionReason(approval)}</p>`
        }
      </section>

      <section class="card" aria-labelledby="the-run">
        <h2 id="the-run">The run</h2>
        <p><a href="${runPath(approval.run_id)}">The run's standing approvals</a></p>
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
          <dt>Tool call</dt>
          <dd><code>${approval.tool_call_id}</code></dd>
        </dl>
        ${runContext(detail, session.member)}
      </section>`,
  );
}
