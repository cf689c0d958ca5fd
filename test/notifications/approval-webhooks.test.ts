import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { newWebhookSecret, verifyWebhook } from '../../src/domain/notify/webhook-signature.js';
import { useHarness } from '../support/harness.js';
import {
  createRun,
  defaultPolicy,
  expectStatus,
  seedWorkspace,
  toolCallUntilAnswered,
} from '../support/seed.js';
import { terminateGate, testTemporalClient } from '../support/temporal.js';

const approvalPolicy = {
  ...defaultPolicy,
  name: 'approve-bash',
  rules: [{ id: 'bash-needs-a-human', match: { tool: 'Bash' }, verdict: 'require_approval' }],
};
const h = useHarness({ policy: approvalPolicy });

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

/** A receiver whose `/flaky` path answers 500 to the first two attempts of each delivery. */
class Receiver {
  readonly received: Received[] = [];
  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      const tries = this.received.filter((r) => r.headers['webhook-id'] === id).length;
      const answered = request.url === '/flaky' && tries < 2 ? 500 : 200;
      this.received.push({
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        answered,
      });
      response.writeHead(answered).end();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  accepted(path: string, type: string): Received[] {
    return this.received.filter(
      (r) => r.path === path && r.answered === 200 && JSON.parse(r.body).type === type,
    );
  }

  /**
   * Until `done`, or a minute: a delivery through two refusals takes about 2 s of retry backoff,
   * and far longer only on a starved machine; a notice that never comes fails here.
   */
  async until(what: string, done: () => boolean, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }
}

const receiver = new Receiver();
let base: string;
beforeAll(async () => {
  base = await receiver.start();
});
afterAll(() => receiver.close());

function register(workspace: string, body: Record<string, unknown>) {
  return h.api.call('POST', `/v1/workspaces/${workspace}/webhooks`, {
    token: h.api.operatorKey,
    body,
  });
}

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

describe('approval notifications', () => {
  test('requested and decided reach each endpoint once per delivery id, signed, through failed attempts; arguments only when opted in', async () => {
    const canary = `canary-${randomUUID()}`;
    const flaky = await expectStatus(register(h.seed.workspace, { url: `${base}/flaky` }), 201);
    assert.match(flaky.secret, /^whsec_/, 'a generated secret is returned once');
    const givenSecret = newWebhookSecret();
    const opted = await expectStatus(
      register(h.seed.workspace, {
        url: `${base}/opted`,
        secret: givenSecret,
        include_arguments: true,
      }),
      201,
    );
    assert.equal(opted.secret, undefined, 'a secret the operator gave is not echoed');

    const run = await createRun(h.api, h.seed);
    const bash = { tool: 'Bash', arguments: { command: `make deploy ${canary}` } };
    await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', bash), 202);
    await receiver.until('both approval.requested notices', () =>
      ['/flaky', '/opted'].every((p) => receiver.accepted(p, 'approval.requested').length > 0),
    );
    await expectStatus(
      h.api.call('POST', `/v1/approvals/${run.session_id}/c1/decision`, {
        token: h.seed.admin.token,
        body: { decision: 'approve' },
      }),
      200,
    );
    await receiver.until('both approval.decided notices', () =>
      ['/flaky', '/opted'].every((p) => receiver.accepted(p, 'approval.decided').length > 0),
    );

    const ofRun = receiver.received.filter((r) => r.body.includes(run.session_id));
    for (const [path, secret] of [
      ['/flaky', flaky.secret as string],
      ['/opted', givenSecret],
    ] as const) {
      const attempts = ofRun.filter((r) => r.path === path);
      for (const attempt of attempts) {
        assert.ok(verifyWebhook(secret, headersOf(attempt), attempt.body), `${path} signature`);
        assert.equal(verifyWebhook(newWebhookSecret(), headersOf(attempt), attempt.body), false);
        const tampered = attempt.body.replace('approval.', 'approval_');
        assert.equal(verifyWebhook(secret, headersOf(attempt), tampered), false);
      }
      for (const type of ['approval.requested', 'approval.decided']) {
        const accepted = receiver
          .accepted(path, type)
          .filter((r) => r.body.includes(run.session_id));
        assert.equal(accepted.length, 1, `${path} ${type} accepted once`);
        const id = String(accepted[0]?.headers['webhook-id']);
        const tries = attempts.filter((r) => r.headers['webhook-id'] === id);
        assert.deepEqual(
          tries.map((r) => r.answered),
          path === '/flaky' ? [500, 500, 200] : [200],
          `${path} ${type}: every attempt carries the same delivery id`,
        );
        const notice = JSON.parse(accepted[0]?.body ?? '{}');
        assert.equal(notice.data.session_id, run.session_id);
        assert.equal(notice.data.tool, 'Bash');
        if (path === '/opted') assert.deepEqual(notice.data.arguments, bash.arguments);
        else assert.ok(!('arguments' in notice.data) && !accepted[0]?.body.includes(canary));
      }
    }
    const decided = JSON.parse(
      receiver.accepted('/flaky', 'approval.decided').find((r) => r.body.includes(run.session_id))
        ?.body ?? '{}',
    );
    assert.equal(decided.data.outcome, 'approved');
    assert.equal(decided.data.decision, 'allow');
    assert.equal(decided.data.decided_by, h.seed.admin.user_id);

    // The delivery record: attempts and the last status, per delivery. An attempt is recorded
    // once its POST has been answered, so the receiver may have the last one first.
    type Delivery = { session_id: string; status: string; attempts: number; last_status: number };
    const listed = async (): Promise<Delivery[]> => {
      const { deliveries } = await expectStatus(
        h.api.call('GET', `/v1/workspaces/${h.seed.workspace}/webhooks/${flaky.id}/deliveries`, {
          token: h.api.operatorKey,
        }),
        200,
      );
      return (deliveries as Delivery[]).filter((d) => d.session_id === run.session_id);
    };
    let mine = await listed();
    for (
      let waited = 0;
      mine.some((d) => d.status === 'pending') && waited < 10_000;
      waited += 50
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      mine = await listed();
    }
    assert.equal(mine.length, 2);
    for (const d of mine) {
      assert.equal(d.status, 'delivered');
      assert.equal(d.attempts, 3);
      assert.equal(d.last_status, 200);
    }
  });

  test('an endpoint is listed without its secret, and a deleted one gets nothing more', async () => {
    const created = await expectStatus(register(h.seed.workspace, { url: `${base}/gone` }), 201);
    const listed = await expectStatus(
      h.api.call('GET', `/v1/workspaces/${h.seed.workspace}/webhooks`, {
        token: h.api.operatorKey,
      }),
      200,
    );
    const entry = listed.webhooks.find((w: { id: string }) => w.id === created.id);
    assert.deepEqual(entry.events, ['approval.requested', 'approval.decided']);
    assert.equal(entry.include_arguments, false);
    assert.ok(!JSON.stringify(listed).includes(created.secret));
    await expectStatus(
      h.api.call('DELETE', `/v1/workspaces/${h.seed.workspace}/webhooks/${created.id}`, {
        token: h.api.operatorKey,
      }),
      204,
    );
    const run = await createRun(h.api, h.seed);
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Bash', arguments: { command: 'x' } }),
      202,
    );
    const { rows } = await h.db.query(
      'select count(*)::int as n from webhook_deliveries where endpoint_id = $1',
      [created.id],
    );
    assert.equal(rows[0].n, 0);
  });

  test('a gate terminated while its approval waits: the decided notice says failed_closed, deny, decided by nobody', async () => {
    const seed = await seedWorkspace(h.api, approvalPolicy);
    await expectStatus(register(seed.workspace, { url: `${base}/closed` }), 201);
    const run = await createRun(h.api, seed);
    await expectStatus(
      toolCallUntilAnswered(h.api, run, 'c1', { tool: 'Bash', arguments: {} }),
      202,
    );
    const temporal = testTemporalClient();
    try {
      await terminateGate(temporal, run.session_id, 'c1');
    } finally {
      await temporal.connection.close();
    }
    const answer = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/c1?wait=0`, {
        token: run.session_token,
      }),
      200,
    );
    assert.equal(answer.decision, 'deny');
    await receiver.until('the decided notice', () =>
      receiver.accepted('/closed', 'approval.decided').some((r) => r.body.includes(run.session_id)),
    );
    const [notice] = receiver.accepted('/closed', 'approval.decided');
    const { data } = JSON.parse(notice!.body);
    assert.deepEqual(
      { outcome: data.outcome, decision: data.decision, decided_by: data.decided_by },
      { outcome: 'failed_closed', decision: 'deny', decided_by: null },
    );
  });

  test('bad registrations are 400 naming the field, an unknown workspace 404, a runner 401', async () => {
    const ws = h.seed.workspace;
    const bad = await register(ws, { url: 'ftp://example.com/x' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].path, 'body.url');
    const weak = await register(ws, { url: `${base}/x`, secret: 'hunter2' });
    assert.equal(weak.status, 400);
    assert.equal(weak.body.errors[0].path, 'body.secret');
    const events = await register(ws, { url: `${base}/x`, events: ['tool.decision'] });
    assert.equal(events.status, 400);
    const extra = await register(ws, { url: `${base}/x`, verbose: true });
    assert.equal(extra.status, 400);
    assert.equal((await register(randomUUID(), { url: `${base}/x` })).status, 404);
    const anonymous = await h.api.call('POST', `/v1/workspaces/${ws}/webhooks`, {
      body: { url: `${base}/x` },
    });
    assert.equal(anonymous.status, 401);
  });

  test('a url that is not a URL at all is a 400 naming body.url, never a 500', async () => {
    for (const url of ['not a url', 'http://', '://x', 'https://exa mple.com/']) {
      const answer = await register(h.seed.workspace, { url });
      assert.equal(answer.status, 400, `${url}: ${JSON.stringify(answer.body)}`);
      assert.deepEqual(
        answer.body.errors.map((e: { path: string }) => e.path),
        ['body.url'],
      );
    }
  });
});
