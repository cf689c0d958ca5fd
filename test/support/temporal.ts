import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import type { TemporalConfig } from '../../src/config.js';
import { asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import type { ManagedProcess } from '../../tools/devstack/child-process.js';
import { loadStackConfig, stackProfile } from '../../tools/devstack/stack-config.js';
import { startTemporalServer } from '../../tools/devstack/temporal-server.js';
import { temporalClient } from '../../src/temporal/connections.js';
import { testConfig } from './env.js';
import { freeLoopbackPort } from './server-everything.js';

/** A Temporal client of the test stack (or `temporal` over it) that opens encrypted payloads. */
export function testTemporalClient(temporal: Partial<TemporalConfig> = {}): Client {
  const config = testConfig();
  return temporalClient({ ...config.temporal, ...temporal }, config.payloadKeys);
}

/** Terminates a call's gate workflow, as an operator would (`temporal workflow terminate`). */
export async function terminateGate(
  client: Client,
  sessionId: string,
  toolCallId: string,
): Promise<void> {
  await client.workflow
    .getHandle(gateWorkflowId(asSessionId(sessionId), asToolCallId(toolCallId)))
    .terminate('an operator ends it');
}

/** The history as the server stores it, read with the Temporal CLI (no codec given to it). */
export async function storedHistory(temporal: TemporalConfig, workflowId: string): Promise<string> {
  const cli = process.env.GATE_TEST_TEMPORAL_BIN ?? 'temporal';
  const { stdout } = await promisify(execFile)(
    cli,
    [
      'workflow',
      'show',
      '--workflow-id',
      workflowId,
      '--address',
      temporal.address,
      '--namespace',
      temporal.namespace,
      '--output',
      'json',
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return stdout;
}

/** A gate workflow's history as stored, once the workflow has closed. */
export async function closedHistory(temporal: TemporalConfig, workflowId: string): Promise<string> {
  const client = testTemporalClient();
  try {
    await client.workflow.getHandle(workflowId).result();
  } finally {
    await client.connection.close();
  }
  return storedHistory(temporal, workflowId);
}

type Duration = { seconds?: number | { toNumber(): number } | null; nanos?: number | null };
const msOf = (duration: Duration | null | undefined): number => {
  const seconds = duration?.seconds ?? 0;
  const whole = typeof seconds === 'number' ? seconds : seconds.toNumber();
  return whole * 1000 + Math.round((duration?.nanos ?? 0) / 1e6);
};

/**
 * What a workflow's history says of its waits: the timers it started (their durations, in ms),
 * how many of them fired, and the signals it received, by name.
 */
export async function waitsOf(client: Client, workflowId: string) {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return {
    timersMs: events.flatMap((e) =>
      e.timerStartedEventAttributes ? [msOf(e.timerStartedEventAttributes.startToFireTimeout)] : [],
    ),
    fired: events.filter((e) => e.timerFiredEventAttributes).length,
    signals: events.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []),
  };
}

/** Every payload in a history rendered as JSON (objects with `data` and `metadata`). */
export function payloadsOf(value: unknown): { metadata: Record<string, string>; data: string }[] {
  if (Array.isArray(value)) return value.flatMap(payloadsOf);
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  if (typeof record.data === 'string' && typeof record.metadata === 'object') {
    return [record as { metadata: Record<string, string>; data: string }];
  }
  return Object.values(record).flatMap(payloadsOf);
}

/**
 * A Temporal dev server of a test's own, on free ports and a SQLite file of its own, kept across
 * a restart: a test may stop it and start it again without touching the stack's.
 */
export async function ownTemporalServer() {
  const folder = mkdtempSync(path.join(tmpdir(), 'gate-temporal-'));
  const base = stackProfile(loadStackConfig(), 'test');
  const profile = {
    ...base,
    temporal: {
      ...base.temporal,
      port: await freeLoopbackPort(),
      uiPort: await freeLoopbackPort(),
      sqliteFile: path.join(folder, 'temporal.sqlite'),
    },
  };
  const binary = process.env.GATE_TEST_TEMPORAL_BIN ?? '';
  const start = () => startTemporalServer(binary, profile, { quiet: true });
  let server: ManagedProcess = await start();
  return {
    address: `${profile.temporal.ip}:${profile.temporal.port}`,
    stop: (signal?: NodeJS.Signals, graceMs?: number) => server.stop(signal, graceMs),
    restart: async () => {
      server = await start();
    },
    close: async () => {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
