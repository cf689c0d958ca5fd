import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { exportHistories, replayHistories } from '../../src/cli/histories.js';
import { projectRoot } from '../../src/devstack/stack-config.js';

const recorded = path.join(projectRoot, 'test/fixtures/histories');

/** Keeps one history per shape (its sequence of event types): variety, not volume. */
function recordDistinctShapes(folder: string) {
  rmSync(recorded, { recursive: true, force: true });
  mkdirSync(recorded, { recursive: true });
  const shapes = new Set<string>();
  for (const file of readdirSync(folder).sort()) {
    const history = JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as {
      events: { eventType: string }[];
    };
    const shape = history.events.map((e) => e.eventType).join(',');
    if (shapes.has(shape)) continue;
    shapes.add(shape);
    cpSync(path.join(folder, file), path.join(recorded, file));
  }
}

test('recorded gate histories replay against the current workflow code without nondeterminism', async () => {
  assert.ok(existsSync(recorded) && readdirSync(recorded).length > 0, 'no recorded histories');
  const { replayed, failures } = await replayHistories(recorded);
  assert.deepEqual(failures, []);
  assert.equal(replayed, readdirSync(recorded).filter((f) => f.endsWith('.json')).length);
});

test("this run's own gate histories (allows, denials, approvals, expiries, brokered calls) export and replay", async () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'gate-histories-'));
  try {
    const written = await exportHistories(
      folder,
      "WorkflowType = 'gate' AND ExecutionStatus = 'Completed'",
      200,
    );
    assert.ok(written > 0, 'the test stack ran no gate workflows');
    const { replayed, failures } = await replayHistories(folder);
    assert.deepEqual(failures, []);
    assert.equal(replayed, written);
    // Run with GATE_RECORD_HISTORIES=1 after a deliberate workflow change to record new ones.
    if (process.env.GATE_RECORD_HISTORIES === '1') recordDistinctShapes(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
