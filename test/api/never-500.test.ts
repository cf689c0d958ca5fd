import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { useHarness } from '../support/harness.js';
import { createRun } from '../support/seed.js';

const h = useHarness();

/** Bodies a careless or hostile client sends: wrong shapes, wrong types, nothing at all. */
const bodies: (string | undefined)[] = [
  undefined,
  '',
  'null',
  '[]',
  '"text"',
  '42',
  '{}',
  '{"a":1}',
  '{"workspace":null,"name":{},"tools":"x","rules":1,"source":[],"budget":{"max_tokens":"many"}}',
  '{"tool":["Read"],"arguments":[]}',
  '{"decision":"maybe","reason":7}',
  '{"request_id":"","model":"","max_output_tokens":-1,"input":{"messages":"no"}}',
  '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
  '{"name":"' + 'x'.repeat(10_000) + '"}',
];

describe('bad input never yields a 500', () => {
  test('every route answers malformed bodies with a 4xx problem, for every kind of caller', async () => {
    const run = await createRun(h.api, h.seed);
    const sid = run.session_id;
    const routes: [string, string][] = [
      ['POST', '/v1/workspaces'],
      ['POST', `/v1/workspaces/${h.seed.workspace}/members`],
      ['PATCH', `/v1/workspaces/${h.seed.workspace}/members/${h.seed.admin.user_id}`],
      ['POST', '/v1/capability-bundles'],
      ['POST', '/v1/connections'],
      ['POST', '/v1/connections/00000000-0000-4000-8000-000000000000/reauthorize'],
      ['POST', '/v1/policies'],
      ['PUT', `/v1/policies/${h.seed.policyId}`],
      ['POST', '/v1/runs'],
      ['PUT', `/v1/sessions/${sid}/tool-calls/c1`],
      ['POST', `/v1/sessions/${sid}/model-requests`],
      ['POST', `/v1/sessions/${sid}/model-requests/r1/usage`],
      ['POST', `/v1/approvals/${sid}/c1/decision`],
      ['GET', `/v1/sessions/${sid}/events?after=x&limit=99999`],
      ['GET', `/v1/sessions/${sid}/tool-calls/c1?wait=-3`],
      ['GET', '/v1/approvals?status=everything'],
    ];
    const callers = [h.api.operatorKey, run.session_token, h.seed.admin.token, undefined];
    const seen = new Set<number>();
    for (const [method, path] of routes) {
      for (const token of callers) {
        for (const raw of method === 'GET' ? [undefined] : bodies) {
          const answer = await h.api.call(method, path, {
            ...(token && { token }),
            ...(raw !== undefined && { raw }),
          });
          seen.add(answer.status);
          assert.ok(
            answer.status >= 400 && answer.status < 500,
            `${method} ${path} with ${raw?.slice(0, 40) ?? 'no body'}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`,
          );
          assert.match(answer.headers.get('content-type') ?? '', /problem\+json/);
        }
      }
    }
    // The sweep reached the validators, the authenticator and the authoriser alike.
    for (const status of [400, 401, 403]) assert.ok(seen.has(status), `no ${status} seen`);
  });
});
