import { grantScopeShown } from '../../domain/approvals/grant-offers.js';
import { mayDecide, seesArguments } from '../../domain/gate/approval.js';
import type { GrantRow } from '../../store/approval-grants.js';
import type { BudgetFigures } from '../../store/budget.js';
import type { Member } from '../../store/members.js';
import { badge, repository, when } from './approval-fields.js';
import { detailPath } from './approval-list-page.js';
import type { Notice } from './approval-detail-page.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import { budgetLine, pullRequest, runPath } from './run-context.js';
import type { RunSummary } from './run-summaries.js';
import type { SignedIn } from './session.js';
import { visibleText } from './visible-text.js';

interface RunPage {
  run: RunSummary;
  budget: BudgetFigures | undefined;
  grants: readonly GrantRow[];
  now: Date;
}

function state(grant: GrantRow, now: Date): 'active' | 'revoked' | 'expired' {
  if (grant.revoked_at) return 'revoked';
  return grant.expires_at && grant.expires_at <= now ? 'expired' : 'active';
}

function revokeForm(grant: GrantRow, csrf: string): SafeHtml {
  return html`<form method="post" action="${runPath(grant.run_id)}/grants/${grant.id}/revoke">
    <input type="hidden" name="csrf" value="${csrf}" />
    <button class="deny" type="submit" aria-label="Revoke the grant ${grant.id}">Revoke</button>
  </form>`;
}

function grantRow(grant: GrantRow, view: RunPage, member: Member, csrf: string): SafeHtml {
  const now = state(grant, view.now);
  return html`<tr data-grant="${grant.id}">
    <td>
      ${
        seesArguments(grant, member, grant.invoked_by)
          ? html`<code>${visibleText(grantScopeShown(grant.tool, grant.scope)).text}</code>`
          : html`${visibleText(grant.tool).text}
              <span class="meta scope-withheld">(its values are withheld from you)</span>`
      }
    </td>
    <td>
      ${grant.granted_by_name},
      <a href="${detailPath(grant)}">approving ${visibleText(grant.tool).text}</a>
    </td>
    <td>${grant.expires_at ? when(grant.expires_at) : 'the end of the run'}</td>
    <td>${badge(now)} ${grant.revoked_at && html`by ${grant.revoked_by_name ?? 'a decider'}`}</td>
    <td>${now === 'active' && mayDecide(grant, member) && revokeForm(grant, csrf)}</td>
  </tr>`;
}

/** A run's page: where it comes from, and its standing approvals, each revocable by a decider. */
export function runPage(session: SignedIn, view: RunPage, notice?: Notice): SafeHtml {
  const { run } = view;
  return page(
    { title: 'Run', session },
    html`<p><a href="/approvals">← Approvals</a></p>
      ${notice && html`<div class="notice ${notice.kind}" role="status">${notice.text}</div>`}
      <h1>Run ${badge(run.trust_tier)}</h1>
      <section class="card" aria-labelledby="grants-heading">
        <dl>
          <dt>Repository</dt>
          <dd>${repository(run)}</dd>
          <dt>Invoked by</dt>
          <dd>${run.invoked_by_name}</dd>
          ${pullRequest(run)}
        </dl>
        <h2>Model spend</h2>
        ${budgetLine(view.budget)}
        <h2 id="grants-heading">Standing approvals</h2>
        <p class="meta">
          A call one of these covers is approved without asking, its decision naming the grant.
        </p>
        ${
          view.grants.length === 0
            ? html`<p class="meta" id="no-grants">None.</p>`
            : html`<div class="list">
                <table id="grants">
                  <thead>
                    <tr>
                      <th>Allows</th>
                      <th>Given by</th>
                      <th>Until</th>
                      <th>State</th>
                      <th>Revoke</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${view.grants.map((g) => grantRow(g, view, session.member, session.csrf))}
                  </tbody>
                </table>
              </div>`
        }
      </section>`,
  );
}
