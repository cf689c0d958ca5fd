import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { projectRoot } from '../../tools/devstack/stack-config.js';
import { useHarness } from '../support/harness.js';
import {
  createRun,
  expectStatus,
  toolCall,
  type CreatedRun,
  toolCallUntilAnswered,
} from '../support/seed.js';

const h = useHarness();
const otherDigest = `sha256:${'0'.repeat(64)}`;

const frozenDigest = (run: CreatedRun, name: string) =>
  run.tools.find((t) => t.name === name)?.digest as string;

describe('a runner reports the digest its sandbox serves (observed_digest)', () => {
  test('the frozen digest passes; another one is denied as capability drift, and the ledger shows it', async () => {
    const run = await createRun(h.api, h.seed);
    const read = { tool: 'Read', arguments: { file_path: 'a' } };
    const same = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'same', {
        ...read,
        observed_digest: frozenDigest(run, 'Read'),
      }),
      200,
    );
    assert.equal(same.decision, 'allow');
    const drifted = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'drifted', { ...read, observed_digest: otherDigest }),
      200,
    );
    assert.deepEqual([drifted.decision, drifted.source], ['deny', 'capability']);
    assert.match(drifted.reason, /drifted since the run froze it/);
    const withdrawn = await expectStatus(
      toolCallUntilAnswered(h.api, run, 'withdrawn', { ...read, observed_digest: null }),
      200,
    );
    assert.deepEqual([withdrawn.decision, withdrawn.source], ['deny', 'capability']);
    assert.match(withdrawn.reason, /no longer offered/);
    const page = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/events`, { token: run.session_token }),
      200,
    );
    const decision = page.events.find(
      (e: any) => e.type === 'tool.decision' && e.data.tool_call_id === 'drifted',
    );
    assert.deepEqual([decision.data.decision, decision.data.source], ['deny', 'capability']);
  });

  test('the report is part of the request: the same report re-attaches, another one is a conflict', async () => {
    const run = await createRun(h.api, h.seed);
    const unreported = { tool: 'Read', arguments: { file_path: 'a' } };
    const call = { ...unreported, observed_digest: otherDigest };
    const first = await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', call), 200);
    assert.deepEqual(await expectStatus(toolCallUntilAnswered(h.api, run, 'c1', call), 200), first);
    await expectStatus(toolCall(h.api, run, 'c1', unreported), 409);
  });

  test('a malformed digest is a 400 naming the field, and starts nothing', async () => {
    const run = await createRun(h.api, h.seed);
    for (const observed of ['sha256:xyz', 'md5:00', 42, '']) {
      const answer = await expectStatus(
        toolCall(h.api, run, 'bad', {
          tool: 'Read',
          arguments: { file_path: 'a' },
          observed_digest: observed,
        }),
        400,
      );
      assert.equal(answer.errors[0].path, 'body.observed_digest');
    }
    const { rows } = await h.db.query('select 1 from tool_calls where session_id = $1', [
      run.session_id,
    ]);
    assert.equal(rows.length, 0);
  });
});

describe('the runner reads its frozen tools by origin (GET /v1/sessions/{sid}/toolset)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gate-toolset-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('declared and photographed bundles come with their names, a photographed one with its command', async () => {
    const command = {
      cmd: path.join(projectRoot, 'node_modules/.bin/mcp-server-filesystem'),
      args: [dir],
    };
    const bundle = await expectStatus(
      h.api.call('POST', '/v1/capability-bundles', {
        token: h.api.operatorKey,
        body: { workspace: h.seed.workspace, name: 'fs', version: '1', command },
      }),
      201,
    );
    const run = await createRun(h.api, h.seed, {
      tools: { bundles: [h.seed.bundleId, bundle.id] },
    });
    const toolset = await expectStatus(
      h.api.call('GET', `/v1/sessions/${run.session_id}/toolset`, { token: run.session_token }),
      200,
    );
    assert.equal(toolset.run_id, run.run_id);
    assert.equal(toolset.toolset_digest, run.toolset_digest);
    const byName = new Map(toolset.origins.map((o: any) => [o.name, o]));
    const builtins: any = byName.get('builtins');
    const fs: any = byName.get('fs');
    assert.deepEqual(
      [builtins.kind, builtins.class, builtins.command],
      ['bundle', 'sandbox', undefined],
    );
    assert.deepEqual(fs.command, command);
    const read = fs.tools.find((t: any) => t.name === 'mcp__fs__read_text_file');
    assert.equal(read.mcp_name, 'read_text_file');
    assert.equal(read.digest, frozenDigest(run, 'mcp__fs__read_text_file'));
    assert.equal(read.annotations.readOnlyHint, true);
    assert.equal('binding' in read, false);
    assert.equal(
      toolset.origins.flatMap((o: any) => o.tools).length,
      run.tools.length,
      'every frozen tool, once',
    );
  });

  test('only the session runner reads it', async () => {
    const mine = await createRun(h.api, h.seed);
    const theirs = await createRun(h.api, h.seed);
    const path = `/v1/sessions/${theirs.session_id}/toolset`;
    await expectStatus(h.api.call('GET', path, { token: mine.session_token }), 404);
    await expectStatus(h.api.call('GET', path, { token: h.api.operatorKey }), 403);
    await expectStatus(h.api.call('GET', path), 401);
  });
});
