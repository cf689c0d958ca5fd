import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'vitest';
import {
  newWebhookSecret,
  signWebhook,
  toleranceS,
  verifyWebhook,
} from '../../../src/domain/notify/webhook-signature.js';
import { approvalNotice, type NoticeSubject } from '../../../src/domain/notify/approval-notice.js';

const secret = newWebhookSecret();
const body = '{"type":"approval.requested"}';
const now = 1_764_500_000;

describe('webhook signatures (Standard Webhooks)', () => {
  test('the signature is v1, base64 HMAC-SHA256 of id.timestamp.body under the decoded secret', () => {
    const headers = signWebhook(secret, 'msg_1', now, body);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key).update(`msg_1.${now}.${body}`).digest('base64');
    assert.deepEqual(headers, {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(now),
      'webhook-signature': `v1,${mac}`,
    });
  });

  test('a receiver verifies the body, id and time; a wrong secret, body, id or stale time fails', () => {
    const headers = signWebhook(secret, 'msg_1', now, body);
    assert.equal(verifyWebhook(secret, headers, body, now), true);
    assert.equal(verifyWebhook(newWebhookSecret(), headers, body, now), false);
    assert.equal(verifyWebhook(secret, headers, `${body} `, now), false);
    assert.equal(verifyWebhook(secret, { ...headers, 'webhook-id': 'msg_2' }, body, now), false);
    assert.equal(verifyWebhook(secret, headers, body, now + toleranceS + 1), false);
    assert.equal(
      verifyWebhook(secret, { ...headers, 'webhook-signature': undefined }, body, now),
      false,
    );
  });

  test('any one of several space-separated signatures may match (a secret being rotated)', () => {
    const headers = signWebhook(secret, 'msg_1', now, body);
    const other = signWebhook(newWebhookSecret(), 'msg_1', now, body)['webhook-signature'];
    const both = { ...headers, 'webhook-signature': `${other} ${headers['webhook-signature']}` };
    assert.equal(verifyWebhook(secret, both, body, now), true);
  });

  test('a secret that is not whsec_ and base64 is refused', () => {
    assert.throws(() => signWebhook('hunter2', 'msg_1', now, body), TypeError);
    assert.match(newWebhookSecret(), /^whsec_[A-Za-z0-9+/]{43}=$/);
  });
});

describe('approval notices', () => {
  const subject: NoticeSubject = {
    workspace_id: 'ws',
    session_id: 's1',
    tool_call_id: 'c1',
    run_id: 'r1',
    tool: 'Bash',
    rule_id: 'asks',
    arguments: { command: 'make deploy' },
    expires_at: new Date('2026-01-01T00:10:00Z'),
    status: 'approved',
    decision: 'allow',
    decided_by: 'u1',
  };
  const at = new Date('2026-01-01T00:00:00Z');

  test('a notice holds no arguments unless the endpoint opted in', () => {
    for (const event of ['approval.requested', 'approval.decided'] as const) {
      const plain = approvalNotice(event, subject, { includeArguments: false, at });
      assert.ok(!('arguments' in plain.data));
      assert.ok(!JSON.stringify(plain).includes('make deploy'));
      const opted = approvalNotice(event, subject, { includeArguments: true, at });
      assert.deepEqual(opted.data.arguments, subject.arguments);
    }
  });

  test('requested says until when and where to decide; decided says how it ended and by whom', () => {
    const requested = approvalNotice('approval.requested', subject, {
      includeArguments: false,
      at,
      approvalUrl: 'https://gate/approvals/s1/c1',
    });
    assert.equal(requested.type, 'approval.requested');
    assert.equal(requested.timestamp, at.toISOString());
    assert.equal(requested.data.expires_at, '2026-01-01T00:10:00.000Z');
    assert.equal(requested.data.approval_url, 'https://gate/approvals/s1/c1');
    const decided = approvalNotice('approval.decided', subject, { includeArguments: false, at });
    assert.deepEqual(
      [decided.data.outcome, decided.data.decision, decided.data.decided_by],
      ['approved', 'allow', 'u1'],
    );
  });
});
