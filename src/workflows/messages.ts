/**
 * The gate workflow's messages, shared by the workflow and the clients that send them.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { GateAnswer, ToolCallState } from '../domain/gate/vocabulary.js';

/** Sent with update-with-start; its update id is the tool-call id. Answers once decided or paused. */
export const toolCallUpdate = defineUpdate<GateAnswer>('toolCall');

/** Wakes a workflow waiting on an approval. Carries nothing: the workflow re-reads the row. */
export const approvalDecidedSignal = defineSignal('approvalDecided');

export const stateQuery = defineQuery<ToolCallState>('state');

export const gateWorkflowType = 'gate';

export const webhookDeliveryWorkflowType = 'webhookDelivery';

/** One workflow per delivery: starting it twice starts nothing new. */
export function webhookDeliveryWorkflowId(deliveryId: string): string {
  return `webhook-delivery-${deliveryId}`;
}
