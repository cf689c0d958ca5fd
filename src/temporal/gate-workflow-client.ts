/**
 * The API's side of Temporal: starting (or re-attaching to) a call's gate workflow and waking a
 * paused one. The only module outside the worker that talks to Temporal.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Client,
  isGrpcServiceError,
  ServiceError,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type WorkflowExecutionStatusName,
} from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time.js';
import type { GateEnding } from '../domain/gate/decisions.js';
import type { GateConfig } from '../config.js';
import { gateWorkflowId, type SessionId, type ToolCallId } from '../domain/gate/ids.js';
import type {
  FlatGateInput,
  GateAnswer,
  GateInput,
  GateRequest,
} from '../domain/gate/vocabulary.js';
import { approvalDecidedSignal, gateWorkflowType, toolCallUpdate } from '../workflows/messages.js';
import { sessionIdAttribute, toolAttribute } from '../workflows/search-attributes.js';
import { temporalClient } from './connections.js';
import type { HostedWorker } from './hosted-worker.js';
import { startDeliveryWorkflows } from './webhook-deliveries.js';
import { GateStillEvaluatingError, isGateError } from '../domain/errors.js';

/** gRPC's FAILED_PRECONDITION: Temporal cannot carry the request out in the workflow's state. */
const failedPrecondition = 9;
/** gRPC's codes for a server that may take the same request a moment later. */
const transientGrpcCodes = new Set([
  4, // DEADLINE_EXCEEDED
  8, // RESOURCE_EXHAUSTED
  10, // ABORTED
  14, // UNAVAILABLE
]);
/** A gRPC status code as the number it is on the wire. */
const grpcCode = (err: { code: number }): number => err.code;
/** What wakes a paused call's workflow to re-read its approval. */
export type Waker = Pick<GateWorkflowClient, 'wake'>;

/** How long one wake-up signal may take before it is given up. */
const wakeDeadlineMs = 5_000;
/**
 * The pauses before a failed wake-up signal is sent again (a minute in all): Temporal away for a
 * moment must not leave a decided call waiting for its workflow's re-check, minutes later.
 */
const wakeRetryMs = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000];
/** Under the readiness check's own bound of 2 s. */
const pingDeadlineMs = 1_500;
/** How long asking Temporal whether a gate still runs may take; past it, nobody knows. */
const describeDeadlineMs = 1_500;
/**
 * How long one answer to "has this gate closed?" serves every reader of the call: a thousand
 * runners' waits on one call ask Temporal once, not a thousand times.
 */
const endingMemoMs = 1_000;

/** Temporal's closed statuses, as the gate's endings. */
const endings: Partial<Record<WorkflowExecutionStatusName, GateEnding>> = {
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CANCELLED: 'canceled',
  COMPLETED: 'ended',
  FAILED: 'ended',
  CONTINUED_AS_NEW: 'ended',
};
/** How long one answer to "does Temporal answer?" serves every call waiting. */
const reachReuseMs = 1_000;

/** What the Temporal UI shows of a call at a glance: never its arguments. */
function workflowSummary(request: GateRequest) {
  return {
    staticSummary: `${request.tool} in session ${request.session_id}`,
    staticDetails: [
      `**Tool** ${request.tool}`,
      `**Session** ${request.session_id}`,
      `**Tool call** ${request.tool_call_id}`,
      `**Run** ${request.run_id}`,
      request.execute ? 'Brokered: the gate carries the call out once allowed.' : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
  };
}

export class GateWorkflowClient {
  /** Wake-up signals sent after a response, awaited before closing. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Answers to `ending`, shared for a moment by every reader of one call. */
  private readonly endingsAsked = new Map<string, Promise<GateEnding | undefined>>();
  private readonly closing = new AbortController();
  private reach: { at: number; answer: Promise<void> } | undefined;

  constructor(
    readonly client: Client,
    private readonly taskQueue: string,
    private readonly hosted?: HostedWorker,
    /** How long a start may take: a Temporal that does not answer is a 503 within this. */
    private readonly callTimeoutMs = 5_000,
  ) {
    // Every wake-up waiting to try again listens here: while Temporal is away that is one per
    // approval decided meanwhile, each gone after its last try, so no count is a leak.
    setMaxListeners(0, this.closing.signal);
  }

  /**
   * A client on a lazy connection: the API starts, and answers 503, while Temporal is down. With
   * a hosted worker, calls start eagerly on it whenever it runs.
   */
  static lazy(
    config: Pick<GateConfig, 'temporal' | 'payloadKeys' | 'temporalCallTimeoutMs'>,
    hosted?: HostedWorker,
  ): GateWorkflowClient {
    hosted?.open();
    return new GateWorkflowClient(
      temporalClient(config.temporal, config.payloadKeys, { quickToGiveUp: true }),
      config.temporal.taskQueue,
      hosted,
      config.temporalCallTimeoutMs,
    );
  }

  /** Whether `start` can hand the first task to this process's own worker now. */
  get startsEagerly(): boolean {
    return this.hosted?.client !== undefined;
  }

  private startOptions({ call: request, settings }: GateInput, requestId: string | undefined) {
    return {
      // The API request that started the workflow, for its log lines and its activities'.
      ...(requestId !== undefined && { memo: { request_id: requestId } }),
      workflowId: gateWorkflowId(request.session_id, request.tool_call_id),
      taskQueue: this.taskQueue,
      // Both shapes, for one release: a worker of before, still polling the queue while the
      // processes roll (every API hosts one), reads the flat fields and runs the call as it
      // always did; a worker of now reads `call` and `settings`. The next release sends only the
      // split shape.
      args: [{ ...request, ...settings, stage_activities: 'local', call: request, settings }] as [
        GateInput & FlatGateInput,
      ],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // What the Temporal UI filters by, set by the start: no event of the workflow's own.
      typedSearchAttributes: [
        { key: sessionIdAttribute, value: request.session_id as string },
        { key: toolAttribute, value: request.tool },
      ] satisfies SearchAttributePair[],
      ...workflowSummary(request),
    } as const;
  }

  /**
   * Starts the call's gate workflow eagerly on the hosted worker, or re-attaches to the running
   * one (USE_EXISTING); the answer is then read from the state of record. `eager` says the first
   * task came back in the start's response, to this process's worker. A closed gate is never
   * started again (REJECT_DUPLICATE): the caller answers from the record.
   */
  async start(
    input: GateInput,
    waitMs: number,
    requestId?: string,
  ): Promise<'eager' | 'started' | 'closed'> {
    const client = this.hosted?.client ?? this.client;
    try {
      const deadline = Date.now() + Math.min(waitMs, this.callTimeoutMs);
      const handle = await client.connection.withDeadline(deadline, () =>
        client.workflow.start(gateWorkflowType, {
          ...this.startOptions(input, requestId),
          requestEagerStart: client !== this.client,
        }),
      );
      return handle.eagerlyStarted ? 'eager' : 'started';
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'closed';
      throw err;
    }
  }

  /**
   * Runs the gate for one call with update-with-start: one workflow per (session, tool call),
   * update id = tool-call id, so a retry lands on the same workflow and the same update.
   * A closed gate is never started again (REJECT_DUPLICATE): the caller answers from the record.
   * Once it answers, times out or `signal` aborts, its calls to Temporal stop.
   */
  async ask(
    input: GateInput,
    waitMs: number,
    requestId?: string,
    signal?: AbortSignal,
  ): Promise<GateAnswer | 'closed'> {
    const start = new WithStartWorkflowOperation(
      gateWorkflowType,
      this.startOptions(input, requestId),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new GateStillEvaluatingError());
      }, waitMs);
    });
    // The update's polls, left to themselves, go on until it is answered: stop them with the wait.
    const polls = new AbortController();
    const abandoned = () => {
      polls.abort();
    };
    signal?.addEventListener('abort', abandoned);
    try {
      return await Promise.race([
        this.client.connection.withAbortSignal(polls.signal, () =>
          this.client.workflow.executeUpdateWithStart(toolCallUpdate, {
            updateId: input.call.tool_call_id,
            startWorkflowOperation: start,
          }),
        ),
        timeout,
      ]);
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'closed';
      // Temporal gave up waiting for the update on its side: the same answer as our own wait.
      if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
        throw new GateStillEvaluatingError();
      // The update could not finish with its workflow (the workflow closed under it, or was not
      // found by the time its outcome was polled): a closed gate is answered from the record; one
      // Temporal does not say is closed is asked again by the runner.
      if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
        const ending = await this.ending(input.call.session_id, input.call.tool_call_id);
        if (ending) return 'closed';
        throw new GateStillEvaluatingError();
      }
      // Temporal could not run the update now: the workflow's task failed or timed out (a worker
      // too slow on a loaded machine, or a broken build) and is being tried again. The gate is
      // still evaluating, until the task has failed for longer than the call's window: then the
      // gate fails closed, as any stage past its window does.
      if (isGrpcServiceError(err) && grpcCode(err) === failedPrecondition) {
        if (await this.failedClosedWhenStuck(input)) return 'closed';
        throw new GateStillEvaluatingError();
      }
      if (isGrpcServiceError(err) && transientGrpcCodes.has(grpcCode(err))) {
        throw new ServiceError('Temporal could not take the update now', { cause: err });
      }
      // Anything else the client met (the gate's own refusals, a dependency away, or what nobody
      // foresaw): a gate Temporal says is closed is still answered from the record.
      if (isGateError(err) || err instanceof ServiceError) throw err;
      const ending = await this.ending(input.call.session_id, input.call.tool_call_id).catch(
        () => undefined,
      );
      if (ending) return 'closed';
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abandoned);
      polls.abort();
    }
  }

  /**
   * Ends a call's workflow whose task has failed on every attempt for longer than the call's
   * window (no stage could run at all), so that its call is denied, recorded once, instead of
   * answered "still evaluating" for as long as the task fails. True when it was ended.
   */
  private async failedClosedWhenStuck(input: GateInput): Promise<boolean> {
    const handle = this.client.workflow.getHandle(
      gateWorkflowId(input.call.session_id, input.call.tool_call_id),
    );
    const described = await handle.describe().catch(() => undefined);
    const task = described?.raw.pendingWorkflowTask;
    if (described?.status.name !== 'RUNNING' || !task?.originalScheduledTime) return false;
    const failingMs = Date.now() - tsToMs(task.originalScheduledTime);
    if ((task.attempt ?? 0) < 2 || failingMs <= input.settings.unavailable_window_s * 1000)
      return false;
    await handle.terminate(
      `its workflow task failed for ${Math.round(failingMs / 1000)} s, past the call's window; failing closed`,
    );
    return true;
  }

  /**
   * Wakes a call's workflow paused on its approval. Best effort, after commit, tried again for a
   * minute while Temporal does not answer: the row is the truth and the workflow re-checks it on
   * a timer anyway. A workflow that has ended needs no waking.
   */
  wake(sessionId: SessionId, toolCallId: ToolCallId): void {
    const handle = this.client.workflow.getHandle(gateWorkflowId(sessionId, toolCallId));
    const send = () =>
      this.client.connection.withDeadline(Date.now() + wakeDeadlineMs, () =>
        handle.signal(approvalDecidedSignal),
      );
    const signal = (async () => {
      for (const pause of [0, ...wakeRetryMs]) {
        if (pause > 0) await sleep(pause, undefined, { signal: this.closing.signal });
        try {
          await send();
          return;
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) return;
        }
      }
    })()
      .catch(() => undefined) // closed while waiting to try again
      .finally(() => this.inFlight.delete(signal));
    this.inFlight.add(signal);
  }

  /**
   * How the call's gate workflow closed, or undefined while it runs (or before it starts, or
   * when Temporal does not answer in time: nobody knows, so nothing is concluded).
   */
  ending(sessionId: SessionId, toolCallId: ToolCallId): Promise<GateEnding | undefined> {
    const id = gateWorkflowId(sessionId, toolCallId);
    const known = this.endingsAsked.get(id);
    if (known) return known;
    const { connection } = this.client;
    const asked = connection
      .withDeadline(Date.now() + describeDeadlineMs, () =>
        this.client.workflow.getHandle(id).describe(),
      )
      .then(({ status }) => endings[status.name])
      .catch(() => undefined);
    this.endingsAsked.set(id, asked);
    void asked.finally(() => {
      setTimeout(() => this.endingsAsked.delete(id), endingMemoMs).unref();
    });
    return asked;
  }

  /** Starts the delivery workflows of stored webhook notices (on the gate's task queue). */
  async startDeliveries(deliveryIds: readonly string[]): Promise<void> {
    await startDeliveryWorkflows(this.client, this.taskQueue, deliveryIds);
  }

  /**
   * Whether Temporal answers at all (for readiness). Bounded here, so no retry of it is still
   * pending when the API closes its connection.
   */
  async ping(deadlineMs = pingDeadlineMs): Promise<void> {
    const { connection } = this.client;
    await connection.withDeadline(Date.now() + deadlineMs, () =>
      connection.workflowService.getSystemInfo({}),
    );
  }

  /**
   * Whether Temporal answers, within a call's bound, for the calls waiting on their workflows:
   * one question a second for all of them, however many wait.
   */
  reachable(): Promise<void> {
    const now = Date.now();
    if (!this.reach || now - this.reach.at >= reachReuseMs) {
      const answer = this.ping(this.callTimeoutMs).catch((err: unknown) => {
        throw new ServiceError('Temporal did not answer', { cause: err as Error });
      });
      this.reach = { at: now, answer };
    }
    return this.reach.answer;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.inFlight]);
    await this.hosted?.close();
    await this.client.connection.close();
  }
}
