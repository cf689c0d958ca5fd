import type { SimulationResult } from '../../application/simulate-policy.js';
import type { PolicyBody } from '../../domain/policy/policy.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { SignedIn } from './session.js';

/** One version's rules, as JSON text: the html tag escapes it, so no rule becomes markup. */
function rules(title: string, body: PolicyBody): SafeHtml {
  const shown = {
    rules: body.rules,
    default: body.default,
    autonomous_fallback: body.autonomous_fallback,
  };
  return html`<div class="card">
    <h2>${title}</h2>
    <pre><code>${JSON.stringify(shown, null, 2)}</code></pre>
  </div>`;
}

function counts(title: string, entries: [string, number][]): SafeHtml {
  return html`<h2>${title}</h2>
    <table>
      ${entries.map(
        ([name, count]) =>
          html`<tr>
            <th scope="row">${name}</th>
            <td>${count}</td>
          </tr>`,
      )}
    </table>`;
}

function changedCalls(result: SimulationResult): SafeHtml {
  if (result.changed.length === 0)
    return html`<p id="no-change">No call's decision would change.</p>`;
  return html`<table id="changed">
    <thead>
      <tr>
        <th>Session</th>
        <th>Tool call</th>
        <th>Tool</th>
        <th>Recorded</th>
        <th>Candidate</th>
      </tr>
    </thead>
    <tbody>
      ${result.changed.map(
        (call) =>
          html`<tr>
            <td><code>${call.session_id}</code></td>
            <td><code>${call.tool_call_id}</code></td>
            <td><code>${call.tool}</code></td>
            <td>
              ${call.recorded.asked ? 'asked, then ' : ''}${call.recorded.decision}
              ${call.recorded.rule_id && html`(<code>${call.recorded.rule_id}</code>)`}
            </td>
            <td>${call.candidate.decision}: ${call.candidate.reason}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/**
 * What a version would have decided on the policy's recorded calls, beside the rules of the
 * versions that decided them.
 */
export function simulationPage(
  session: SignedIn,
  policy: {
    name: string;
    recorded: { version: number; body: PolicyBody }[];
    candidate: { version: number; body: PolicyBody };
  },
  result: SimulationResult,
): SafeHtml {
  return page(
    { title: `Simulating ${policy.name}`, session },
    html`<section class="card">
        <h1>Version ${policy.candidate.version} of ${policy.name} on its recorded calls</h1>
        <p class="meta">
          Calls started from ${result.since} to ${result.until}: ${result.evaluated}
          evaluated${result.stopped_by && html`, stopped by the ${result.stopped_by}`}. Stages
          before policy stand as recorded; argument values are not shown.
        </p>
        <p class="meta" id="withheld">
          ${result.withheld} withheld: calls whose arguments are not yours to read (no person was
          asked about them, or only their personal connection's owner may see them) are counted here
          only, never evaluated.
        </p>
        ${counts('By outcome', Object.entries(result.by_outcome))}
        ${counts('By rule', Object.entries(result.by_rule))}
        <h2>Calls whose decision would change</h2>
        ${changedCalls(result)}
      </section>
      <section class="versions">
        ${policy.recorded.map((version) => rules(`Version ${version.version} (recorded)`, version.body))}
        ${rules(`Version ${policy.candidate.version} (candidate)`, policy.candidate.body)}
      </section>`,
  );
}
