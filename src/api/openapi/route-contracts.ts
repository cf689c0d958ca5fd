/**
 * Every route the API serves, with the zod schemas that validate its request (the very ones the
 * route calls `validate` with) and what it answers. The OpenAPI document is generated from this
 * table, and a test holds it equal to Fastify's own route table.
 */
import { z } from 'zod';
import { approvalParams, decisionBody, listQuery } from '../routes/approvals.js';
import { bundleBody } from '../routes/capability-bundles.js';
import { payloadsBody } from '../routes/codec.js';
import { connectionBody, idParams, reauthorizeBody } from '../routes/connections.js';
import { pageQuery, sessionParams, streamQuery } from '../routes/events.js';
import { providerBody, providerCredentialBody, providerParams } from '../routes/model-providers.js';
import { admissionBody, requestParams, usageBody } from '../routes/model-requests.js';
import { policyParams, versionParams } from '../routes/policies.js';
import { runBody, runParams } from '../routes/runs.js';
import { toolsetParams } from '../routes/session-toolset.js';
import { callBody, callParams, waitQuery } from '../routes/tool-calls.js';
import {
  deliveriesQuery,
  webhookBody,
  webhookIdParams,
  webhookParams,
} from '../routes/webhooks.js';
import {
  memberBody,
  memberChangeBody,
  memberParams,
  workspaceBody,
  workspaceParams,
} from '../routes/workspaces.js';
import { decisionForm, listPageQuery } from '../web/approval-page-routes.js';
import { grantParams, revokeForm, runPageParams } from '../web/run-page-routes.js';
import { policyBodySchema } from '../../domain/policy/policy.js';
import { responses } from './response-shapes.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';

/** Who may call: the API's bearer principals, the model proxy's key, a browser, or anyone. */
export type Caller =
  | 'operator'
  | 'runner'
  | 'user'
  | 'reader'
  | 'revoker'
  | 'model_key'
  | 'browser'
  | 'codec'
  | 'anyone';

export interface Answer {
  description: string;
  /** The JSON body; absent for an answer without a body or with another media type. */
  schema?: z.ZodType;
  /** A body that is not JSON (a page, a stream, Prometheus text). */
  mediaType?: string;
}

export interface RouteContract {
  method: Method;
  /** As Fastify has it: `:name` for a path parameter. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  caller: Caller;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** A body that is a form, not JSON (the web form's posts). */
  formBody?: z.ZodType;
  answers: Record<number, Answer>;
}

const json = (description: string, schema: z.ZodType = responses.object): Answer => ({
  description,
  schema,
});
const page = (description: string): Answer => ({ description, mediaType: 'text/html' });

export const routeContracts: readonly RouteContract[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    summary: 'The process is up',
    tag: 'operations',
    caller: 'anyone',
    answers: { 200: json('up') },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'readiness',
    summary: 'PostgreSQL and Temporal are reachable',
    tag: 'operations',
    caller: 'anyone',
    answers: { 200: json('ready'), 503: json('a dependency is down') },
  },
  {
    method: 'post',
    path: '/codec/encode',
    operationId: 'codecEncode',
    summary: 'Encrypts payloads as the gate stores them in Temporal (codec server protocol)',
    tag: 'operations',
    caller: 'codec',
    body: payloadsBody,
    answers: { 200: json('the payloads') },
  },
  {
    method: 'options',
    path: '/codec/encode',
    operationId: 'codecEncodePreflight',
    summary: "A browser's CORS preflight for /codec/encode",
    tag: 'operations',
    caller: 'anyone',
    answers: { 204: { description: 'the allowed methods and headers' } },
  },
  {
    method: 'post',
    path: '/codec/decode',
    operationId: 'codecDecode',
    summary:
      'Opens payloads stored in Temporal, for the Temporal UI and CLI (codec server protocol)',
    tag: 'operations',
    caller: 'codec',
    body: payloadsBody,
    answers: { 200: json('the payloads') },
  },
  {
    method: 'options',
    path: '/codec/decode',
    operationId: 'codecDecodePreflight',
    summary: "A browser's CORS preflight for /codec/decode",
    tag: 'operations',
    caller: 'anyone',
    answers: { 204: { description: 'the allowed methods and headers' } },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics of this API process',
    tag: 'operations',
    caller: 'operator',
    answers: { 200: { description: 'Prometheus text format', mediaType: 'text/plain' } },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This document',
    tag: 'operations',
    caller: 'anyone',
    answers: { 200: json('the OpenAPI 3.1 document') },
  },
  {
    method: 'post',
    path: '/v1/workspaces',
    operationId: 'createWorkspace',
    summary: 'Create a workspace',
    tag: 'workspaces',
    caller: 'operator',
    body: workspaceBody,
    answers: { 201: json('created', responses.workspace) },
  },
  {
    method: 'post',
    path: '/v1/workspaces/:ws/members',
    operationId: 'addMember',
    summary: 'Add a member; the user token is returned once',
    tag: 'workspaces',
    caller: 'operator',
    params: workspaceParams,
    body: memberBody,
    answers: { 201: json('created', responses.member) },
  },
  {
    method: 'patch',
    path: '/v1/workspaces/:ws/members/:user_id',
    operationId: 'changeMember',
    summary: "Change a member's role or status",
    tag: 'workspaces',
    caller: 'operator',
    params: memberParams,
    body: memberChangeBody,
    answers: { 200: json('changed') },
  },
  {
    method: 'post',
    path: '/v1/workspaces/:ws/webhooks',
    operationId: 'createWebhook',
    summary: 'Register an approval webhook; a generated secret is returned once',
    tag: 'webhooks',
    caller: 'operator',
    params: webhookParams,
    body: webhookBody,
    answers: { 201: json('created') },
  },
  {
    method: 'get',
    path: '/v1/workspaces/:ws/webhooks',
    operationId: 'listWebhooks',
    summary: "The workspace's webhook endpoints (never their secrets)",
    tag: 'webhooks',
    caller: 'operator',
    params: webhookParams,
    answers: { 200: json('the endpoints') },
  },
  {
    method: 'delete',
    path: '/v1/workspaces/:ws/webhooks/:id',
    operationId: 'deleteWebhook',
    summary: 'Stop sending notices to an endpoint',
    tag: 'webhooks',
    caller: 'operator',
    params: webhookIdParams,
    answers: { 204: { description: 'deleted' } },
  },
  {
    method: 'get',
    path: '/v1/workspaces/:ws/webhooks/:id/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "An endpoint's latest deliveries with attempts and last status",
    tag: 'webhooks',
    caller: 'operator',
    params: webhookIdParams,
    query: deliveriesQuery,
    answers: { 200: json('the deliveries') },
  },
  {
    method: 'post',
    path: '/v1/capability-bundles',
    operationId: 'registerCapabilityBundle',
    summary: 'Register a sandbox tool bundle, declared or photographed',
    tag: 'tools',
    caller: 'operator',
    body: bundleBody,
    answers: { 201: json('registered', responses.bundle) },
  },
  {
    method: 'post',
    path: '/v1/connections',
    operationId: 'createConnection',
    summary: 'Register a brokered MCP server and photograph its tools',
    tag: 'tools',
    caller: 'operator',
    body: connectionBody,
    answers: { 201: json('registered') },
  },
  {
    method: 'get',
    path: '/v1/connections/:id',
    operationId: 'getConnection',
    summary: 'A connection and its photograph',
    tag: 'tools',
    caller: 'operator',
    params: idParams,
    answers: { 200: json('the connection') },
  },
  {
    method: 'post',
    path: '/v1/connections/:id/tools/refresh',
    operationId: 'refreshConnectionTools',
    summary: 'Photograph the tools again and show what changed',
    tag: 'tools',
    caller: 'operator',
    params: idParams,
    answers: { 200: json('the new photograph') },
  },
  {
    method: 'post',
    path: '/v1/connections/:id/reauthorize',
    operationId: 'reauthorizeConnection',
    summary: 'Replace the credential; bindings frozen before now refuse',
    tag: 'tools',
    caller: 'operator',
    params: idParams,
    body: reauthorizeBody,
    answers: { 200: json('reauthorised') },
  },
  {
    method: 'delete',
    path: '/v1/connections/:id',
    operationId: 'revokeConnection',
    summary: 'Revoke a connection',
    tag: 'tools',
    caller: 'operator',
    params: idParams,
    answers: { 200: json('revoked') },
  },
  {
    method: 'post',
    path: '/v1/policies',
    operationId: 'createPolicy',
    summary: 'Create a policy (version 1)',
    tag: 'policies',
    caller: 'operator',
    body: policyBodySchema,
    answers: { 201: json('created', responses.policy) },
  },
  {
    method: 'put',
    path: '/v1/policies/:id',
    operationId: 'revisePolicy',
    summary: 'A new immutable version of a policy',
    tag: 'policies',
    caller: 'operator',
    params: policyParams,
    body: policyBodySchema,
    answers: { 200: json('revised', responses.policy) },
  },
  {
    method: 'get',
    path: '/v1/policies/:id/versions/:n',
    operationId: 'getPolicyVersion',
    summary: 'One version of a policy',
    tag: 'policies',
    caller: 'operator',
    params: versionParams,
    answers: { 200: json('the version') },
  },
  {
    method: 'post',
    path: '/v1/model-providers',
    operationId: 'createModelProvider',
    summary: 'Register a model provider; its key is sealed and never returned',
    tag: 'model access',
    caller: 'operator',
    body: providerBody,
    answers: { 201: json('registered', responses.modelProvider) },
  },
  {
    method: 'get',
    path: '/v1/model-providers/:id',
    operationId: 'getModelProvider',
    summary: 'A model provider (without its key)',
    tag: 'model access',
    caller: 'operator',
    params: providerParams,
    answers: { 200: json('the provider', responses.modelProvider) },
  },
  {
    method: 'put',
    path: '/v1/model-providers/:id/credential',
    operationId: 'rotateModelProviderKey',
    summary: "Replace a provider's key; requests from now on use the new one",
    tag: 'model access',
    caller: 'operator',
    params: providerParams,
    body: providerCredentialBody,
    answers: { 200: json('the provider (without its key)', responses.modelProvider) },
  },
  {
    method: 'delete',
    path: '/v1/model-providers/:id',
    operationId: 'removeModelProvider',
    summary: 'Remove a provider: runs frozen with it reach no model any more',
    tag: 'model access',
    caller: 'operator',
    params: providerParams,
    answers: { 200: json('the provider, removed', responses.modelProvider) },
  },
  {
    method: 'post',
    path: '/v1/runs',
    operationId: 'createRun',
    summary: 'Create a run: freezes tools, schemas, policy version, trust tier and budget',
    tag: 'runs',
    caller: 'operator',
    body: runBody,
    answers: { 201: json('created; the session token is returned once', responses.run) },
  },
  {
    method: 'get',
    path: '/v1/runs/:id',
    operationId: 'getRun',
    summary: 'The frozen run and its budget now',
    tag: 'runs',
    caller: 'operator',
    params: runParams,
    answers: { 200: json('the run') },
  },
  {
    method: 'post',
    path: '/v1/runs/:id/revoke',
    operationId: 'revokeRun',
    summary:
      'End a run: its session token is refused from now on and its pending approvals are denied (idempotent)',
    tag: 'runs',
    caller: 'revoker',
    params: runParams,
    answers: { 200: json('revoked', responses.revocation) },
  },
  {
    method: 'put',
    path: '/v1/sessions/:session_id/tool-calls/:tool_call_id',
    operationId: 'submitToolCall',
    summary: 'Ask the gate about one tool call (idempotent by the two ids)',
    tag: 'gate',
    caller: 'runner',
    params: callParams,
    body: callBody,
    answers: {
      200: json('decided', responses.toolCallAnswer),
      202: json('pending an approval, or still evaluating', responses.toolCallAnswer),
    },
  },
  {
    method: 'get',
    path: '/v1/sessions/:session_id/tool-calls/:tool_call_id',
    operationId: 'getToolCall',
    summary: "A call's state; waits up to `wait` seconds for a pending one",
    tag: 'gate',
    caller: 'runner',
    params: callParams,
    query: waitQuery,
    answers: {
      200: json('decided', responses.toolCallAnswer),
      202: json('still pending', responses.toolCallAnswer),
    },
  },
  {
    method: 'get',
    path: '/v1/sessions/:session_id/toolset',
    operationId: 'getSessionToolset',
    summary: 'What the run froze, grouped by origin',
    tag: 'gate',
    caller: 'runner',
    params: toolsetParams,
    answers: { 200: json('the tool set') },
  },
  {
    method: 'post',
    path: '/v1/sessions/:session_id/model-requests',
    operationId: 'admitModelRequest',
    summary: 'Book a model request against the budget',
    tag: 'budget',
    caller: 'runner',
    params: sessionParams,
    body: admissionBody,
    answers: { 201: json('booked'), 402: json('the budget is exhausted') },
  },
  {
    method: 'post',
    path: '/v1/sessions/:session_id/model-requests/:request_id/usage',
    operationId: 'reportModelUsage',
    summary: 'Reconcile a booked request with its real usage (once)',
    tag: 'budget',
    caller: 'runner',
    params: requestParams,
    body: usageBody,
    answers: { 200: json('reconciled') },
  },
  {
    method: 'get',
    path: '/v1/sessions/:session_id/events',
    operationId: 'listEvents',
    summary: "A page of the session's ledger",
    tag: 'ledger',
    caller: 'reader',
    params: sessionParams,
    query: pageQuery,
    answers: { 200: json('events after `after`') },
  },
  {
    method: 'get',
    path: '/v1/sessions/:session_id/events/verify',
    operationId: 'verifyEvents',
    summary: "Check the session ledger's hash chain",
    tag: 'ledger',
    caller: 'reader',
    params: sessionParams,
    answers: { 200: json('the verdict') },
  },
  {
    method: 'get',
    path: '/v1/sessions/:session_id/events/stream',
    operationId: 'streamEvents',
    summary: 'The ledger as Server-Sent Events; resume with Last-Event-ID',
    tag: 'ledger',
    caller: 'reader',
    params: sessionParams,
    query: streamQuery,
    answers: { 200: { description: 'an event stream', mediaType: 'text/event-stream' } },
  },
  {
    method: 'get',
    path: '/v1/approvals',
    operationId: 'listApprovals',
    summary:
      'Approvals the caller may see, pending (waiting for them, or all) or decided, grouped by run and paged',
    tag: 'approvals',
    caller: 'user',
    query: listQuery,
    answers: { 200: json('the approvals', responses.approvalList) },
  },
  {
    method: 'get',
    path: '/v1/approvals/:session_id/:tool_call_id',
    operationId: 'getApproval',
    summary: 'One approval, with the arguments an approver decides on',
    tag: 'approvals',
    caller: 'user',
    params: approvalParams,
    answers: { 200: json('the approval') },
  },
  {
    method: 'post',
    path: '/v1/approvals/:session_id/:tool_call_id/decision',
    operationId: 'decideApproval',
    summary: 'Approve or deny; exactly one decider wins',
    tag: 'approvals',
    caller: 'user',
    params: approvalParams,
    body: decisionBody,
    answers: {
      200: json('decided', responses.decision),
      409: json('already decided, or the run was revoked'),
    },
  },
  {
    method: 'post',
    path: '/anthropic/v1/messages',
    operationId: 'createMessage',
    summary: 'The Anthropic Messages API, metered against the run budget',
    tag: 'model access',
    caller: 'model_key',
    answers: { 200: json('the provider answer, or its event stream') },
  },
  {
    method: 'post',
    path: '/anthropic/v1/messages/count_tokens',
    operationId: 'countMessageTokens',
    summary: 'The Anthropic token count, through the gate',
    tag: 'model access',
    caller: 'model_key',
    answers: { 200: json('the count') },
  },
  {
    method: 'get',
    path: '/login',
    operationId: 'loginPage',
    summary:
      'Sign-in page of the approvals form (signed in as the operator: what that sign-in is for)',
    tag: 'web form',
    caller: 'anyone',
    answers: { 200: page('the page') },
  },
  {
    method: 'post',
    path: '/login',
    operationId: 'login',
    summary:
      "Sign in with a user token, or the operator key for the codec's use (form post with the sign-in CSRF value)",
    tag: 'web form',
    caller: 'anyone',
    answers: {
      303: { description: 'signed in' },
      401: page('neither a user token nor the operator key'),
    },
  },
  {
    method: 'post',
    path: '/logout',
    operationId: 'logout',
    summary: 'Sign out (form post with the CSRF value)',
    tag: 'web form',
    caller: 'browser',
    answers: { 303: { description: 'signed out' } },
  },
  {
    method: 'get',
    path: '/approvals',
    operationId: 'approvalsPage',
    summary: 'The approvals, as a page: to decide by me, all pending, or decided',
    tag: 'web form',
    caller: 'browser',
    query: listPageQuery,
    answers: { 200: page('the page') },
  },
  {
    method: 'get',
    path: '/approvals/list',
    operationId: 'approvalsListFragment',
    summary: "The list page's rows, refreshed by its script",
    tag: 'web form',
    caller: 'browser',
    query: listPageQuery,
    answers: { 200: page('the rows') },
  },
  {
    method: 'get',
    path: '/approvals/stream',
    operationId: 'approvalsStream',
    summary: 'Wakes the list page when approvals change (Server-Sent Events)',
    tag: 'web form',
    caller: 'browser',
    answers: { 200: { description: 'an event stream', mediaType: 'text/event-stream' } },
  },
  {
    method: 'get',
    path: '/approvals/app.js',
    operationId: 'approvalsScript',
    summary: "The pages' script",
    tag: 'web form',
    caller: 'anyone',
    answers: { 200: { description: 'JavaScript', mediaType: 'text/javascript' } },
  },
  {
    method: 'get',
    path: '/approvals/app.css',
    operationId: 'approvalsStylesheet',
    summary: "The pages' stylesheet",
    tag: 'web form',
    caller: 'anyone',
    answers: { 200: { description: 'CSS', mediaType: 'text/css' } },
  },
  {
    method: 'get',
    path: '/approvals/:session_id/:tool_call_id',
    operationId: 'approvalPage',
    summary: 'One approval with Approve / Deny',
    tag: 'web form',
    caller: 'browser',
    params: approvalParams,
    answers: { 200: page('the page') },
  },
  {
    method: 'get',
    path: '/approvals/runs/:run_id',
    operationId: 'runPage',
    summary: "A run's page: its standing approvals, each revocable by a decider",
    tag: 'web form',
    caller: 'browser',
    params: runPageParams,
    answers: { 200: page('the page') },
  },
  {
    method: 'post',
    path: '/approvals/runs/:run_id/grants/:grant_id/revoke',
    operationId: 'revokeGrantForm',
    summary: 'Revoke a standing approval from the run page (form post with the CSRF value)',
    tag: 'web form',
    caller: 'browser',
    params: grantParams,
    formBody: revokeForm,
    answers: { 200: page('revoked, or already ended'), 403: page('not a decider of its calls') },
  },
  {
    method: 'post',
    path: '/approvals/:session_id/:tool_call_id/decision',
    operationId: 'approvalFormDecision',
    summary: 'Approve or deny from the form',
    tag: 'web form',
    caller: 'browser',
    params: approvalParams,
    formBody: decisionForm,
    answers: { 303: { description: 'decided; back to the approval' } },
  },
];
