/**
 * The calls the gate recorded, read back from gate workflow histories: the request from the
 * start event, the answer from the completion, and whether the call waited on a person (the
 * `pending` decision the workflow published). From Temporal, found by the search attributes in a
 * window, or from the `.pb` files `npm run histories export` writes; payloads opened with the
 * gate's codec.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ServiceError, type Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { UnavailableError } from '../domain/errors.js';
import type { RecordedCall } from '../domain/policy/simulation.js';
import type { FlatGateInput, GateAnswer, GateInput } from '../domain/gate/vocabulary.js';
import { runnableInput } from '../workflows/gate-input.js';
import { gateWorkflowType } from '../workflows/messages.js';
import { decisionAttribute, sessionIdAttribute } from '../workflows/search-attributes.js';
import type { EncryptionCodec } from './payload-codec.js';

const { History } = proto.temporal.api.history.v1;
type History = proto.temporal.api.history.v1.IHistory;
type ProtoPayload = proto.temporal.api.common.v1.IPayload;

/** Where to look for recorded calls: a window of start times, and optionally some sessions. */
export interface RecordedWindow {
  since: Date;
  until: Date;
  sessions?: readonly string[];
}

async function opened<T>(codec: EncryptionCodec, payload: ProtoPayload | undefined) {
  if (!payload) return undefined;
  const [plain] = await codec.decode([payload]);
  return plain && defaultPayloadConverter.fromPayload<T>(plain);
}

function plainValue(payload: ProtoPayload | undefined): unknown {
  return payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
}

/**
 * The call a closed gate workflow's history records; undefined for any other history, or one
 * whose call was never decided (terminated, still running when exported).
 */
export async function recordedCallOf(
  history: History,
  codec: EncryptionCodec,
): Promise<RecordedCall | undefined> {
  const events = history.events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  if (started?.workflowType?.name !== gateWorkflowType) return undefined;
  let completed: ProtoPayload | undefined;
  // Search attributes are not encrypted: the `pending` the workflow published reads as it is.
  let asked = false;
  for (const event of events) {
    const result = event.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
    if (result) completed = result;
    const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes;
    if (plainValue(fields?.indexedFields?.[decisionAttribute.name] ?? undefined) === 'pending') {
      asked = true;
    }
  }
  const input = await opened<GateInput | FlatGateInput>(codec, started.input?.payloads?.[0]);
  const answer = await opened<GateAnswer>(codec, completed);
  if (!input || answer?.status !== 'decided') return undefined;
  // Recorded before or after the call and its settings were split: either shape is read.
  const request = runnableInput(input).call;
  return {
    session_id: request.session_id,
    tool_call_id: request.tool_call_id,
    run_id: request.run_id,
    tool: request.tool,
    arguments: request.arguments,
    recorded: {
      decision: answer.decision,
      ...(answer.source && { source: answer.source }),
      ...(answer.rule_id && { rule_id: answer.rule_id }),
      // Histories from before the decision was published: an approval's deny still says so.
      asked: asked || answer.source === 'approval',
    },
  };
}

/** Temporal's list filter of a window: closed gate workflows started within it. */
export function windowQuery(window: RecordedWindow): string {
  const quoted = (text: string) => `'${text.replace(/[\\']/g, '')}'`;
  const clauses = [
    `WorkflowType = ${quoted(gateWorkflowType)}`,
    `ExecutionStatus = 'Completed'`,
    `StartTime >= ${quoted(window.since.toISOString())}`,
    `StartTime < ${quoted(window.until.toISOString())}`,
  ];
  if (window.sessions?.length) {
    clauses.push(`${sessionIdAttribute.name} IN (${window.sessions.map(quoted).join(', ')})`);
  }
  return clauses.join(' AND ');
}

/** How many histories are fetched at once: enough to hide the round trips, no flood. */
const fetchesAtOnce = 16;

/**
 * The recorded calls of the window, from Temporal, fetched a few at a time. Stops when `signal`
 * aborts (the caller's deadline or limit).
 */
export async function* recordedCallsFromTemporal(
  client: Client,
  codec: EncryptionCodec,
  window: RecordedWindow,
  signal: AbortSignal,
): AsyncGenerator<RecordedCall> {
  try {
    yield* listedCalls(client, codec, window, signal);
  } catch (err) {
    if (err instanceof ServiceError) {
      throw new UnavailableError(
        `the recorded calls could not be read from Temporal: ${err.message}`,
      );
    }
    throw err;
  }
}

/** Sessions named in one visibility query at most: a long list is read a part at a time. */
const sessionsPerQuery = 100;

/** The window's queries: one, or one per part of its sessions. */
export function windowQueries(window: RecordedWindow): string[] {
  const { sessions } = window;
  if (!sessions || sessions.length <= sessionsPerQuery) return [windowQuery(window)];
  const queries: string[] = [];
  for (let at = 0; at < sessions.length; at += sessionsPerQuery)
    queries.push(windowQuery({ ...window, sessions: sessions.slice(at, at + sessionsPerQuery) }));
  return queries;
}

async function* listedCalls(
  client: Client,
  codec: EncryptionCodec,
  window: RecordedWindow,
  signal: AbortSignal,
): AsyncGenerator<RecordedCall> {
  for (const query of windowQueries(window)) {
    for await (const { history } of listedHistories(client, query, signal)) {
      const call = await recordedCallOf(history, codec);
      if (call) yield call;
    }
  }
}

/**
 * The histories of the workflows a visibility query lists, in its order, fetched a few at a
 * time. Stops when `signal` aborts.
 */
export async function* listedHistories(
  client: Client,
  query: string,
  signal?: AbortSignal,
): AsyncGenerator<{ workflowId: string; runId: string; history: History }> {
  const batch: Promise<{ workflowId: string; runId: string; history: History }>[] = [];
  for await (const { workflowId, runId } of client.workflow.list({ query, pageSize: 500 })) {
    if (signal?.aborted) return;
    batch.push(
      client.workflow
        .getHandle(workflowId, runId)
        .fetchHistory()
        .then((history) => ({ workflowId, runId, history })),
    );
    if (batch.length >= fetchesAtOnce) yield* await Promise.all(batch.splice(0));
  }
  yield* await Promise.all(batch);
}

/** The recorded calls in the `.pb` files of a folder `npm run histories export` wrote. */
export async function* recordedCallsFromFiles(
  folder: string,
  codec: EncryptionCodec,
  window: RecordedWindow,
  signal: AbortSignal,
): AsyncGenerator<RecordedCall> {
  const files = (await readdir(folder)).filter((file) => file.endsWith('.pb')).sort();
  const sessions = window.sessions?.length ? new Set(window.sessions) : undefined;
  for (const file of files) {
    if (signal.aborted) return;
    const history = History.decode(await readFile(path.join(folder, file)));
    const at = startTimeOf(history);
    if (at === undefined || at < window.since || at >= window.until) continue;
    const call = await recordedCallOf(history, codec);
    if (call && (!sessions || sessions.has(call.session_id))) yield call;
  }
}

function startTimeOf(history: History): Date | undefined {
  const time = history.events?.[0]?.eventTime;
  if (!time) return undefined;
  return new Date(Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6));
}
