import type { SealedCredential } from '../broker/sealing.js';
import {
  approvalNotice,
  type ApprovalEvent,
  type ApprovalNotice,
  type NoticeSubject,
} from '../domain/notify/approval-notice.js';
import { one, type Queryable } from './pool.js';

export interface WebhookEndpoint {
  id: string;
  workspace_id: string;
  url: string;
  events: ApprovalEvent[];
  include_arguments: boolean;
  created_at: Date;
}

const endpointColumns = 'id, workspace_id, url, events, include_arguments, created_at';

export async function insertWebhookEndpoint(
  db: Queryable,
  endpoint: Omit<WebhookEndpoint, 'created_at'> & { sealed_secret: SealedCredential },
): Promise<WebhookEndpoint> {
  const { rows } = await db.query<WebhookEndpoint>(
    `insert into webhook_endpoints (id, workspace_id, url, sealed_secret, events, include_arguments)
     values ($1, $2, $3, $4, $5, $6) returning ${endpointColumns}`,
    [
      endpoint.id,
      endpoint.workspace_id,
      endpoint.url,
      endpoint.sealed_secret.toBytes(),
      endpoint.events,
      endpoint.include_arguments,
    ],
  );
  return one(rows);
}

export async function listWebhookEndpoints(
  db: Queryable,
  workspaceId: string,
): Promise<WebhookEndpoint[]> {
  const { rows } = await db.query<WebhookEndpoint>(
    `select ${endpointColumns} from webhook_endpoints
     where workspace_id = $1 and status = 'active' order by created_at, id`,
    [workspaceId],
  );
  return rows;
}

/** Stops notices to an endpoint; deliveries already under way still finish. */
export async function deleteWebhookEndpoint(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update webhook_endpoints set status = 'deleted'
     where workspace_id = $1 and id = $2 and status = 'active'`,
    [workspaceId, id],
  );
  return rowCount === 1;
}

/**
 * Writes one delivery of `event` per subscribed endpoint, in the caller's transaction (the one
 * that records the event), so a notice exists exactly when its event does. Written once.
 */
export async function enqueueApprovalNotices(
  tx: Queryable,
  event: ApprovalEvent,
  subject: NoticeSubject,
  approvalUrl: string | null = null,
): Promise<void> {
  const { rows } = await tx.query<{ id: string; include_arguments: boolean; now: Date }>(
    `select id, include_arguments, now() from webhook_endpoints
     where workspace_id = $1 and status = 'active' and $2 = any (events)`,
    [subject.workspace_id, event],
  );
  for (const endpoint of rows) {
    const notice = approvalNotice(event, subject, {
      includeArguments: endpoint.include_arguments,
      at: endpoint.now,
      approvalUrl,
    });
    await tx.query(
      `insert into webhook_deliveries (endpoint_id, event, session_id, tool_call_id, payload)
       values ($1, $2, $3, $4, $5) on conflict do nothing`,
      [endpoint.id, event, subject.session_id, subject.tool_call_id, JSON.stringify(notice)],
    );
  }
}

/** The deliveries of one call's event, to be started (again: starting is idempotent). */
export async function deliveryIdsFor(
  db: Queryable,
  sessionId: string,
  toolCallId: string,
  event: ApprovalEvent,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id from webhook_deliveries
     where session_id = $1 and tool_call_id = $2 and event = $3 order by id`,
    [sessionId, toolCallId, event],
  );
  return rows.map((r) => r.id);
}

interface DeliveryTarget {
  id: string;
  endpoint_id: string;
  url: string;
  sealed_secret: Buffer;
  payload: ApprovalNotice;
  status: 'pending' | 'delivered' | 'failed';
}

export async function findDeliveryTarget(
  db: Queryable,
  id: string,
): Promise<DeliveryTarget | undefined> {
  const { rows } = await db.query<DeliveryTarget>(
    `select d.id, d.endpoint_id, e.url, e.sealed_secret, d.payload, d.status
     from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
     where d.id = $1`,
    [id],
  );
  return rows[0];
}

/** One attempt's outcome: the HTTP status (null if none came) and whether it was accepted. */
export async function recordDeliveryAttempt(
  db: Queryable,
  id: string,
  attempt: { httpStatus: number | null; error: string | null; delivered: boolean },
): Promise<void> {
  await db.query(
    `update webhook_deliveries set attempts = attempts + 1, last_status = $2, last_error = $3,
       last_attempt_at = now(),
       status = case when $4 then 'delivered' else status end,
       delivered_at = case when $4 then now() else delivered_at end
     where id = $1 and status = 'pending'`,
    [id, attempt.httpStatus, attempt.error, attempt.delivered],
  );
}

/** The retries ran out: the delivery stays on record as failed. */
export async function markDeliveryFailed(db: Queryable, id: string): Promise<void> {
  await db.query(
    `update webhook_deliveries set status = 'failed' where id = $1 and status = 'pending'`,
    [id],
  );
}

export interface DeliveryRecord {
  id: string;
  endpoint_id: string;
  event: ApprovalEvent;
  session_id: string;
  tool_call_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
}

/** An endpoint's deliveries, newest first, for an operator looking into one. */
export async function listDeliveries(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
  limit: number,
): Promise<DeliveryRecord[]> {
  const { rows } = await db.query<DeliveryRecord>(
    `select d.id, d.endpoint_id, d.event, d.session_id, d.tool_call_id, d.status, d.attempts,
       d.last_status, d.last_error, d.last_attempt_at, d.delivered_at
     from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
     where e.workspace_id = $1 and d.endpoint_id = $2
     order by d.created_at desc, d.id limit $3`,
    [workspaceId, endpointId, limit],
  );
  return rows;
}
