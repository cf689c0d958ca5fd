import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { run } from '../../tools/devstack/child-process.js';
import { schemathesisPath, schemathesisVariables } from '../../tools/test/schemathesis-install.js';
import { useHarness } from '../support/harness.js';
import { startRugpullUpstream, type RugpullUpstream } from '../support/rugpull-upstream.js';
import { askForBash, createRun, expectStatus } from '../support/seed.js';
import { signInOverHttp } from '../support/web-form.js';

const h = useHarness({ policy: askForBash });
const configFile = fileURLToPath(new URL('./schemathesis.toml', import.meta.url));
const upstreamToken = randomBytes(16).toString('hex');
let upstream: RugpullUpstream;
/** Takes every webhook delivery: a notice that fails would only be retried in the background. */
let hooks: Server;

beforeAll(async () => {
  upstream = await startRugpullUpstream({ token: upstreamToken });
  hooks = createServer((_request, response) => response.writeHead(204).end());
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await upstream.close();
  await new Promise((resolve) => hooks.close(resolve));
});

/** What the operations' paths name, created for real, and each principal's credential. */
async function resources(): Promise<Record<string, string>> {
  const { api, seed } = h;
  const op = { token: api.operatorKey };
  const post = (path: string, body: unknown) =>
    expectStatus(api.call('POST', path, { ...op, body }), 201);
  const connection = await post('/v1/connections', {
    workspace: seed.workspace,
    name: 'notes',
    kind: 'org',
    url: upstream.url,
    credential: { type: 'bearer', token: upstreamToken },
  });
  const provider = await post('/v1/model-providers', {
    workspace: seed.workspace,
    name: 'anthropic',
    kind: 'anthropic',
    base_url: 'http://127.0.0.1:9/',
    credential: { type: 'api_key', key: 'sk-test' },
  });
  const quiet = await post('/v1/workspaces', { name: 'webhooks' });
  const webhook = await post(`/v1/workspaces/${quiet.id}/webhooks`, {
    url: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`,
  });
  const runner = await createRun(api, seed);
  const revocable = await createRun(api, seed);
  // A call waiting for a person: the approvers' operations have something to see and decide.
  await expectStatus(
    api.call('PUT', `/v1/sessions/${runner.session_id}/tool-calls/pending`, {
      token: runner.session_token,
      body: { tool: 'Bash', arguments: { command: 'make deploy' } },
    }),
    202,
  );
  const webSession = await signInOverHttp(api.url, seed.admin.token);
  assert.ok(webSession, 'the admin signed in to the web form');
  return {
    GATE_OPERATOR_KEY: api.operatorKey,
    GATE_WORKSPACE: seed.workspace,
    GATE_MEMBER: seed.admin.user_id,
    GATE_USER_TOKEN: seed.admin.token,
    GATE_POLICY: seed.policyId,
    GATE_CONNECTION: connection.id,
    GATE_MODEL_PROVIDER: provider.id,
    GATE_WEBHOOK_WORKSPACE: quiet.id,
    GATE_WEBHOOK: webhook.id,
    GATE_RUN: runner.run_id,
    GATE_REVOCABLE_RUN: revocable.run_id,
    GATE_SESSION: runner.session_id,
    GATE_SESSION_TOKEN: runner.session_token,
    GATE_TOOL_CALL: 'pending',
    GATE_WEB_SESSION: webSession,
  };
}

describe('the API against its OpenAPI document', () => {
  test(
    'Schemathesis, calling each operation as its principal, finds no server error, no answer the document does not describe and no valid request refused',
    // Catastrophic only: about a minute alone, two or three in a full run on a loaded machine.
    { timeout: 600_000 },
    async () => {
      const env = await resources();
      // A failing run rejects with Schemathesis's report: the operations, the checks, the curl.
      const report = await run(
        schemathesisPath(),
        ['--config-file', configFile, 'run', '--no-color', `${h.api.url}/openapi.json`],
        { env: { ...process.env, ...schemathesisVariables(), ...env } },
      );
      // Every operation the configuration selects was reached, not skipped.
      const selected = /Selected: (\d+)\/(\d+)/.exec(report);
      const tested = /Tested: (\d+)/.exec(report);
      assert.ok(selected && tested, report);
      assert.equal(tested[1], selected[1], report);
      assert.ok(Number(selected[1]) > 40, report);
    },
  );
});
