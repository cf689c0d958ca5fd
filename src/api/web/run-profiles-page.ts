import type { RunProfile } from '../../store/run-profiles.js';
import type { Choice, ProfileChoices } from '../../store/run-profile-choices.js';
import { html, type SafeHtml } from './html.js';
import { page } from './layout.js';
import type { SignedIn } from './session.js';

function labelOf(choices: Choice[], id: string): string {
  return choices.find((c) => c.id === id)?.label ?? id;
}

function row(session: SignedIn, profile: RunProfile, choices: ProfileChoices): SafeHtml {
  const tools = [
    ...profile.tools.bundles.map((id) => labelOf(choices.bundles, id)),
    ...profile.tools.connections.map((c) => labelOf(choices.connections, c.id)),
  ].join(', ');
  return html`<tr data-profile="${profile.id}">
    <td><strong>${profile.name}</strong><br /><span class="meta">${profile.description}</span></td>
    <td>${labelOf(choices.policies, profile.policy_id)}</td>
    <td>${tools}</td>
    <td>${profile.max_tokens}</td>
    <td>
      ${profile.autonomy}<br /><span class="badge ${profile.trust_tier}"
        >${profile.trust_tier}</span
      >
    </td>
    <td>
      <form method="post" action="/run-profiles/${profile.id}/delete">
        <input type="hidden" name="csrf" value="${session.csrf}" />
        <button type="submit" class="deny">Delete</button>
      </form>
    </td>
  </tr>`;
}

function checkboxes(prefix: string, choices: Choice[], none: string): SafeHtml {
  if (choices.length === 0) return html`<p class="meta">${none}</p>`;
  return html`${choices.map(
    (c) =>
      html`<label><input type="checkbox" name="${prefix}.${c.id}" value="on" /> ${c.label}</label>`,
  )}`;
}

/**
 * A workspace admin's run profiles: what an interactive MCP client's person may pick when they
 * connect it. Runs already created from a profile keep what they froze.
 */
export function runProfilesPage(
  session: SignedIn,
  profiles: readonly RunProfile[],
  choices: ProfileChoices,
  notice?: string,
): SafeHtml {
  return page(
    { title: 'Run profiles', session },
    html`<h1>Run profiles</h1>
      <p class="meta">
        A person connecting an MCP client (Claude, an IDE) through the gate picks one of these; the
        run it creates has the profile's policy, tools, budget, autonomy and trust tier, and is
        theirs. Changing or deleting a profile changes only the runs created after.
      </p>
      ${notice && html`<div class="notice ok" role="status">${notice}</div>`}
      <section class="card">
        <h2>New profile</h2>
        <form method="post" action="/run-profiles" class="decide">
          <input type="hidden" name="csrf" value="${session.csrf}" />
          <label for="profile-name">Name</label>
          <input id="profile-name" name="name" type="text" maxlength="100" required />
          <label for="profile-description">Description</label>
          <input id="profile-description" name="description" type="text" maxlength="1000" />
          <label for="profile-policy">Policy</label>
          <select id="profile-policy" name="policy_id" required>
            ${choices.policies.map((p) => html`<option value="${p.id}">${p.label}</option>`)}
          </select>
          <fieldset class="grant">
            <legend>Capability bundles</legend>
            ${checkboxes('bundle', choices.bundles, 'No bundles are registered.')}
          </fieldset>
          <fieldset class="grant">
            <legend>Org connections</legend>
            ${checkboxes('connection', choices.connections, 'No active org connections.')}
          </fieldset>
          <label for="profile-tokens">Token budget per run</label>
          <input
            id="profile-tokens"
            name="max_tokens"
            type="number"
            min="1"
            value="200000"
            required
          />
          <label for="profile-autonomy">Autonomy</label>
          <select id="profile-autonomy" name="autonomy">
            <option value="supervised">supervised: a person decides what the policy asks</option>
            <option value="autonomous">autonomous: the policy's fallback decides</option>
          </select>
          <label for="profile-tier">Trust tier</label>
          <select id="profile-tier" name="trust_tier">
            <option value="trusted">trusted</option>
            <option value="read_only">read_only: never writes</option>
          </select>
          <div class="actions"><button type="submit">Create profile</button></div>
        </form>
      </section>
      <h2>Profiles</h2>
      ${
        profiles.length === 0
          ? html`<div class="list"><p class="empty">No run profiles yet.</p></div>`
          : html`<div class="list">
              <table id="run-profiles">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Policy</th>
                    <th>Tools</th>
                    <th>Budget</th>
                    <th>Mode</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${profiles.map((p) => row(session, p, choices))}
                </tbody>
              </table>
            </div>`
      }`,
  );
}
