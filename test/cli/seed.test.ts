import assert from 'node:assert/strict';
import { test } from 'vitest';
import { seed } from '../../tools/seed.js';
import { startTestApi } from '../support/api.js';
import { expectStatus, toolCallUntilAnswered } from '../support/seed.js';

test('npm run seed makes a workspace whose built-in tools are gated as the policy says', async () => {
  const api = await startTestApi();
  try {
    const demo = await seed(api.url, api.operatorKey);
    const run = {
      session_id: demo.run.session_id,
      session_token: demo.run.session_token,
    };
    const read = await expectStatus(
      toolCallUntilAnswered(api, run, 'r1', {
        tool: 'Read',
        arguments: { file_path: 'README.md' },
      }),
      200,
    );
    assert.equal(read.decision, 'allow');
    const fetch = await expectStatus(
      toolCallUntilAnswered(api, run, 'w1', {
        tool: 'WebFetch',
        arguments: { url: 'https://example.com', prompt: 'x' },
      }),
      202,
    );
    assert.equal(fetch.status, 'pending_approval');
    const bad = await expectStatus(
      toolCallUntilAnswered(api, run, 'b1', { tool: 'Bash', arguments: {} }),
      200,
    );
    assert.equal(bad.source, 'schema');
    await expectStatus(
      api.call('POST', `/v1/approvals/${run.session_id}/w1/decision`, {
        token: demo.approver.user_token,
        body: { decision: 'deny' },
      }),
      200,
    );
  } finally {
    await api.close();
  }
});
