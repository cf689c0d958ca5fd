/**
 * The workflow interceptors every gate worker loads: each workflow log line carries the request
 * id the API started the workflow with (its memo), each activity is scheduled with that id in a
 * header (for the activities' own log lines), and a workflow logs its start and its outcome.
 * Only ids and outcomes are logged, never arguments, results or reasons.
 */
import {
  defaultPayloadConverter,
  log,
  workflowInfo,
  type ActivityInput,
  type LocalActivityInput,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import { requestIdHeader } from '../domain/gate/vocabulary.js';

function requestId(): string | undefined {
  const value = workflowInfo().memo?.request_id;
  return typeof value === 'string' ? value : undefined;
}

function withRequestId<T extends ActivityInput | LocalActivityInput>(input: T): T {
  const id = requestId();
  if (id === undefined) return input;
  return {
    ...input,
    headers: { ...input.headers, [requestIdHeader]: defaultPayloadConverter.toPayload(id) },
  };
}

/** What a workflow's result may say in a log line: its status, decision and deny source. */
function outcomeOf(result: unknown): Record<string, unknown> {
  if (typeof result === 'string') return { outcome: result };
  if (result === null || typeof result !== 'object') return {};
  const { status, decision, source } = result as Record<string, unknown>;
  return { status, decision, source };
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        log.info('workflow started');
        const result = await next(input);
        log.info('workflow completed', outcomeOf(result));
        return result;
      },
    },
  ],
  outbound: [
    {
      scheduleActivity: (input, next) => next(withRequestId(input)),
      scheduleLocalActivity: (input, next) => next(withRequestId(input)),
      getLogAttributes(input, next) {
        const id = requestId();
        return next(id === undefined ? input : { ...input, request_id: id });
      },
    },
  ],
});
