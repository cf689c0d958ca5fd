import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  type Client,
} from '@temporalio/client';
import type { GateAnswer, GateRequest } from '../domain/gate/vocabulary.js';
import { asSessionId, asToolCallId, gateWorkflowId } from '../domain/gate/ids.js';
import { gateWorkflowType, toolCallUpdate } from '../workflows/messages.js';

export class GateStillEvaluatingError extends Error {
  override name = 'GateStillEvaluatingError';
}

/**
 * Runs the gate for one call with update-with-start: one workflow per (session, tool call),
 * update id = tool-call id, so a retry lands on the same workflow and the same update.
 * A closed gate is never started again (REJECT_DUPLICATE): the caller answers from the record.
 */
export async function askGate(
  temporal: Client,
  taskQueue: string,
  request: GateRequest,
  waitMs: number,
): Promise<GateAnswer | 'closed'> {
  const workflowId = gateWorkflowId(
    asSessionId(request.session_id),
    asToolCallId(request.tool_call_id),
  );
  const start = new WithStartWorkflowOperation(gateWorkflowType, {
    workflowId,
    taskQueue,
    args: [request],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new GateStillEvaluatingError('the gate is still evaluating this call; send it again'));
    }, waitMs);
  });
  try {
    return await Promise.race([
      temporal.workflow.executeUpdateWithStart(toolCallUpdate, {
        updateId: request.tool_call_id,
        startWorkflowOperation: start,
      }),
      timeout,
    ]);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'closed';
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
