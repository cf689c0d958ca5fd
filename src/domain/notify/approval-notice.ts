import type { ApprovalStatus } from '../gate/approval.js';

/**
 * What an approval webhook says, in the Standard Webhooks envelope `{type, timestamp, data}`.
 * Tool arguments are added only for an endpoint that opted in; approvers' reasons never are.
 */
export const approvalEvents = ['approval.requested', 'approval.decided'] as const;
export type ApprovalEvent = (typeof approvalEvents)[number];

/** The approval as it stands when the event is recorded. */
export interface NoticeSubject {
  workspace_id: string;
  session_id: string;
  tool_call_id: string;
  run_id: string;
  tool: string;
  rule_id: string | null;
  arguments: Record<string, unknown>;
  expires_at: Date;
  status: ApprovalStatus;
  decision: 'allow' | 'deny' | null;
  decided_by: string | null;
}

export interface ApprovalNotice {
  type: ApprovalEvent;
  timestamp: string;
  data: Record<string, unknown>;
}

function eventFields(event: ApprovalEvent, subject: NoticeSubject, approvalUrl: string | null) {
  if (event === 'approval.requested') {
    return { expires_at: subject.expires_at.toISOString(), approval_url: approvalUrl };
  }
  return { outcome: subject.status, decision: subject.decision, decided_by: subject.decided_by };
}

export function approvalNotice(
  event: ApprovalEvent,
  subject: NoticeSubject,
  {
    includeArguments,
    at,
    approvalUrl = null,
  }: {
    includeArguments: boolean;
    at: Date;
    approvalUrl?: string | null;
  },
): ApprovalNotice {
  return {
    type: event,
    timestamp: at.toISOString(),
    data: {
      workspace_id: subject.workspace_id,
      session_id: subject.session_id,
      tool_call_id: subject.tool_call_id,
      run_id: subject.run_id,
      tool: subject.tool,
      rule_id: subject.rule_id,
      ...eventFields(event, subject, approvalUrl),
      ...(includeArguments && { arguments: subject.arguments }),
    },
  };
}
