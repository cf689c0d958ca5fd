import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'vitest';
import proto from '@temporalio/proto';

const { temporal } = proto;
import { exportHistories, replayHistories } from '../../tools/histories.js';
import { projectRoot } from '../../tools/devstack/stack-config.js';
import { loadConfig } from '../../src/config.js';
import { EncryptionCodec } from '../../src/temporal/payload-codec.js';
import { useHarness } from '../support/harness.js';
import { gateWorkflowBundle } from '../support/workflow-bundle.js';
import { createRun, defaultPolicy, expectStatus, toolCallUntilAnswered } from '../support/seed.js';

const recorded = path.join(projectRoot, 'test/fixtures/histories');

/** What a marker names: the local activity it records, or the patch. */
function markerSubject(event: proto.temporal.api.history.v1.IHistoryEvent): string | undefined {
  const details = event.markerRecordedEventAttributes?.details ?? {};
  for (const key of ['data', 'patch_data']) {
    const data = details[key]?.payloads?.[0]?.data;
    if (!data) continue;
    try {
      const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as {
        activity_type?: string;
        id?: string;
      };
      return parsed.activity_type ?? parsed.id;
    } catch {
      return undefined; // not JSON: the marker's name alone
    }
  }
  return undefined;
}

/** The shape of a history: its events' types, with the activity, signal, marker or update each names. */
function shapeOf(folder: string, file: string): string {
  const history = temporal.api.history.v1.History.decode(readFileSync(path.join(folder, file)));
  return history.events
    .map((e) =>
      [
        e.eventType,
        e.activityTaskScheduledEventAttributes?.activityType?.name,
        e.workflowExecutionSignaledEventAttributes?.signalName,
        e.markerRecordedEventAttributes?.markerName,
        markerSubject(e),
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name,
      ].join(':'),
    )
    .join(',');
}

/** Of a folder's histories, the first of each shape: variety, not volume. */
function distinctShapes(folder: string): string[] {
  const shapes = new Set<string>();
  return readdirSync(folder)
    .filter((file) => file.endsWith('.pb'))
    .sort()
    .filter((file) => {
      const shape = shapeOf(folder, file);
      if (shapes.has(shape)) return false;
      shapes.add(shape);
      return true;
    });
}

type Message = Record<string, unknown>;

/** Every payload in a decoded history message (an object with `metadata` and `data`). */
function payloadsIn(value: unknown, found: Message[] = []): Message[] {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return found;
  const message = value as Message;
  if ('metadata' in message && 'data' in message) found.push(message);
  for (const child of Object.values(message)) payloadsIn(child, found);
  return found;
}

/**
 * Adds to the recorded histories one of each shape they do not hold yet (those there stay: an
 * older shape keeps replaying), its payloads opened with this run's key: a test stack's key is
 * new each run, and an opened payload replays with any key.
 */
async function recordNewShapes(folder: string) {
  const codec = new EncryptionCodec(loadConfig().payloadKeys);
  mkdirSync(recorded, { recursive: true });
  const known = new Set(distinctShapes(recorded).map((file) => shapeOf(recorded, file)));
  for (const file of distinctShapes(folder)) {
    if (known.has(shapeOf(folder, file))) continue;
    const history = temporal.api.history.v1.History.decode(readFileSync(path.join(folder, file)));
    for (const payload of payloadsIn(history)) {
      const [opened] = await codec.decode([payload]);
      Object.assign(payload, opened);
    }
    writeFileSync(
      path.join(recorded, file),
      temporal.api.history.v1.History.encode(history).finish(),
    );
  }
}

test('recorded gate histories replay against the current workflow code without nondeterminism', async () => {
  assert.ok(existsSync(recorded) && readdirSync(recorded).length > 0, 'no recorded histories');
  const { replayed, failures } = await replayHistories(recorded, await gateWorkflowBundle());
  assert.deepEqual(failures, []);
  assert.equal(replayed, readdirSync(recorded).filter((f) => f.endsWith('.pb')).length);
});

const h = useHarness({
  policy: {
    ...defaultPolicy,
    rules: [
      { id: 'reads', match: { effect: 'read' }, verdict: 'allow' },
      { id: 'bash-asks', match: { tool: 'Bash' }, verdict: 'require_approval' },
    ],
  },
  api: { approvalRecheckS: 1 },
});

test("this run's gate histories (with every other test file's when run by npm test) export and replay", async () => {
  // Some workflows of this file's own, so the test holds when run alone too.
  const run = await createRun(h.api, h.seed);
  await expectStatus(
    toolCallUntilAnswered(h.api, run, 'allowed', { tool: 'Read', arguments: { file_path: 'a' } }),
    200,
  );
  await expectStatus(
    toolCallUntilAnswered(h.api, run, 'asked', { tool: 'Bash', arguments: { command: 'ls' } }),
    202,
  );
  await expectStatus(
    h.api.call('POST', `/v1/approvals/${run.session_id}/asked/decision`, {
      token: h.seed.admin.token,
      body: { decision: 'approve' },
    }),
    200,
  );
  await expectStatus(
    h.api.call('GET', `/v1/sessions/${run.session_id}/tool-calls/asked?wait=20`, {
      token: run.session_token,
    }),
    200,
  );
  await new Promise((r) => setTimeout(r, 500)); // visibility catches up with the closed workflow
  const folder = mkdtempSync(path.join(tmpdir(), 'gate-histories-'));
  try {
    const written = await exportHistories(
      folder,
      "WorkflowType = 'gate' AND ExecutionStatus = 'Completed'",
      200,
    );
    assert.ok(written >= 2, `only ${written} closed gate workflows`);
    // Run with GATE_RECORD_HISTORIES=1 after a deliberate workflow change to record its shapes.
    if (process.env.GATE_RECORD_HISTORIES === '1') await recordNewShapes(folder);
    // Histories of one shape asked the same of the code: one of each is replayed.
    const distinct = new Set(distinctShapes(folder));
    for (const file of readdirSync(folder)) {
      if (!distinct.has(file)) rmSync(path.join(folder, file));
    }
    const { replayed, failures } = await replayHistories(folder, await gateWorkflowBundle());
    assert.deepEqual(failures, []);
    assert.equal(replayed, distinct.size);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
