import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import createClient from 'openapi-fetch';
import { z } from 'zod';
import { createApi } from '../../src/api/main.js';
import { json } from '../../src/api/route-schemas.js';
import type { paths } from '../support/gate-api.generated.js';
import { useHarness } from '../support/harness.js';
import { builtinTools, createRun } from '../support/seed.js';
import { testConfig, testOperatorKey } from '../support/env.js';
import { clientTypesFile, clientTypesFor } from '../support/openapi-client-types.js';

const h = useHarness();

async function servedDocument(): Promise<Record<string, any>> {
  const answer = await h.api.call('GET', '/openapi.json');
  assert.equal(answer.status, 200);
  return answer.body;
}

describe('the OpenAPI document', () => {
  test('/openapi.json validates as OpenAPI 3.1; a document missing its info does not', async () => {
    const document = await servedDocument();
    const validator = new Validator();
    const result = await validator.validate(document);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
    const broken = { ...document };
    delete broken.info;
    assert.equal((await new Validator().validate(broken)).valid, false);
  });

  test('the four web-form operations describe their HTML answers, their errors as pages', async () => {
    const document = await servedDocument();
    const operations = [
      document.paths['/login'].get,
      document.paths['/login'].post,
      document.paths['/logout'].post,
      document.paths['/approvals/{session_id}/{tool_call_id}/decision'].post,
    ];
    for (const operation of operations) {
      assert.ok(operation.responses.default.content['text/html'], operation.operationId);
    }
    assert.ok(document.paths['/login'].post.responses['401'].content['text/html']);
    const form = document.paths['/approvals/{session_id}/{tool_call_id}/decision'].post.requestBody;
    assert.deepEqual(form.content['application/x-www-form-urlencoded'].schema.required, [
      'csrf',
      'decision',
    ]);
  });

  test('a documented request is exactly what the API accepts: a refinement zod can write is in the document', async () => {
    const document = await servedDocument();
    const digest =
      document.paths['/v1/sessions/{session_id}/tool-calls/{tool_call_id}'].put.requestBody.content[
        'application/json'
      ].schema.properties.observed_digest;
    assert.match(JSON.stringify(digest), /sha256/);
    const wait = document.paths[
      '/v1/sessions/{session_id}/tool-calls/{tool_call_id}'
    ].get.parameters.find((p: { name: string }) => p.name === 'wait');
    assert.deepEqual([wait.in, wait.schema.minimum, wait.schema.maximum], ['query', 0, 60]);
  });

  test('a request body documented is the schema that validates it: unknown fields refused', async () => {
    const document = await servedDocument();
    const body =
      document.paths['/v1/sessions/{session_id}/tool-calls/{tool_call_id}'].put.requestBody;
    const schema = body.content['application/json'].schema;
    assert.equal(schema.additionalProperties, false);
    assert.deepEqual(schema.required, ['tool', 'arguments']);
  });

  test('the checked-in client types are generated from the document served (npm run openapi-client)', async () => {
    const generated = await clientTypesFor(await servedDocument());
    assert.equal(generated, readFileSync(clientTypesFile, 'utf8'));
  });
});

describe('the generated client', () => {
  test('runs the walkthrough: workspace, member, bundle, policy, run, calls allowed, denied, pending then approved', async () => {
    const operator = createClient<paths>({
      baseUrl: h.api.url,
      headers: { authorization: `Bearer ${h.api.operatorKey}` },
    });
    const workspace = await operator.POST('/v1/workspaces', { body: { name: 'acme' } });
    assert.equal(workspace.response.status, 201);
    const ws = workspace.data?.id ?? '';
    const ana = await operator.POST('/v1/workspaces/{ws}/members', {
      params: { path: { ws } },
      body: { name: 'ana', role: 'admin' },
    });
    assert.equal(ana.response.status, 201);
    const bundle = await operator.POST('/v1/capability-bundles', {
      body: { workspace: ws, name: 'builtins', version: '1', tools: [...builtinTools] },
    });
    assert.equal(bundle.response.status, 201, JSON.stringify(bundle.error));
    const policy = await operator.POST('/v1/policies', {
      body: {
        workspace: ws,
        name: 'default',
        rules: [
          { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
          {
            id: 'no-rm',
            match: {
              tool: 'Bash',
              args: [{ path: '/command', op: 'command', value: [['rm', '**']] }],
            },
            verdict: 'deny',
          },
        ],
        default: 'require_approval',
        autonomous_fallback: 'deny',
        approval: { timeout_s: 600, on_timeout: 'deny' },
      },
    });
    assert.equal(policy.response.status, 201, JSON.stringify(policy.error));
    const sessionId = `s-${randomUUID()}`;
    const run = await operator.POST('/v1/runs', {
      body: {
        workspace: ws,
        session_id: sessionId,
        invoked_by: ana.data?.user_id ?? '',
        source: { kind: 'manual' },
        autonomy: 'supervised',
        policy_id: policy.data?.id ?? '',
        tools: { bundles: [bundle.data?.id ?? ''] },
        budget: { max_tokens: 100_000 },
      },
    });
    assert.equal(run.response.status, 201, JSON.stringify(run.error));

    const runner = createClient<paths>({
      baseUrl: h.api.url,
      headers: { authorization: `Bearer ${run.data?.session_token ?? ''}` },
    });
    const call = (id: string, tool: string, args: Record<string, unknown>) =>
      runner.PUT('/v1/sessions/{session_id}/tool-calls/{tool_call_id}', {
        params: { path: { session_id: sessionId, tool_call_id: id } },
        body: { tool, arguments: args },
      });
    const read = await call('c1', 'Read', { file_path: 'README.md' });
    assert.equal(read.data?.decision, 'allow');
    const rm = await call('c2', 'Bash', { command: 'rm -rf /' });
    assert.deepEqual([rm.data?.decision, rm.data?.source], ['deny', 'policy']);
    const pending = await call('c4', 'Bash', { command: 'make deploy' });
    assert.equal(pending.response.status, 202);
    assert.equal(pending.data?.status, 'pending_approval');

    const approver = createClient<paths>({
      baseUrl: h.api.url,
      headers: { authorization: `Bearer ${ana.data?.user_token ?? ''}` },
    });
    const decided = await approver.POST('/v1/approvals/{session_id}/{tool_call_id}/decision', {
      params: { path: { session_id: sessionId, tool_call_id: 'c4' } },
      body: { decision: 'approve', reason: 'ship it' },
    });
    assert.equal(decided.data?.outcome, 'decided');
    const final = await runner.GET('/v1/sessions/{session_id}/tool-calls/{tool_call_id}', {
      params: { path: { session_id: sessionId, tool_call_id: 'c4' }, query: { wait: 30 } },
    });
    assert.equal(final.response.status, 200);
    assert.equal(final.data?.decision, 'allow');
  });
});

describe('answers are written by their schema', () => {
  test("a handler's field the document does not name is not sent", async () => {
    const config = testConfig();
    const app = createApi(config, testOperatorKey(config));
    try {
      const answer = z.object({ id: z.string(), created_at: z.date() });
      app.get(
        '/extra-field',
        { config: { caller: 'anyone' }, schema: { response: { 200: json('one', answer) } } },
        () => ({ id: 'a', created_at: new Date(0), session_token: 'fgs_never-sent' }),
      );
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      const sent = await fetch(`${url}/extra-field`);
      const body = await sent.text();
      assert.equal(sent.status, 200, body);
      assert.deepEqual(JSON.parse(body), { id: 'a', created_at: '1970-01-01T00:00:00.000Z' });
      assert.doesNotMatch(body, /fgs_never-sent/);
    } finally {
      await app.close();
    }
  });

  test('a real answer carries only the fields its documented schema names', async () => {
    const document = await servedDocument();
    const documented = Object.keys(
      document.paths['/v1/runs/{id}'].get.responses['200'].content['application/json'].schema
        .properties,
    ).sort();
    const created = await createRun(h.api, h.seed);
    const run = await h.api.call('GET', `/v1/runs/${created.run_id}`, {
      token: h.api.operatorKey,
    });
    assert.equal(run.status, 200);
    assert.deepEqual(Object.keys(run.body).sort(), documented);
  });
});
