/**
 * The gate workflow run in this test process: the real workflow code, bundled once, on the test
 * stack's Temporal server, with fake activities on a task queue of its own (so the shared worker
 * never takes its tasks). Each call gets a script: what each activity answers for it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { GateActivities } from '../../src/activities/index.js';
import { decideActivity, stageActivities, stagesInOrder } from '../../src/activities/stages.js';
import type { ApprovalState } from '../../src/activities/approval.js';
import { asRunId, asSessionId, asToolCallId, gateWorkflowId } from '../../src/domain/gate/ids.js';
import type {
  DecidedAnswer,
  GateDecision,
  GateInput,
  GateRequest,
  GateSettings,
  PolicyOutcome,
  StageOutcome,
} from '../../src/domain/gate/vocabulary.js';
import { GateWorkflowClient } from '../../src/temporal/gate-workflow-client.js';
import { gateWorkflowType } from '../../src/workflows/messages.js';
import { testConfig } from './env.js';
import { gateWorkflowBundle } from './workflow-bundle.js';

/**
 * `decide` is not scripted: it runs the scripted stages and recorder, each recorded, as the real
 * one does.
 */
type Activities = Omit<GateActivities, 'decide'>;
type ActivityName = keyof Activities;

/** What one call's activities do; anything not scripted passes, allows, or records as given. */
export type Script = {
  [K in ActivityName]?: (
    ...args: Parameters<Activities[K]>
  ) => Awaited<ReturnType<Activities[K]>> | Promise<Awaited<ReturnType<Activities[K]>>>;
};

/** One activity invocation as the fakes saw it. */
export interface Invocation {
  activity: ActivityName;
  args: unknown[];
  at: number;
}

const pass: StageOutcome = { outcome: 'pass' };
export const allowByRule: PolicyOutcome = {
  outcome: 'verdict',
  verdict: 'allow',
  original_verdict: 'allow',
  rule_id: 'reads',
  policy_id: 'policy-1',
  policy_version: 1,
  approval: { timeout_s: 600, on_timeout: 'deny' },
};

/** requestApproval answering a pending approval that expires `ms` from now. */
export function pendingFor(ms: number): NonNullable<Script['requestApproval']> {
  return (request: GateRequest) => ({
    status: 'pending_approval',
    approval: {
      url: `http://gate.test/approvals/${request.session_id}/${request.tool_call_id}`,
      expires_at: new Date(Date.now() + ms).toISOString(),
    },
  });
}

const defaults: Required<Script> = {
  budget: () => pass,
  capability: () => pass,
  schema: () => pass,
  trustTier: () => pass,
  policy: () => allowByRule,
  recordDecision: (_request: GateRequest, decision: GateDecision) => decision.answer,
  requestApproval: pendingFor(600_000),
  checkApproval: (): ApprovalState => ({
    status: 'pending',
    expires_at: new Date(Date.now() + 600_000).toISOString(),
  }),
  expireApproval: (): ApprovalState => ({
    status: 'decided',
    answer: { status: 'decided', decision: 'deny', source: 'approval', reason: 'expired' },
  }),
  broker: (_request: GateRequest, answer: DecidedAnswer) => answer,
  recordBrokerFailure: (_request: GateRequest, answer: DecidedAnswer) => answer,
  deliverWebhook: () => undefined,
  giveUpWebhook: () => undefined,
};

/** A scripted call: its request, and what its activities were asked. */
export interface ScriptedCall {
  request: GateRequest;
  /** The workflow's input: the request and its settings. */
  input: GateInput;
  workflowId: string;
  invocations: Invocation[];
  /** The activities called, in order. */
  calls(): ActivityName[];
  /** The arguments of each call of one activity. */
  argsOf<K extends ActivityName>(activity: K): Parameters<Activities[K]>[];
  /** The arguments of the one call of an activity (fails unless it was called exactly once). */
  onlyArgs<K extends ActivityName>(activity: K): Parameters<Activities[K]>;
}

export interface InProcessGate {
  env: TestWorkflowEnvironment;
  /** The API's own Temporal client code, pointed at this file's task queue. */
  client: GateWorkflowClient;
  /** A new call with its own ids, scripted; `request` overrides its fields and its settings. */
  call(script?: Script, request?: Partial<GateRequest & GateSettings>): ScriptedCall;
  /**
   * Starts the call's workflow with the flat input of before the call and its settings were
   * split, as a call in flight across the upgrade was started; its answer is then asked as usual.
   */
  startFlat(call: ScriptedCall, stageActivities: 'local' | 'remote'): Promise<unknown>;
}

/** Registers the hooks that start and stop this file's worker; read the fields inside tests. */
export function useInProcessGate(): InProcessGate {
  const taskQueue = `gate-workflow-${randomUUID()}`;
  const scripts = new Map<string, { script: Script; invocations: Invocation[] }>();
  const gate = {} as InProcessGate;
  let worker: Worker;
  let running: Promise<void>;

  const entry = (toolCallId: string) => {
    const found = scripts.get(toolCallId);
    if (!found) throw new Error(`no script for tool call ${toolCallId}`);
    return found;
  };
  const toolCallIdOf = (activity: ActivityName, args: unknown[]): string =>
    ['checkApproval', 'expireApproval'].includes(activity)
      ? (args[1] as string)
      : (args[0] as GateRequest).tool_call_id;

  const scripted = Object.fromEntries(
    (Object.keys(defaults) as ActivityName[]).map((activity) => [
      activity,
      async (...args: unknown[]) => {
        const { script, invocations } = entry(toolCallIdOf(activity, args));
        invocations.push({ activity, args, at: Date.now() });
        const run = (script[activity] ?? defaults[activity]) as (...a: unknown[]) => unknown;
        return await run(...args);
      },
    ]),
  ) as unknown as Activities;
  const stages = stagesInOrder(scripted);
  const activities = {
    ...scripted,
    // The stages as their own activities fail as the production ones do.
    ...stageActivities(scripted),
    // Nothing is recorded but through the script: a retried attempt finds no decision.
    decide: decideActivity(stages, scripted.recordDecision, () => Promise.resolve(undefined)),
  };

  beforeAll(async () => {
    // Activities fail here on purpose: only the worker's errors belong in the test report.
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // a runtime is still up in this process, from a file that ran before in it
    }
    const config = testConfig();
    gate.env = await TestWorkflowEnvironment.createFromExistingServer({
      address: config.temporal.address,
      namespace: config.temporal.namespace,
    });
    worker = await Worker.create({
      connection: gate.env.nativeConnection,
      namespace: config.temporal.namespace,
      taskQueue,
      workflowBundle: await gateWorkflowBundle(),
      activities,
    });
    running = worker.run();
    gate.client = new GateWorkflowClient(gate.env.client, taskQueue);
  });
  afterAll(async () => {
    worker.shutdown();
    await running;
    await gate.env.teardown();
  });

  gate.call = (script = {}, overrides = {}) => {
    const argsOf = <K extends ActivityName>(activity: K) =>
      invocations
        .filter((i) => i.activity === activity)
        .map((i) => i.args as Parameters<Activities[K]>);
    const {
      approval_recheck_s = 60,
      // A test that sets the re-check without its longest wait means that period, unchanged.
      approval_recheck_max_s = approval_recheck_s,
      unavailable_window_s = 30,
      ...callOverrides
    } = overrides;
    const request: GateRequest = {
      run_id: asRunId(randomUUID()),
      session_id: asSessionId(`s-${randomUUID()}`),
      tool_call_id: asToolCallId(`c-${randomUUID()}`),
      tool: 'Read',
      arguments: { file_path: 'README.md' },
      execute: false,
      ...callOverrides,
    };
    const settings = { approval_recheck_s, approval_recheck_max_s, unavailable_window_s };
    const invocations: Invocation[] = [];
    scripts.set(request.tool_call_id, { script, invocations });
    return {
      request,
      input: { call: request, settings },
      workflowId: gateWorkflowId(request.session_id, request.tool_call_id),
      invocations,
      calls: () => invocations.map((i) => i.activity),
      argsOf,
      onlyArgs: (activity) => {
        const [only, ...more] = argsOf(activity);
        if (!only || more.length > 0)
          throw new Error(`${activity} ran ${more.length + (only ? 1 : 0)} times`);
        return only;
      },
    };
  };
  gate.startFlat = (call, stageActivities) =>
    gate.env.client.workflow.start(gateWorkflowType, {
      workflowId: call.workflowId,
      taskQueue,
      args: [{ ...call.request, ...call.input.settings, stage_activities: stageActivities }],
    });
  return gate;
}
