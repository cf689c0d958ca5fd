/**
 * Who sees a pending call's arguments: those who may decide it and the member who started the
 * run. Others of the workspace see that it exists; a suspended member sees nothing anywhere.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, test } from 'vitest';
import { pendingVersion } from '../../src/api/web/approval-list-page.js';
import { useHarness } from '../support/harness.js';
import { createRun, defaultPolicy, expectStatus, toolCallUntilAnswered } from '../support/seed.js';
import { signInOverHttp } from '../support/web-form.js';

const h = useHarness({
  policy: {
    ...defaultPolicy,
    name: 'ask-for-bash',
    rules: [{ id: 'ask', match: { tool: 'Bash' }, verdict: 'require_approval' }],
  },
});

type Who = 'member' | 'approver' | 'admin' | 'invoker' | 'suspended';
const tokens = {} as Record<Who, string>;
const secret = `owner-only-${randomBytes(8).toString('hex')}`;
let sessionId: string;
const toolCallId = randomUUID();

async function addMember(name: string, role: string) {
  return expectStatus(
    h.api.call('POST', `/v1/workspaces/${h.seed.workspace}/members`, {
      token: h.api.operatorKey,
      body: { name, role },
    }),
    201,
  );
}

/** The first `count` events of a web stream (named events, with or without ids). */
async function webStreamEvents(cookie: string, count: number, onOpen?: () => Promise<void>) {
  const abort = new AbortController();
  const timer = setTimeout(() => {
    abort.abort();
  }, 10_000);
  const events: { event: string; data: string }[] = [];
  try {
    const response = await fetch(`${h.api.url}/approvals/stream`, {
      headers: { cookie, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    assert.equal(response.status, 200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let opened = false;
    while (events.length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        if (event) events.push({ event, data: /^data: ?(.*)$/m.exec(block)?.[1] ?? '' });
      }
      if (!opened && events.length > 0 && onOpen) {
        opened = true;
        await onOpen();
      }
    }
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return events;
}

const roles: Record<Exclude<Who, 'admin'>, string> = {
  member: 'member',
  approver: 'approver',
  invoker: 'member',
  suspended: 'approver',
};

const seesArguments: Record<Who, boolean> = {
  member: false,
  approver: true,
  admin: true,
  invoker: true,
  suspended: false,
};
/** In the list of what waits for them to decide (the default list). */
const listsIt: Record<Who, boolean> = {
  member: false,
  approver: true,
  admin: true,
  invoker: false,
  suspended: false,
};
/** In the list of all pending calls, which the live stream follows. */
const listsItInAll: Record<Who, boolean> = { ...listsIt, invoker: true };

describe('approval visibility', () => {
  beforeAll(async () => {
    for (const [who, role] of Object.entries(roles) as [Exclude<Who, 'admin'>, string][]) {
      const created = await addMember(`${who}-${randomUUID().slice(0, 8)}`, role);
      tokens[who] = created.user_token;
      if (who === 'invoker') {
        const run = await createRun(h.api, h.seed, { invoked_by: created.user_id });
        sessionId = run.session_id;
        await expectStatus(
          toolCallUntilAnswered(h.api, run, toolCallId, {
            tool: 'Bash',
            arguments: { command: secret },
          }),
          202,
        );
      }
      if (who === 'suspended') {
        await expectStatus(
          h.api.call('PATCH', `/v1/workspaces/${h.seed.workspace}/members/${created.user_id}`, {
            token: h.api.operatorKey,
            body: { status: 'suspended' },
          }),
          200,
        );
      }
    }
    tokens.admin = h.seed.admin.token;
  });

  for (const who of ['member', 'approver', 'admin', 'invoker', 'suspended'] as const) {
    test(`as ${who}: the list, the detail (API and web form) and the stream`, async () => {
      const token = tokens[who];
      const list = await h.api.call('GET', '/v1/approvals', { token });
      const detail = await h.api.call('GET', `/v1/approvals/${sessionId}/${toolCallId}`, {
        token,
      });
      if (who === 'suspended') {
        assert.equal(list.status, 403);
        assert.equal(detail.status, 403);
        assert.ok(!JSON.stringify([list.body, detail.body]).includes(secret));
        assert.equal(await signInOverHttp(h.api.url, token), undefined, 'signs in');
        return;
      }
      assert.equal(list.status, 200);
      const listed = (list.body.approvals as { tool_call_id: string; arguments?: unknown }[]).find(
        (a) => a.tool_call_id === toolCallId,
      );
      assert.equal(listed !== undefined, listsIt[who], 'listed');
      if (listed) assert.deepEqual(listed.arguments, { command: secret });

      assert.equal(detail.status, 200);
      assert.equal(JSON.stringify(detail.body).includes(secret), seesArguments[who], 'detail');
      assert.equal(detail.body.arguments_hidden, seesArguments[who] ? undefined : true);

      const cookie = await signInOverHttp(h.api.url, token);
      assert.ok(cookie);
      const page = await fetch(`${h.api.url}/approvals/${sessionId}/${toolCallId}`, {
        headers: { cookie },
      });
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.equal(html.includes(secret), seesArguments[who], 'web detail');
      assert.equal(html.includes('id="arguments-hidden"'), !seesArguments[who]);

      const [first] = await webStreamEvents(cookie, 1);
      assert.ok(first, 'the stream opened');
      assert.equal(first.event, 'pending');
      // The stream carries a version of the pending set (empty or not), never arguments.
      assert.equal(first.data === pendingVersion([]), !listsItInAll[who], 'stream');
    });
  }

  test('suspending a member ends their open approvals stream at once (a notice, not a poll)', async () => {
    const created = await addMember(`soon-${randomUUID().slice(0, 8)}`, 'approver');
    const cookie = await signInOverHttp(h.api.url, created.user_token);
    assert.ok(cookie);
    const started = Date.now();
    const events = await webStreamEvents(cookie, 2, async () => {
      await expectStatus(
        h.api.call('PATCH', `/v1/workspaces/${h.seed.workspace}/members/${created.user_id}`, {
          token: h.api.operatorKey,
          body: { status: 'suspended' },
        }),
        200,
      );
    });
    assert.deepEqual(
      events.map((e) => e.event),
      ['pending', 'signed-out'],
    );
    // The safety re-check is 30 s away: only the notice can have ended it this soon.
    assert.ok(Date.now() - started < 10_000);
  });
});
