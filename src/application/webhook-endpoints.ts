import { randomUUID } from 'node:crypto';
import type { CredentialSealer } from '../broker/sealing.js';
import type { ApprovalEvent } from '../domain/notify/approval-notice.js';
import { newWebhookSecret } from '../domain/notify/webhook-signature.js';
import type { Pool } from '../store/pool.js';
import {
  deleteWebhookEndpoint,
  insertWebhookEndpoint,
  listDeliveries,
  listWebhookEndpoints,
  type DeliveryRecord,
  type WebhookEndpoint,
} from '../store/webhooks.js';
import { workspaceExists } from '../store/workspaces.js';
import { NotFoundError } from '../domain/errors.js';

interface NewWebhookEndpoint {
  url: string;
  /** A secret the operator chose; without one the gate makes one and returns it once. */
  secret?: string | undefined;
  events: ApprovalEvent[];
  include_arguments: boolean;
}

async function knownWorkspace(pool: Pool, workspaceId: string): Promise<void> {
  if (!(await workspaceExists(pool, workspaceId))) {
    throw new NotFoundError(`workspace ${workspaceId}`);
  }
}

/** Registers an endpoint with its secret sealed under the endpoint's own id. */
export async function createWebhookEndpoint(
  deps: { pool: Pool; sealer: CredentialSealer },
  workspaceId: string,
  request: NewWebhookEndpoint,
): Promise<{ endpoint: WebhookEndpoint; generatedSecret: string | null }> {
  await knownWorkspace(deps.pool, workspaceId);
  const id = randomUUID();
  const secret = request.secret ?? newWebhookSecret();
  const endpoint = await insertWebhookEndpoint(deps.pool, {
    id,
    workspace_id: workspaceId,
    url: request.url,
    events: request.events,
    include_arguments: request.include_arguments,
    sealed_secret: deps.sealer.seal(id, { type: 'webhook_secret', secret }),
  });
  return { endpoint, generatedSecret: request.secret === undefined ? secret : null };
}

export async function webhookEndpoints(pool: Pool, workspaceId: string) {
  await knownWorkspace(pool, workspaceId);
  return listWebhookEndpoints(pool, workspaceId);
}

export async function removeWebhookEndpoint(pool: Pool, workspaceId: string, id: string) {
  if (!(await deleteWebhookEndpoint(pool, workspaceId, id))) {
    throw new NotFoundError(`webhook ${id} of workspace ${workspaceId}`);
  }
}

/** An endpoint's latest deliveries: attempts and the last status each got. */
export async function webhookDeliveries(
  pool: Pool,
  workspaceId: string,
  endpointId: string,
  limit: number,
): Promise<DeliveryRecord[]> {
  const endpoints = await webhookEndpoints(pool, workspaceId);
  if (!endpoints.some((e) => e.id === endpointId)) {
    throw new NotFoundError(`webhook ${endpointId} of workspace ${workspaceId}`);
  }
  return listDeliveries(pool, workspaceId, endpointId, limit);
}
