import { proxyActivities } from '@temporalio/workflow';
import type { GateActivities } from '../activities/index.js';

// A receiver that is down is tried again with backoff for about a day, then given up on: the
// delivery stays on record with its attempts and last status.
const attempts = proxyActivities<GateActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '1 hour',
    maximumAttempts: 30,
  },
});

const recorder = proxyActivities<GateActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** Delivers one approval notice, signed, until the receiver accepts it or the retries run out. */
export async function webhookDelivery(deliveryId: string): Promise<'delivered' | 'failed'> {
  try {
    await attempts.deliverWebhook(deliveryId);
    return 'delivered';
  } catch {
    await recorder.giveUpWebhook(deliveryId);
    return 'failed';
  }
}
