import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { webhookDeliveryWorkflowId, webhookDeliveryWorkflowType } from '../workflows/messages.js';

/**
 * Starts the delivery workflow of each stored notice, on `taskQueue`. Idempotent: a delivery's
 * workflow id is its delivery id, and a started one is left alone.
 */
export async function startDeliveryWorkflows(
  client: Client,
  taskQueue: string,
  deliveryIds: readonly string[],
): Promise<void> {
  for (const id of deliveryIds) {
    try {
      await client.workflow.start(webhookDeliveryWorkflowType, {
        workflowId: webhookDeliveryWorkflowId(id),
        taskQueue,
        args: [id],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
}
