import { Context, ApplicationFailure } from '@temporalio/activity';
import type { CredentialSealer } from '../broker/sealing.js';
import type { ApprovalEvent } from '../domain/notify/approval-notice.js';
import { signWebhook } from '../domain/notify/webhook-signature.js';
import type { Pool } from '../store/pool.js';
import {
  deliveryIdsFor,
  findDeliveryTarget,
  markDeliveryFailed,
  recordDeliveryAttempt,
} from '../store/webhooks.js';
import { startDeliveryWorkflows } from '../temporal/webhook-deliveries.js';

/** How long one attempt may wait for the receiver; a slow receiver is retried like a failing one. */
const attemptTimeoutMs = 10_000;

/** Starts the delivery workflow of each notice of one call's event, on the caller's task queue. */
export async function startApprovalDeliveries(
  pool: Pool,
  sessionId: string,
  toolCallId: string,
  event: ApprovalEvent,
): Promise<void> {
  const ids = await deliveryIdsFor(pool, sessionId, toolCallId, event);
  if (ids.length === 0) return;
  const { client, info } = Context.current();
  await startDeliveryWorkflows(client, info.taskQueue, ids);
}

async function post(url: string, headers: Record<string, string>, body: string) {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(attemptTimeoutMs),
    });
    await response.body?.cancel();
    return { httpStatus: response.status, error: null };
  } catch (err) {
    return { httpStatus: null, error: err instanceof Error ? err.message : String(err) };
  }
}

export function webhookActivities(pool: Pool, sealer: CredentialSealer) {
  /**
   * One attempt: signs the stored notice with a fresh timestamp and posts it. A 2xx answer
   * delivers it; anything else is recorded and thrown, for the workflow's retry to try again.
   */
  async function deliverWebhook(deliveryId: string): Promise<void> {
    const target = await findDeliveryTarget(pool, deliveryId);
    if (target?.status !== 'pending') return;
    const { secret } = sealer.unsealWebhookSecret(
      target.endpoint_id,
      sealer.fromStored(target.sealed_secret),
    );
    const body = JSON.stringify(target.payload);
    const headers = signWebhook(secret, target.id, Math.floor(Date.now() / 1000), body);
    const attempt = await post(target.url, { ...headers }, body);
    const delivered =
      attempt.httpStatus !== null && attempt.httpStatus < 300 && attempt.httpStatus >= 200;
    await recordDeliveryAttempt(pool, deliveryId, { ...attempt, delivered });
    if (!delivered) {
      throw ApplicationFailure.retryable(
        attempt.error ?? `the endpoint answered ${attempt.httpStatus}`,
        'WebhookNotAccepted',
      );
    }
  }

  async function giveUpWebhook(deliveryId: string): Promise<void> {
    await markDeliveryFailed(pool, deliveryId);
  }

  return { deliverWebhook, giveUpWebhook };
}
