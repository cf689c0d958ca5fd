// Generated from /openapi.json by `npm run openapi-client`; do not edit.
/* eslint-disable @typescript-eslint/no-redundant-type-constituents, @typescript-eslint/no-duplicate-type-constituents */
export interface paths {
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The process is up
     * @description No credential.
     */
    get: operations['health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/readyz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * PostgreSQL and Temporal are reachable
     * @description No credential.
     */
    get: operations['readiness'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Prometheus metrics of this API process
     * @description Bearer: the operator key.
     */
    get: operations['metrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * This document
     * @description No credential.
     */
    get: operations['openapi'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create a workspace
     * @description Bearer: the operator key.
     */
    post: operations['createWorkspace'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/members': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Add a member; the user token is returned once
     * @description Bearer: the operator key.
     */
    post: operations['addMember'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/members/{user_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Change a member's role or status
     * @description Bearer: the operator key.
     */
    patch: operations['changeMember'];
    trace?: never;
  };
  '/v1/workspaces/{ws}/identity': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Map the identity provider's groups to the workspace's roles; each person's memberships follow at their next sign-in
     * @description Bearer: the operator key.
     */
    put: operations['setWorkspaceIdentity'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/members/{user_id}/tokens': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a member's personal API tokens (never the tokens themselves)
     * @description Bearer: the operator key.
     */
    get: operations['listMemberTokens'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/members/{user_id}/tokens/{token_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke a member's personal API token: refused from its next use
     * @description Bearer: the operator key.
     */
    delete: operations['revokeMemberToken'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/members/{user_id}/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a member's open web sessions
     * @description Bearer: the operator key.
     */
    get: operations['listMemberSessions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/members/{user_id}/sessions/{web_session_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * End a member's web session: its next request is signed out
     * @description Bearer: the operator key.
     */
    delete: operations['endMemberSession'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/members/{user_id}/access-events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * What changed a member's access: suspensions, reactivations, roles, and each session, token, grant, connection and run a suspension ended
     * @description Bearer: the operator key.
     */
    get: operations['listMemberAccessEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/scim-token': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Mint the workspace's SCIM provisioning token, returned once; the one before stops at once
     * @description Bearer: the operator key.
     */
    post: operations['mintScimToken'];
    /**
     * Revoke the workspace's SCIM provisioning token
     * @description Bearer: the operator key.
     */
    delete: operations['revokeScimToken'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/capability-bundles': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Register a sandbox tool bundle, declared or photographed
     * @description Bearer: the operator key.
     */
    post: operations['registerCapabilityBundle'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/policies': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create a policy (version 1)
     * @description Bearer: the operator key.
     */
    post: operations['createPolicy'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/policies/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * A new immutable version of a policy
     * @description Bearer: the operator key.
     */
    put: operations['revisePolicy'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/policies/{id}/versions/{n}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One version of a policy
     * @description Bearer: the operator key.
     */
    get: operations['getPolicyVersion'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/policies/{id}/shadow': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * The version every call under the policy is also evaluated against, without effect
     * @description Bearer: the operator key.
     */
    put: operations['shadowPolicy'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/policies/{id}/simulate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * What a candidate would have decided on the policy's recorded calls
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    post: operations['simulatePolicy'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create a run: freezes tools, schemas, policy version, trust tier and budget
     * @description Bearer: the operator key.
     */
    post: operations['createRun'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The frozen run and its budget now
     * @description Bearer: the run's session token, or the operator key.
     */
    get: operations['getRun'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * End a run: its session token is refused from now on and its pending approvals are denied (idempotent)
     * @description Bearer: the operator key, or the user token of the member who invoked the run.
     */
    post: operations['revokeRun'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sessions/{session_id}/tool-calls/{tool_call_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A call's state; waits up to `wait` seconds for a pending one
     * @description Bearer: the run's session token.
     */
    get: operations['getToolCall'];
    /**
     * Ask the gate about one tool call (idempotent by the two ids)
     * @description Bearer: the run's session token.
     */
    put: operations['submitToolCall'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sessions/{session_id}/tool-calls/{tool_call_id}/explain': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Each stage's verdict on a call and what it looked at, from the record
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    get: operations['explainToolCall'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sessions/{session_id}/toolset': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * What the run froze, grouped by origin
     * @description Bearer: the run's session token.
     */
    get: operations['getSessionToolset'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sessions/{session_id}/model-requests': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Book a model request against the budget
     * @description Bearer: the run's session token.
     */
    post: operations['admitModelRequest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sessions/{session_id}/model-requests/{request_id}/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Reconcile a booked request with its real usage (once)
     * @description Bearer: the run's session token.
     */
    post: operations['reportModelUsage'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/model-providers': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Register a model provider; its key is sealed and never returned
     * @description Bearer: the operator key.
     */
    post: operations['createModelProvider'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/model-providers/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A model provider (without its key)
     * @description Bearer: the operator key.
     */
    get: operations['getModelProvider'];
    put?: never;
    post?: never;
    /**
     * Remove a provider: runs frozen with it reach no model any more
     * @description Bearer: the operator key.
     */
    delete: operations['removeModelProvider'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/model-providers/{id}/credential': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Replace a provider's key; requests from now on use the new one
     * @description Bearer: the operator key.
     */
    put: operations['rotateModelProviderKey'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/model-prices': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The price table: the operator's prices, then the shipped defaults they do not replace
     * @description Bearer: the operator key.
     */
    get: operations['listModelPrices'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/model-prices/{provider}/{model}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Set a model's price, in place of the shipped default; requests admitted from now on pay it
     * @description Bearer: the operator key.
     */
    put: operations['setModelPrice'];
    post?: never;
    /**
     * Remove the operator's price: the shipped default applies again, or none
     * @description Bearer: the operator key.
     */
    delete: operations['deleteModelPrice'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/model-providers/{id}/fallback-price': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * What a provider's models without a price are charged at
     * @description Bearer: the operator key.
     */
    get: operations['getModelProviderFallbackPrice'];
    /**
     * Charge a provider's models without a price at this price, instead of refusing them
     * @description Bearer: the operator key.
     */
    put: operations['setModelProviderFallbackPrice'];
    post?: never;
    /**
     * Refuse a provider's models without a price again
     * @description Bearer: the operator key.
     */
    delete: operations['deleteModelProviderFallbackPrice'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/budgets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A workspace's budgets, with what each has spent in its current period
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    get: operations['listBudgets'];
    put?: never;
    /**
     * Cap a level's model spend (run, person, team, workspace) per day, month or for life
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    post: operations['createBudget'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/budgets/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A budget and what it has spent in its current period
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    get: operations['getBudget'];
    /**
     * Change a budget's caps; a field left out keeps its cap, null removes it
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    put: operations['updateBudgetCaps'];
    post?: never;
    /**
     * Remove a budget; spend already recorded stays in the ledger
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    delete: operations['deleteBudget'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sessions/{session_id}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A page of the session's ledger
     * @description Bearer: the run's session token, or the operator key.
     */
    get: operations['listEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sessions/{session_id}/events/verify': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Check the session ledger's hash chain
     * @description Bearer: the operator key.
     */
    get: operations['verifyEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/sessions/{session_id}/events/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The ledger as Server-Sent Events; resume with Last-Event-ID
     * @description Bearer: the run's session token, or the operator key.
     */
    get: operations['streamEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/approvals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Approvals the caller may see, pending (waiting for them, or all) or decided, grouped by run and paged
     * @description Bearer: an active member's user token.
     */
    get: operations['listApprovals'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/approvals/{session_id}/{tool_call_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One approval, with the arguments an approver decides on
     * @description Bearer: an active member's user token.
     */
    get: operations['getApproval'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/approvals/{session_id}/{tool_call_id}/decision': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Approve or deny, with a standing approval when asked; exactly one decider wins
     * @description Bearer: an active member's user token.
     */
    post: operations['decideApproval'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/grants': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A run's standing approvals, newest first; a scope only for who may read its call
     * @description Bearer: an active member's user token.
     */
    get: operations['listRunGrants'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/grants/{grant_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * End a standing approval: the calls it covered ask again (idempotent; by who may decide them)
     * @description Bearer: an active member's user token.
     */
    delete: operations['revokeRunGrant'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/connections': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Register a brokered MCP server: a bearer one is photographed now, an OAuth one waits for its owner
     * @description Bearer: the operator key.
     */
    post: operations['createConnection'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/connections/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A connection and its photograph
     * @description Bearer: the operator key.
     */
    get: operations['getConnection'];
    put?: never;
    post?: never;
    /**
     * Revoke a connection (an OAuth one's tokens at its server too, when it offers revocation)
     * @description Bearer: the operator key.
     */
    delete: operations['revokeConnection'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/connections/{id}/tools/refresh': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Photograph the tools again and show what changed
     * @description Bearer: the operator key.
     */
    post: operations['refreshConnectionTools'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/connections/{id}/reauthorize': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Replace the credential (bindings frozen before now refuse), or for OAuth a new authorize_url
     * @description Bearer: the operator key.
     */
    post: operations['reauthorizeConnection'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/codec/encode': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Encrypts payloads as the gate stores them in Temporal (codec server protocol)
     * @description Bearer: the operator key; or the operator's web session, signed in at /login with that key (the Temporal UI).
     */
    post: operations['codecEncode'];
    delete?: never;
    /**
     * A browser's CORS preflight for /codec/encode
     * @description No credential.
     */
    options: operations['codecEncodePreflight'];
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/codec/decode': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Opens payloads stored in Temporal, for the Temporal UI and CLI (codec server protocol)
     * @description Bearer: the operator key; or the operator's web session, signed in at /login with that key (the Temporal UI).
     */
    post: operations['codecDecode'];
    delete?: never;
    /**
     * A browser's CORS preflight for /codec/decode
     * @description No credential.
     */
    options: operations['codecDecodePreflight'];
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The workspace's webhook endpoints (never their secrets)
     * @description Bearer: the operator key.
     */
    get: operations['listWebhooks'];
    put?: never;
    /**
     * Register an approval webhook; a generated secret is returned once
     * @description Bearer: the operator key.
     */
    post: operations['createWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/webhooks/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Stop sending notices to an endpoint
     * @description Bearer: the operator key.
     */
    delete: operations['deleteWebhook'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/webhooks/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * An endpoint's latest deliveries with attempts and last status
     * @description Bearer: the operator key.
     */
    get: operations['listWebhookDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/run-profiles': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The workspace's run profiles
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    get: operations['listRunProfiles'];
    put?: never;
    /**
     * Create a run profile: a template for the runs an MCP authorization creates
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    post: operations['createRunProfile'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workspaces/{ws}/run-profiles/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A run profile
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    get: operations['getRunProfile'];
    /**
     * Replace a run profile: runs created from it before keep what they froze
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    put: operations['replaceRunProfile'];
    post?: never;
    /**
     * Delete a run profile: no new authorization picks it; its runs keep running
     * @description Bearer: the operator key (every workspace), or an active admin's user token (their own).
     */
    delete: operations['deleteRunProfile'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/anthropic/v1/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The Anthropic Messages API, metered against the run budget
     * @description The run's session token as x-api-key (or Bearer).
     */
    post: operations['createMessage'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/anthropic/v1/messages/count_tokens': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The Anthropic token count, through the gate
     * @description The run's session token as x-api-key (or Bearer).
     */
    post: operations['countMessageTokens'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/openai/v1/chat/completions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * OpenAI Chat Completions, metered against the run budget
     * @description The run's session token as x-api-key (or Bearer).
     */
    post: operations['createChatCompletion'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/openai/v1/responses': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * OpenAI Responses, metered against the run budget
     * @description The run's session token as x-api-key (or Bearer).
     */
    post: operations['createResponse'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/approvals/app.js': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The pages' script
     * @description No credential.
     */
    get: operations['approvalsScript'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/approvals/app.css': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The pages' stylesheet
     * @description No credential.
     */
    get: operations['approvalsStylesheet'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Sign-in page of the approvals form (signed in as the operator: what that sign-in is for)
     * @description No credential.
     */
    get: operations['loginPage'];
    put?: never;
    /**
     * Sign in with a user token, or the operator key for the codec's use (form post with the sign-in CSRF value)
     * @description No credential.
     */
    post: operations['login'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign out (form post with the CSRF value)
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['logout'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/oidc/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Sign in with the company's identity provider: to the provider (OpenID Connect)
     * @description No credential.
     */
    get: operations['oidcSignIn'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/oidc/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The identity provider's redirect back: the code is exchanged and the ID token checked
     * @description No credential.
     */
    get: operations['oidcCallback'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/tokens': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The signed-in member's own API tokens
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['personalTokensPage'];
    put?: never;
    /**
     * Mint a named, expiring API token that acts as the signed-in member; shown once
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['mintPersonalToken'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/tokens/{id}/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke one of your API tokens
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['revokePersonalToken'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/approvals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The approvals, as a page: to decide by me, all pending, or decided
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['approvalsPage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/approvals/list': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The list page's rows, refreshed by its script
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['approvalsListFragment'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/approvals/{session_id}/{tool_call_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One approval with Approve / Deny
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['approvalPage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/approvals/{session_id}/{tool_call_id}/decision': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Approve or deny from the form, with a standing approval when chosen
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['approvalFormDecision'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/approvals/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Wakes the list page when approvals change (Server-Sent Events)
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['approvalsStream'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/policies/{id}/simulate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A version on the policy's recorded calls, beside the latest version's rules (admins)
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['simulationPage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/connections': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The signed-in member's connections (an admin's: the workspace's org ones too)
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['connectionsPage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/connections/{id}/authorize': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Connect or reconnect an OAuth connection (its owner; an admin for an org one)
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['connectionAuthorizePage'];
    put?: never;
    /**
     * Start the authorization: on to the authorization server
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['connectionAuthorizeStart'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/connections/oauth/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Where the authorization server sends the person back
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['connectionOAuthCallback'];
    put?: never;
    /**
     * Finish an authorization whose callback arrived without the session cookie
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['connectionOAuthFinish'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/connections/{id}/disconnect': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Disconnect (the owner) or revoke (an admin) a connection
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['connectionDisconnect'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/approvals/runs/{run_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A run's page: its standing approvals, each revocable by a decider
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['runPage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/approvals/runs/{run_id}/grants/{grant_id}/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke a standing approval from the run page (form post with the CSRF value)
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['revokeGrantForm'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/authorize': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * OAuth authorization endpoint (PKCE S256 only): on to sign in and pick a run profile
     * @description No credential.
     */
    get: operations['oauthAuthorize'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/consent/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Allow an MCP client to act as a run of yours: pick a run profile
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['oauthConsentPage'];
    put?: never;
    /**
     * Allow (a run is created from the picked profile, invoked by you) or deny; back to the client
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['oauthConsent'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/run-profiles': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The workspace's run profiles (admins)
     * @description The web session cookie, and the CSRF value on posts.
     */
    get: operations['runProfilesPage'];
    put?: never;
    /**
     * Create a run profile from the form (admins)
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['createRunProfileForm'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/run-profiles/{id}/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Delete a run profile (admins); its runs keep running
     * @description The web session cookie, and the CSRF value on posts.
     */
    post: operations['deleteRunProfileForm'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/oauth-protected-resource/mcp': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The remote MCP endpoint's protected resource metadata (RFC 9728)
     * @description No credential.
     */
    get: operations['mcpProtectedResourceMetadata'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/oauth-authorization-server': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The gate's OAuth authorization server metadata (RFC 8414)
     * @description No credential.
     */
    get: operations['oauthAuthorizationServerMetadata'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/register': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Dynamic client registration (RFC 7591): a secret is returned once, if any
     * @description No credential.
     */
    post: operations['oauthRegisterClient'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/token': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * OAuth token endpoint: an authorization code (with its PKCE verifier) or a refresh token for tokens of the run
     * @description No credential.
     */
    post: operations['oauthToken'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Token revocation (RFC 7009): ends the grant the token belongs to
     * @description No credential.
     */
    post: operations['oauthRevoke'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    Problem: {
      type: string;
      title: string;
      status: number;
      detail: string;
      errors?: {
        path: string;
        message: string;
      }[];
    } & {
      [key: string]: unknown;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  health: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description up */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            status: 'ok';
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  readiness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ready */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ready' | 'not ready';
            /** @enum {string} */
            postgres: 'ok' | 'down';
            /** @enum {string} */
            temporal: 'ok' | 'down';
          };
        };
      };
      /** @description a dependency is down */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ready' | 'not ready';
            /** @enum {string} */
            postgres: 'ok' | 'down';
            /** @enum {string} */
            temporal: 'ok' | 'down';
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  metrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Prometheus text format */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  openapi: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the OpenAPI 3.1 document */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createWorkspace: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string;
        };
      };
    };
    responses: {
      /** @description created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            name: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  addMember: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string;
          /** @enum {string} */
          role: 'member' | 'approver' | 'admin';
        };
      };
    };
    responses: {
      /** @description created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            user_id: string;
            name: string;
            /** @enum {string} */
            role: 'member' | 'approver' | 'admin';
            /** @enum {string} */
            status: 'active' | 'suspended';
            user_token: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  changeMember: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
        user_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          role?: 'member' | 'approver' | 'admin';
          /** @enum {string} */
          status?: 'active' | 'suspended';
        };
      };
    };
    responses: {
      /** @description changed */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            user_id: string;
            name: string;
            /** @enum {string} */
            role: 'member' | 'approver' | 'admin';
            /** @enum {string} */
            status: 'active' | 'suspended';
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  setWorkspaceIdentity: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @default groups */
          groups_claim?: string;
          roles: {
            [key: string]: 'member' | 'approver' | 'admin';
          };
        };
      };
    };
    responses: {
      /** @description the mapping */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            groups_claim: string;
            roles: {
              [key: string]: 'member' | 'approver' | 'admin';
            };
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listMemberTokens: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
        user_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the tokens, newest first */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            name: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string;
            revoked_at: string | null;
          }[];
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  revokeMemberToken: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
        user_id: string;
        token_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description revoked */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listMemberSessions: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
        user_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the sessions, newest first */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            last_seen_at: string;
          }[];
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  endMemberSession: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
        user_id: string;
        web_session_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ended */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listMemberAccessEvents: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
        user_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the events, oldest first */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            seq: number;
            type: string;
            subject_id: string | null;
            /** @enum {string} */
            actor: 'operator' | 'identity_provider' | 'sign_in' | 'member';
            /** Format: date-time */
            at: string;
          }[];
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  mintScimToken: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description minted */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            scim_token: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  revokeScimToken: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description revoked */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  registerCapabilityBundle: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: uuid */
          workspace: string;
          name: string;
          version: string;
          tools?: {
            name: string;
            description?: string;
            input_schema?: {
              [key: string]: unknown;
            };
            /** @enum {string} */
            effect?: 'read' | 'write';
          }[];
          command?: {
            cmd: string;
            /** @default [] */
            args?: string[];
          };
        } & (unknown | unknown);
      };
    };
    responses: {
      /** @description registered */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            name: string;
            version: string;
            tools: {
              name: string;
              mcp_name?: string;
              /** @enum {string} */
              effect: 'read' | 'write';
              digest: string;
              callable: boolean;
              uncallable_reason?: string;
            }[];
            unusable: {
              mcp_name: string;
              reason: string;
            }[];
            digest: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createPolicy: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: uuid */
          workspace: string;
          name: string;
          rules: {
            id: string;
            match: {
              tool?: string;
              /** @enum {string} */
              class?: 'sandbox' | 'brokered';
              /** @enum {string} */
              effect?: 'read' | 'write';
              args?: (
                | {
                    path: string;
                    /** @constant */
                    op: 'eq';
                    value: unknown;
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'in';
                    value: unknown[];
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'prefix';
                    value: string;
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'glob';
                    value: string;
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'exists';
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'command';
                    value: string[][];
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'path';
                    value: string;
                    base?: string;
                  }
              )[];
            };
            /** @enum {string} */
            verdict: 'allow' | 'deny' | 'require_approval';
            /** @enum {string} */
            uncertain?: 'deny' | 'require_approval';
          }[];
          /** @enum {string} */
          default: 'allow' | 'deny' | 'require_approval';
          /** @enum {string} */
          autonomous_fallback: 'allow' | 'deny';
          approval: {
            timeout_s: number;
            /** @enum {string} */
            on_timeout: 'deny' | 'allow';
          };
        };
      };
    };
    responses: {
      /** @description created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            version: number;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  revisePolicy: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: uuid */
          workspace: string;
          name: string;
          rules: {
            id: string;
            match: {
              tool?: string;
              /** @enum {string} */
              class?: 'sandbox' | 'brokered';
              /** @enum {string} */
              effect?: 'read' | 'write';
              args?: (
                | {
                    path: string;
                    /** @constant */
                    op: 'eq';
                    value: unknown;
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'in';
                    value: unknown[];
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'prefix';
                    value: string;
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'glob';
                    value: string;
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'exists';
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'command';
                    value: string[][];
                  }
                | {
                    path: string;
                    /** @constant */
                    op: 'path';
                    value: string;
                    base?: string;
                  }
              )[];
            };
            /** @enum {string} */
            verdict: 'allow' | 'deny' | 'require_approval';
            /** @enum {string} */
            uncertain?: 'deny' | 'require_approval';
          }[];
          /** @enum {string} */
          default: 'allow' | 'deny' | 'require_approval';
          /** @enum {string} */
          autonomous_fallback: 'allow' | 'deny';
          approval: {
            timeout_s: number;
            /** @enum {string} */
            on_timeout: 'deny' | 'allow';
          };
        };
      };
    };
    responses: {
      /** @description revised */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            version: number;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getPolicyVersion: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        n: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the version */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            name: string;
            rules: {
              [key: string]: unknown;
            }[];
            /** @enum {string} */
            default: 'allow' | 'deny' | 'require_approval';
            /** @enum {string} */
            autonomous_fallback: 'allow' | 'deny';
            approval: {
              timeout_s: number;
              /** @enum {string} */
              on_timeout: 'deny' | 'allow';
            };
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            version: number;
            /** Format: date-time */
            created_at: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  shadowPolicy: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          version: number | null;
        };
      };
    };
    responses: {
      /** @description named */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            shadow_version: number | null;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  simulatePolicy: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          candidate?: {
            /** Format: uuid */
            workspace: string;
            name: string;
            rules: {
              id: string;
              match: {
                tool?: string;
                /** @enum {string} */
                class?: 'sandbox' | 'brokered';
                /** @enum {string} */
                effect?: 'read' | 'write';
                args?: (
                  | {
                      path: string;
                      /** @constant */
                      op: 'eq';
                      value: unknown;
                    }
                  | {
                      path: string;
                      /** @constant */
                      op: 'in';
                      value: unknown[];
                    }
                  | {
                      path: string;
                      /** @constant */
                      op: 'prefix';
                      value: string;
                    }
                  | {
                      path: string;
                      /** @constant */
                      op: 'glob';
                      value: string;
                    }
                  | {
                      path: string;
                      /** @constant */
                      op: 'exists';
                    }
                  | {
                      path: string;
                      /** @constant */
                      op: 'command';
                      value: string[][];
                    }
                  | {
                      path: string;
                      /** @constant */
                      op: 'path';
                      value: string;
                      base?: string;
                    }
                )[];
              };
              /** @enum {string} */
              verdict: 'allow' | 'deny' | 'require_approval';
              /** @enum {string} */
              uncertain?: 'deny' | 'require_approval';
            }[];
            /** @enum {string} */
            default: 'allow' | 'deny' | 'require_approval';
            /** @enum {string} */
            autonomous_fallback: 'allow' | 'deny';
            approval: {
              timeout_s: number;
              /** @enum {string} */
              on_timeout: 'deny' | 'allow';
            };
          };
          version?: number;
          /** Format: date-time */
          since?: string;
          /** Format: date-time */
          until?: string;
          sessions?: string[];
          /** @default 10000 */
          limit?: number;
        } & (unknown | unknown);
      };
    };
    responses: {
      /** @description the simulation */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            policy_id: string;
            candidate_version: number | null;
            recorded_versions: number[];
            since: string;
            until: string;
            evaluated: number;
            withheld: number;
            by_outcome: {
              [key: string]: number;
            };
            by_rule: {
              [key: string]: number;
            };
            changed: {
              session_id: string;
              tool_call_id: string;
              tool: string;
              recorded: {
                /** @enum {string} */
                decision: 'allow' | 'deny';
                /** @enum {string} */
                source?:
                  | 'budget'
                  | 'capability'
                  | 'binding'
                  | 'schema'
                  | 'trust_tier'
                  | 'policy'
                  | 'approval'
                  | 'unavailable';
                rule_id?: string;
                asked: boolean;
              };
              candidate: {
                /** @enum {string} */
                decision: 'allow' | 'deny' | 'ask';
                rule_id: string | null;
                reason: string;
              };
              arguments?: unknown;
            }[];
            complete: boolean;
            stopped_by: ('limit' | 'deadline') | null;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createRun: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: uuid */
          workspace: string;
          session_id: string;
          /** Format: uuid */
          invoked_by: string;
          source:
            | {
                /** @constant */
                kind: 'manual';
                repository?: string;
              }
            | {
                /** @constant */
                kind: 'schedule';
                repository?: string;
              }
            | {
                /** @constant */
                kind: 'pull_request';
                repository?: string;
                pull_request?: {
                  base_repo?: string | null;
                  head_repo?: string | null;
                  number?: number;
                  sender?: string;
                };
              };
          /** @enum {string} */
          autonomy: 'supervised' | 'autonomous';
          /** Format: uuid */
          policy_id: string;
          tools: {
            /** @default [] */
            bundles?: string[];
            /** @default [] */
            connections?: {
              /** Format: uuid */
              id: string;
              tools?: string[];
            }[];
          };
          budget: {
            max_tokens: number;
          };
          /** Format: uuid */
          model_provider?: string;
        };
      };
    };
    responses: {
      /** @description created; the session token is returned once */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            run_id: string;
            /** Format: uuid */
            workspace: string;
            session_id: string;
            /** Format: uuid */
            invoked_by: string;
            source: {
              [key: string]: unknown;
            };
            /** @enum {string} */
            trust_tier: 'trusted' | 'read_only';
            /** @enum {string} */
            autonomy: 'supervised' | 'autonomous';
            /** Format: uuid */
            policy_id: string;
            policy_version: number;
            toolset_digest: string;
            tools: {
              [key: string]: unknown;
            }[];
            model_provider: string | null;
            /** Format: date-time */
            created_at: string;
            session_token: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the run */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            run_id: string;
            /** Format: uuid */
            workspace: string;
            session_id: string;
            /** Format: uuid */
            invoked_by: string;
            source: {
              [key: string]: unknown;
            };
            /** @enum {string} */
            trust_tier: 'trusted' | 'read_only';
            /** @enum {string} */
            autonomy: 'supervised' | 'autonomous';
            /** Format: uuid */
            policy_id: string;
            policy_version: number;
            toolset_digest: string;
            tools: {
              [key: string]: unknown;
            }[];
            model_provider: string | null;
            /** Format: date-time */
            created_at: string;
            budget: {
              max_tokens: number;
              held_tokens: number;
              used_tokens: number;
              spent_usd: string;
              held_usd: string;
            };
            revocation: {
              /** Format: date-time */
              revoked_at: string;
              revoked_by: string | null;
              /**
               * @description revoked: by its invoker or the operator; invoker_access_ended: its invoker's access was ended
               * @enum {string}
               */
              because: 'revoked' | 'invoker_access_ended';
            } | null;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  revokeRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description revoked */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            run_id: string;
            /** Format: date-time */
            revoked_at: string;
            revoked_by: string | null;
            /**
             * @description revoked: by its invoker or the operator; invoker_access_ended: its invoker's access was ended
             * @enum {string}
             */
            because: 'revoked' | 'invoker_access_ended';
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getToolCall: {
    parameters: {
      query?: {
        wait?: number;
      };
      header?: never;
      path: {
        session_id: string;
        tool_call_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description decided */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'decided' | 'pending_approval' | 'evaluating';
            /** @enum {string} */
            decision?: 'allow' | 'deny';
            /** @enum {string} */
            source?:
              | 'budget'
              | 'capability'
              | 'binding'
              | 'schema'
              | 'trust_tier'
              | 'policy'
              | 'approval'
              | 'unavailable';
            reason?: string;
            rule_id?: string | null;
            /** @constant */
            render?: 'tool_error';
            approval?: {
              url: string;
              expires_at: string;
            };
            result?: {
              [key: string]: unknown;
            };
          };
        };
      };
      /** @description still pending */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'decided' | 'pending_approval' | 'evaluating';
            /** @enum {string} */
            decision?: 'allow' | 'deny';
            /** @enum {string} */
            source?:
              | 'budget'
              | 'capability'
              | 'binding'
              | 'schema'
              | 'trust_tier'
              | 'policy'
              | 'approval'
              | 'unavailable';
            reason?: string;
            rule_id?: string | null;
            /** @constant */
            render?: 'tool_error';
            approval?: {
              url: string;
              expires_at: string;
            };
            result?: {
              [key: string]: unknown;
            };
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  submitToolCall: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        session_id: string;
        tool_call_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          tool: string;
          arguments: {
            [key: string]: unknown;
          };
          execute?: boolean;
          observed_digest?: string | null;
        };
      };
    };
    responses: {
      /** @description decided */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'decided' | 'pending_approval' | 'evaluating';
            /** @enum {string} */
            decision?: 'allow' | 'deny';
            /** @enum {string} */
            source?:
              | 'budget'
              | 'capability'
              | 'binding'
              | 'schema'
              | 'trust_tier'
              | 'policy'
              | 'approval'
              | 'unavailable';
            reason?: string;
            rule_id?: string | null;
            /** @constant */
            render?: 'tool_error';
            approval?: {
              url: string;
              expires_at: string;
            };
            result?: {
              [key: string]: unknown;
            };
          };
        };
      };
      /** @description pending an approval, or still evaluating */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'decided' | 'pending_approval' | 'evaluating';
            /** @enum {string} */
            decision?: 'allow' | 'deny';
            /** @enum {string} */
            source?:
              | 'budget'
              | 'capability'
              | 'binding'
              | 'schema'
              | 'trust_tier'
              | 'policy'
              | 'approval'
              | 'unavailable';
            reason?: string;
            rule_id?: string | null;
            /** @constant */
            render?: 'tool_error';
            approval?: {
              url: string;
              expires_at: string;
            };
            result?: {
              [key: string]: unknown;
            };
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  explainToolCall: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        session_id: string;
        tool_call_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the explanation */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            session_id: string;
            tool_call_id: string;
            tool: string;
            /** @enum {string} */
            status: 'evaluating' | 'pending_approval' | 'decided';
            decision: ('allow' | 'deny') | null;
            source:
              | (
                  | 'budget'
                  | 'capability'
                  | 'binding'
                  | 'schema'
                  | 'trust_tier'
                  | 'policy'
                  | 'approval'
                  | 'unavailable'
                )
              | null;
            rule_id: string | null;
            request_digest?: string;
            /** @constant */
            arguments_hidden?: true;
            stages: {
              stage: string;
              verdict: string;
              looked_at: {
                [key: string]: unknown;
              };
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getSessionToolset: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        session_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the tool set */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            run_id: string;
            toolset_digest: string;
            origins: {
              name: string;
              /** @enum {string} */
              kind: 'bundle' | 'connection';
              /** @enum {string} */
              class: 'sandbox' | 'brokered';
              command?: {
                cmd: string;
                args: string[];
              };
              tools: {
                name: string;
                mcp_name?: string;
                description: string;
                input_schema: {
                  [key: string]: unknown;
                };
                /** @enum {string} */
                effect: 'read' | 'write';
                annotations?: {
                  [key: string]: unknown;
                };
                digest: string;
                callable: boolean;
              }[];
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  admitModelRequest: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        session_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          request_id: string;
          model: string;
          max_output_tokens: number;
          input: {
            system?: {
              /** @constant */
              type: 'text';
              text: string;
              cache_control?: {
                /** @constant */
                type: 'ephemeral';
                /** @constant */
                ttl?: '5m';
              };
            }[];
            messages: {
              /** @enum {string} */
              role: 'user' | 'assistant' | 'system';
              content: (
                | {
                    /** @constant */
                    type: 'text';
                    text: string;
                    cache_control?: {
                      /** @constant */
                      type: 'ephemeral';
                      /** @constant */
                      ttl?: '5m';
                    };
                  }
                | {
                    /** @constant */
                    type: 'tool_use';
                    id: string;
                    name: string;
                    input: {
                      [key: string]: unknown;
                    };
                    cache_control?: {
                      /** @constant */
                      type: 'ephemeral';
                      /** @constant */
                      ttl?: '5m';
                    };
                  }
                | {
                    /** @constant */
                    type: 'tool_result';
                    tool_use_id: string;
                    content?: (
                      | {
                          /** @constant */
                          type: 'text';
                          text: string;
                          cache_control?: {
                            /** @constant */
                            type: 'ephemeral';
                            /** @constant */
                            ttl?: '5m';
                          };
                        }
                      | {
                          /** @constant */
                          type: 'image';
                          source:
                            | {
                                /** @constant */
                                type: 'base64';
                                /** @enum {string} */
                                media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
                                data: string;
                              }
                            | {
                                /** @constant */
                                type: 'url';
                                url: string;
                              }
                            | {
                                /** @constant */
                                type: 'file';
                                file_id: string;
                              };
                          cache_control?: {
                            /** @constant */
                            type: 'ephemeral';
                            /** @constant */
                            ttl?: '5m';
                          };
                        }
                      | {
                          /** @constant */
                          type: 'document';
                          source:
                            | {
                                /** @constant */
                                type: 'base64';
                                /** @constant */
                                media_type: 'application/pdf';
                                data: string;
                              }
                            | {
                                /** @constant */
                                type: 'text';
                                /** @constant */
                                media_type: 'text/plain';
                                data: string;
                              }
                            | {
                                /** @constant */
                                type: 'content';
                                content: (
                                  | {
                                      /** @constant */
                                      type: 'text';
                                      text: string;
                                      cache_control?: {
                                        /** @constant */
                                        type: 'ephemeral';
                                        /** @constant */
                                        ttl?: '5m';
                                      };
                                    }
                                  | {
                                      /** @constant */
                                      type: 'image';
                                      source:
                                        | {
                                            /** @constant */
                                            type: 'base64';
                                            /** @enum {string} */
                                            media_type:
                                              | 'image/jpeg'
                                              | 'image/png'
                                              | 'image/gif'
                                              | 'image/webp';
                                            data: string;
                                          }
                                        | {
                                            /** @constant */
                                            type: 'url';
                                            url: string;
                                          }
                                        | {
                                            /** @constant */
                                            type: 'file';
                                            file_id: string;
                                          };
                                      cache_control?: {
                                        /** @constant */
                                        type: 'ephemeral';
                                        /** @constant */
                                        ttl?: '5m';
                                      };
                                    }
                                )[];
                              }
                            | {
                                /** @constant */
                                type: 'url';
                                url: string;
                              }
                            | {
                                /** @constant */
                                type: 'file';
                                file_id: string;
                              };
                          title?: string | null;
                          context?: string | null;
                          citations?: {
                            enabled: boolean;
                          } | null;
                          cache_control?: {
                            /** @constant */
                            type: 'ephemeral';
                            /** @constant */
                            ttl?: '5m';
                          };
                        }
                      | ({
                          /** @enum {string} */
                          type:
                            | 'search_result'
                            | 'server_tool_use'
                            | 'web_search_tool_result'
                            | 'container_upload';
                        } & {
                          [key: string]: unknown;
                        })
                    )[];
                    is_error?: boolean;
                    cache_control?: {
                      /** @constant */
                      type: 'ephemeral';
                      /** @constant */
                      ttl?: '5m';
                    };
                  }
                | {
                    /** @constant */
                    type: 'image';
                    source:
                      | {
                          /** @constant */
                          type: 'base64';
                          /** @enum {string} */
                          media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
                          data: string;
                        }
                      | {
                          /** @constant */
                          type: 'url';
                          url: string;
                        }
                      | {
                          /** @constant */
                          type: 'file';
                          file_id: string;
                        };
                    cache_control?: {
                      /** @constant */
                      type: 'ephemeral';
                      /** @constant */
                      ttl?: '5m';
                    };
                  }
                | {
                    /** @constant */
                    type: 'document';
                    source:
                      | {
                          /** @constant */
                          type: 'base64';
                          /** @constant */
                          media_type: 'application/pdf';
                          data: string;
                        }
                      | {
                          /** @constant */
                          type: 'text';
                          /** @constant */
                          media_type: 'text/plain';
                          data: string;
                        }
                      | {
                          /** @constant */
                          type: 'content';
                          content: (
                            | {
                                /** @constant */
                                type: 'text';
                                text: string;
                                cache_control?: {
                                  /** @constant */
                                  type: 'ephemeral';
                                  /** @constant */
                                  ttl?: '5m';
                                };
                              }
                            | {
                                /** @constant */
                                type: 'image';
                                source:
                                  | {
                                      /** @constant */
                                      type: 'base64';
                                      /** @enum {string} */
                                      media_type:
                                        'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
                                      data: string;
                                    }
                                  | {
                                      /** @constant */
                                      type: 'url';
                                      url: string;
                                    }
                                  | {
                                      /** @constant */
                                      type: 'file';
                                      file_id: string;
                                    };
                                cache_control?: {
                                  /** @constant */
                                  type: 'ephemeral';
                                  /** @constant */
                                  ttl?: '5m';
                                };
                              }
                          )[];
                        }
                      | {
                          /** @constant */
                          type: 'url';
                          url: string;
                        }
                      | {
                          /** @constant */
                          type: 'file';
                          file_id: string;
                        };
                    title?: string | null;
                    context?: string | null;
                    citations?: {
                      enabled: boolean;
                    } | null;
                    cache_control?: {
                      /** @constant */
                      type: 'ephemeral';
                      /** @constant */
                      ttl?: '5m';
                    };
                  }
                | {
                    /** @constant */
                    type: 'thinking';
                    thinking: string;
                    signature: string;
                  }
                | {
                    /** @constant */
                    type: 'redacted_thinking';
                    data: string;
                  }
                | ({
                    /** @enum {string} */
                    type:
                      | 'search_result'
                      | 'server_tool_use'
                      | 'web_search_tool_result'
                      | 'container_upload';
                  } & {
                    [key: string]: unknown;
                  })
              )[];
            }[];
            tools?: {
              /** @constant */
              type?: 'custom';
              name: string;
              description?: string;
              input_schema: {
                [key: string]: unknown;
              };
              cache_control?: {
                /** @constant */
                type: 'ephemeral';
                /** @constant */
                ttl?: '5m';
              };
            }[];
          };
        };
      };
    };
    responses: {
      /** @description booked */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            reservation_id: string;
            booked_tokens: number;
            booked_usd: string;
          };
        };
      };
      /** @description the budget is exhausted */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': {
            type: string;
            title: string;
            status: number;
            detail: string;
            errors?: {
              path: string;
              message: string;
            }[];
            request_id: string;
            booked_tokens: number;
            booked_usd?: string;
            level?: string;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  reportModelUsage: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        session_id: string;
        request_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          input_tokens: number;
          output_tokens: number;
        };
      };
    };
    responses: {
      /** @description reconciled */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            reservation_id: string;
            booked_tokens: number;
            input_tokens: number;
            output_tokens: number;
            used_tokens: number;
            released_tokens: number;
            cost_usd: string | null;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createModelProvider: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: uuid */
          workspace: string;
          name: string;
          /** @enum {string} */
          kind: 'anthropic' | 'openai';
          /** Format: uri */
          base_url: string;
          credential: {
            /** @constant */
            type: 'api_key';
            key: string;
          };
          /** @default false */
          allow_url_sources?: boolean;
        };
      };
    };
    responses: {
      /** @description registered */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            name: string;
            /** @enum {string} */
            kind: 'anthropic' | 'openai';
            base_url: string;
            allow_url_sources: boolean;
            /** Format: date-time */
            created_at: string;
            removed_at: string | null;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getModelProvider: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the provider */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            name: string;
            /** @enum {string} */
            kind: 'anthropic' | 'openai';
            base_url: string;
            allow_url_sources: boolean;
            /** Format: date-time */
            created_at: string;
            removed_at: string | null;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  removeModelProvider: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the provider, removed */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            name: string;
            /** @enum {string} */
            kind: 'anthropic' | 'openai';
            base_url: string;
            allow_url_sources: boolean;
            /** Format: date-time */
            created_at: string;
            removed_at: string | null;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  rotateModelProviderKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          credential: {
            /** @constant */
            type: 'api_key';
            key: string;
          };
        };
      };
    };
    responses: {
      /** @description the provider (without its key) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            name: string;
            /** @enum {string} */
            kind: 'anthropic' | 'openai';
            base_url: string;
            allow_url_sources: boolean;
            /** Format: date-time */
            created_at: string;
            removed_at: string | null;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listModelPrices: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the price table */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            unit: 'USD per million tokens';
            prices: {
              /** @enum {string} */
              provider: 'anthropic' | 'openai';
              model: string;
              /** @enum {string} */
              source: 'operator' | 'default';
              input: string;
              output: string;
              cache_write: string;
              cache_read: string;
              long_context: {
                above_input_tokens: number;
                input: string;
                output: string;
                cache_write: string;
                cache_read: string;
              }[];
              updated_at: string | null;
            }[];
            defaults: {
              [key: string]: {
                as_of: string;
                url: string;
              };
            };
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  setModelPrice: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        provider: 'anthropic' | 'openai';
        model: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          input: string;
          output: string;
          cache_write: string;
          cache_read: string;
          /** @default [] */
          long_context?: {
            above_input_tokens: number;
            input: string;
            output: string;
            cache_write: string;
            cache_read: string;
          }[];
        };
      };
    };
    responses: {
      /** @description replaced */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            provider: 'anthropic' | 'openai';
            model: string;
            /** @enum {string} */
            source: 'operator' | 'default';
            input: string;
            output: string;
            cache_write: string;
            cache_read: string;
            long_context: {
              above_input_tokens: number;
              input: string;
              output: string;
              cache_write: string;
              cache_read: string;
            }[];
            updated_at: string | null;
          };
        };
      };
      /** @description set */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            provider: 'anthropic' | 'openai';
            model: string;
            /** @enum {string} */
            source: 'operator' | 'default';
            input: string;
            output: string;
            cache_write: string;
            cache_read: string;
            long_context: {
              above_input_tokens: number;
              input: string;
              output: string;
              cache_write: string;
              cache_read: string;
            }[];
            updated_at: string | null;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteModelPrice: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        provider: 'anthropic' | 'openai';
        model: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getModelProviderFallbackPrice: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the fallback price */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            provider: string;
            input: string;
            output: string;
            cache_write: string;
            cache_read: string;
            long_context: {
              above_input_tokens: number;
              input: string;
              output: string;
              cache_write: string;
              cache_read: string;
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  setModelProviderFallbackPrice: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          input: string;
          output: string;
          cache_write: string;
          cache_read: string;
          /** @default [] */
          long_context?: {
            above_input_tokens: number;
            input: string;
            output: string;
            cache_write: string;
            cache_read: string;
          }[];
        };
      };
    };
    responses: {
      /** @description the fallback price */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            provider: string;
            input: string;
            output: string;
            cache_write: string;
            cache_read: string;
            long_context: {
              above_input_tokens: number;
              input: string;
              output: string;
              cache_write: string;
              cache_read: string;
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteModelProviderFallbackPrice: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listBudgets: {
    parameters: {
      query: {
        workspace: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the budgets */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            budgets: {
              /** Format: uuid */
              id: string;
              /** Format: uuid */
              workspace: string;
              /** @enum {string} */
              level: 'run' | 'person' | 'team' | 'workspace';
              run: string | null;
              person: string | null;
              team: string | null;
              /** @enum {string} */
              period: 'day' | 'month' | 'life';
              max_usd: string | null;
              max_tokens: number | null;
              period_start: string | null;
              spent_usd: string;
              held_usd: string;
              used_tokens: number;
              held_tokens: number;
              /** Format: date-time */
              created_at: string;
              /** Format: date-time */
              updated_at: string;
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createBudget: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: uuid */
          workspace: string;
          /** @enum {string} */
          level: 'run' | 'person' | 'team' | 'workspace';
          /** Format: uuid */
          run?: string;
          /** Format: uuid */
          person?: string;
          team?: string;
          /** @enum {string} */
          period: 'day' | 'month' | 'life';
          max_usd?: string;
          max_tokens?: number;
        };
      };
    };
    responses: {
      /** @description the budget */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            /** @enum {string} */
            level: 'run' | 'person' | 'team' | 'workspace';
            run: string | null;
            person: string | null;
            team: string | null;
            /** @enum {string} */
            period: 'day' | 'month' | 'life';
            max_usd: string | null;
            max_tokens: number | null;
            period_start: string | null;
            spent_usd: string;
            held_usd: string;
            used_tokens: number;
            held_tokens: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getBudget: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the budget */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            /** @enum {string} */
            level: 'run' | 'person' | 'team' | 'workspace';
            run: string | null;
            person: string | null;
            team: string | null;
            /** @enum {string} */
            period: 'day' | 'month' | 'life';
            max_usd: string | null;
            max_tokens: number | null;
            period_start: string | null;
            spent_usd: string;
            held_usd: string;
            used_tokens: number;
            held_tokens: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  updateBudgetCaps: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          max_usd?: string | null;
          max_tokens?: number | null;
        };
      };
    };
    responses: {
      /** @description the budget */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            /** @enum {string} */
            level: 'run' | 'person' | 'team' | 'workspace';
            run: string | null;
            person: string | null;
            team: string | null;
            /** @enum {string} */
            period: 'day' | 'month' | 'life';
            max_usd: string | null;
            max_tokens: number | null;
            period_start: string | null;
            spent_usd: string;
            held_usd: string;
            used_tokens: number;
            held_tokens: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteBudget: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listEvents: {
    parameters: {
      query?: {
        after?: number;
        limit?: number;
      };
      header?: never;
      path: {
        session_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description events after `after` */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            events: {
              seq: number;
              type: string;
              at: string;
              data: {
                [key: string]: unknown;
              };
              prev_hash: string;
              hash: string;
            }[];
            next_after: number;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  verifyEvents: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        session_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the verdict */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            ok: boolean;
            events: number;
            first_broken_seq?: number;
            problem?: string;
            head: {
              seq: number;
              hash: string;
            } | null;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  streamEvents: {
    parameters: {
      query?: {
        after?: number;
      };
      header?: {
        'last-event-id'?: '' | number;
      };
      path: {
        session_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description an event stream */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listApprovals: {
    parameters: {
      query?: {
        status?: 'pending' | 'decided';
        scope?: 'mine' | 'all';
        page?: number;
        per_page?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the approvals */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'pending' | 'decided';
            /** @enum {string} */
            scope: 'mine' | 'all';
            page: number;
            per_page: number;
            total: number;
            runs: {
              /** Format: uuid */
              run_id: string;
              repository: string | null;
              /** @enum {string} */
              source_kind: 'manual' | 'schedule' | 'pull_request';
              pull_request: {
                number: number;
                url: string | null;
              } | null;
              /** @enum {string} */
              trust_tier: 'trusted' | 'read_only';
              /** Format: uuid */
              invoked_by: string;
              invoked_by_name: string;
            }[];
            approvals: {
              session_id: string;
              tool_call_id: string;
              /** Format: uuid */
              run_id: string;
              /** Format: uuid */
              workspace: string;
              tool: string;
              arguments?: {
                [key: string]: unknown;
              };
              summary?: string;
              /** @constant */
              arguments_hidden?: true;
              rule_id: string | null;
              policy_version: number;
              /** @enum {string} */
              authority: 'owner' | 'workspace_approvers';
              owner_user_id: string | null;
              /** @enum {string} */
              status: 'pending' | 'approved' | 'denied' | 'expired' | 'failed_closed';
              decision: ('allow' | 'deny') | null;
              decided_by: string | null;
              reason?: string | null;
              reason_hidden?: boolean;
              /** Format: date-time */
              requested_at: string;
              /** Format: date-time */
              expires_at: string;
              decided_at: string | null;
              may_decide: boolean;
              decided_by_name: string | null;
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getApproval: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        session_id: string;
        tool_call_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the approval */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            session_id: string;
            tool_call_id: string;
            /** Format: uuid */
            run_id: string;
            /** Format: uuid */
            workspace: string;
            tool: string;
            arguments?: {
              [key: string]: unknown;
            };
            summary?: string;
            /** @constant */
            arguments_hidden?: true;
            rule_id: string | null;
            policy_version: number;
            /** @enum {string} */
            authority: 'owner' | 'workspace_approvers';
            owner_user_id: string | null;
            /** @enum {string} */
            status: 'pending' | 'approved' | 'denied' | 'expired' | 'failed_closed';
            decision: ('allow' | 'deny') | null;
            decided_by: string | null;
            reason?: string | null;
            reason_hidden?: boolean;
            /** Format: date-time */
            requested_at: string;
            /** Format: date-time */
            expires_at: string;
            decided_at: string | null;
            may_decide: boolean;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  decideApproval: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        session_id: string;
        tool_call_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          decision: 'approve' | 'deny';
          reason?: string;
          grant?: {
            /** @default null */
            for_s?: number | null;
            /**
             * @default exact
             * @enum {string}
             */
            scope?: 'exact' | 'any_content';
          };
        };
      };
    };
    responses: {
      /** @description decided */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            outcome: 'decided';
            /** @enum {string} */
            status: 'pending' | 'approved' | 'denied' | 'expired' | 'failed_closed';
            decision: ('allow' | 'deny') | null;
            decided_by: string | null;
            decided_at: string | null;
            answer: {
              /** @enum {string} */
              status: 'decided' | 'pending_approval' | 'evaluating';
              /** @enum {string} */
              decision?: 'allow' | 'deny';
              /** @enum {string} */
              source?:
                | 'budget'
                | 'capability'
                | 'binding'
                | 'schema'
                | 'trust_tier'
                | 'policy'
                | 'approval'
                | 'unavailable';
              reason?: string;
              rule_id?: string | null;
              /** @constant */
              render?: 'tool_error';
              approval?: {
                url: string;
                expires_at: string;
              };
              result?: {
                [key: string]: unknown;
              };
            };
            /** Format: uuid */
            grant_id?: string;
          };
        };
      };
      /** @description already decided, or the run was revoked */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': {
            type: string;
            title: string;
            status: number;
            detail: string;
            errors?: {
              path: string;
              message: string;
            }[];
            /** @enum {string} */
            outcome: 'already_decided' | 'run_revoked';
            final: {
              /** @enum {string} */
              status: 'pending' | 'approved' | 'denied' | 'expired' | 'failed_closed';
              decision: ('allow' | 'deny') | null;
              decided_by: string | null;
              decided_at: string | null;
            };
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listRunGrants: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the grants */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            run_id: string;
            grants: {
              /** Format: uuid */
              grant_id: string;
              /** Format: uuid */
              run_id: string;
              tool: string;
              kind: ('exact' | 'any_content') | null;
              scope?: {
                text: string;
                arguments: {
                  [key: string]: unknown;
                };
              } | null;
              /** @constant */
              scope_hidden?: true;
              rule_id: string | null;
              policy_version: number;
              session_id: string;
              tool_call_id: string;
              /** Format: uuid */
              granted_by: string;
              granted_by_name: string;
              /** Format: date-time */
              created_at: string;
              expires_at: string | null;
              revoked_at: string | null;
              /** @enum {string} */
              state: 'active' | 'expired' | 'revoked';
              may_revoke: boolean;
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  revokeRunGrant: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        grant_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description revoked, or already ended */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            grant_id: string;
            /** Format: uuid */
            run_id: string;
            tool: string;
            kind: ('exact' | 'any_content') | null;
            scope?: {
              text: string;
              arguments: {
                [key: string]: unknown;
              };
            } | null;
            /** @constant */
            scope_hidden?: true;
            rule_id: string | null;
            policy_version: number;
            session_id: string;
            tool_call_id: string;
            /** Format: uuid */
            granted_by: string;
            granted_by_name: string;
            /** Format: date-time */
            created_at: string;
            expires_at: string | null;
            revoked_at: string | null;
            /** @enum {string} */
            state: 'active' | 'expired' | 'revoked';
            may_revoke: boolean;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createConnection: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: uuid */
          workspace: string;
          name: string;
          /** @enum {string} */
          kind: 'org' | 'personal';
          /** Format: uuid */
          owner_user_id?: string;
          /** Format: uri */
          url: string;
          credential:
            | {
                /** @constant */
                type: 'bearer';
                token: string;
                /** @description the server is inside the operator's network though its URL names a host: the name may resolve to an inside address (private or loopback), and what its servers name may be inside too */
                private_network?: boolean;
              }
            | {
                /** @constant */
                type: 'oauth';
                scopes?: string[];
                client_id?: string;
                client_secret?: string;
                /** @description the server is inside the operator's network though its URL names a host: the name may resolve to an inside address (private or loopback), and what its servers name may be inside too */
                private_network?: boolean;
              };
        } & (
          | {
              /** @constant */
              kind?: 'personal';
            }
          | {
              /** @constant */
              kind?: 'org';
            }
        );
      };
    };
    responses: {
      /** @description registered */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            name: string;
            /** @enum {string} */
            kind: 'org' | 'personal';
            owner_user_id: string | null;
            url: string;
            /** @enum {string} */
            status: 'awaiting_authorization' | 'active' | 'needs_reauthorization' | 'revoked';
            status_reason?: string;
            /** @enum {string} */
            credential_type: 'bearer' | 'oauth';
            scopes?: string[];
            auth_generation: number;
            tools: {
              name: string;
              mcp_name?: string;
              /** @enum {string} */
              effect: 'read' | 'write';
              digest: string;
              callable: boolean;
              uncallable_reason?: string;
            }[];
            unusable: {
              mcp_name: string;
              reason: string;
            }[];
            digest: string;
            /** Format: date-time */
            photographed_at: string;
            last_used_at: string | null;
            authorize_url?: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getConnection: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the connection */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            name: string;
            /** @enum {string} */
            kind: 'org' | 'personal';
            owner_user_id: string | null;
            url: string;
            /** @enum {string} */
            status: 'awaiting_authorization' | 'active' | 'needs_reauthorization' | 'revoked';
            status_reason?: string;
            /** @enum {string} */
            credential_type: 'bearer' | 'oauth';
            scopes?: string[];
            auth_generation: number;
            tools: {
              name: string;
              mcp_name?: string;
              /** @enum {string} */
              effect: 'read' | 'write';
              digest: string;
              callable: boolean;
              uncallable_reason?: string;
            }[];
            unusable: {
              mcp_name: string;
              reason: string;
            }[];
            digest: string;
            /** Format: date-time */
            photographed_at: string;
            last_used_at: string | null;
            authorize_url?: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  revokeConnection: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description revoked */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: 'awaiting_authorization' | 'active' | 'needs_reauthorization' | 'revoked';
            revoked_at_server: boolean;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  refreshConnectionTools: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the new photograph */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            name: string;
            /** @enum {string} */
            kind: 'org' | 'personal';
            owner_user_id: string | null;
            url: string;
            /** @enum {string} */
            status: 'awaiting_authorization' | 'active' | 'needs_reauthorization' | 'revoked';
            status_reason?: string;
            /** @enum {string} */
            credential_type: 'bearer' | 'oauth';
            scopes?: string[];
            auth_generation: number;
            tools: {
              name: string;
              mcp_name?: string;
              /** @enum {string} */
              effect: 'read' | 'write';
              digest: string;
              callable: boolean;
              uncallable_reason?: string;
            }[];
            unusable: {
              mcp_name: string;
              reason: string;
            }[];
            digest: string;
            /** Format: date-time */
            photographed_at: string;
            last_used_at: string | null;
            authorize_url?: string;
            added: string[];
            withdrawn: string[];
            changed: string[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  reauthorizeConnection: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          credential:
            | {
                /** @constant */
                type: 'bearer';
                token: string;
                /** @description the server is inside the operator's network though its URL names a host: the name may resolve to an inside address (private or loopback), and what its servers name may be inside too */
                private_network?: boolean;
              }
            | {
                /** @constant */
                type: 'oauth';
                /** @description the server is inside the operator's network though its URL names a host: the name may resolve to an inside address (private or loopback), and what its servers name may be inside too */
                private_network?: boolean;
              };
        };
      };
    };
    responses: {
      /** @description reauthorised */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            auth_generation: number;
            /** @enum {string} */
            status?: 'awaiting_authorization' | 'active' | 'needs_reauthorization' | 'revoked';
            authorize_url?: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  codecEncode: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          payloads: {
            metadata?: {
              [key: string]: string;
            };
            /** Format: byte */
            data?: string;
          }[];
        };
      };
    };
    responses: {
      /** @description the payloads */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            payloads: {
              metadata: {
                [key: string]: string;
              };
              data: string;
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  codecEncodePreflight: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the allowed methods and headers */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  codecDecode: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          payloads: {
            metadata?: {
              [key: string]: string;
            };
            /** Format: byte */
            data?: string;
          }[];
        };
      };
    };
    responses: {
      /** @description the payloads */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            payloads: {
              metadata: {
                [key: string]: string;
              };
              data: string;
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  codecDecodePreflight: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the allowed methods and headers */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listWebhooks: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the endpoints */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            webhooks: {
              /** Format: uuid */
              id: string;
              /** Format: uuid */
              workspace: string;
              url: string;
              events: ('approval.requested' | 'approval.decided')[];
              include_arguments: boolean;
              /** Format: date-time */
              created_at: string;
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: uri */
          url: string;
          secret?: string;
          /**
           * @default [
           *       "approval.requested",
           *       "approval.decided"
           *     ]
           */
          events?: ('approval.requested' | 'approval.decided')[];
          /** @default false */
          include_arguments?: boolean;
        };
      };
    };
    responses: {
      /** @description created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            url: string;
            events: ('approval.requested' | 'approval.decided')[];
            include_arguments: boolean;
            /** Format: date-time */
            created_at: string;
            secret?: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description deleted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listWebhookDeliveries: {
    parameters: {
      query?: {
        limit?: number;
      };
      header?: never;
      path: {
        ws: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the deliveries */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            deliveries: {
              /** Format: uuid */
              id: string;
              /** Format: uuid */
              endpoint_id: string;
              /** @enum {string} */
              event: 'approval.requested' | 'approval.decided';
              session_id: string;
              tool_call_id: string;
              /** @enum {string} */
              status: 'pending' | 'delivered' | 'failed';
              attempts: number;
              last_status: number | null;
              last_error: string | null;
              last_attempt_at: string | null;
              delivered_at: string | null;
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listRunProfiles: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the profiles */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            run_profiles: {
              /** Format: uuid */
              id: string;
              /** Format: uuid */
              workspace: string;
              name: string;
              description: string;
              /** Format: uuid */
              policy_id: string;
              tools: {
                bundles: string[];
                connections: {
                  /** Format: uuid */
                  id: string;
                  tools?: string[];
                }[];
              };
              budget: {
                max_tokens: number;
              };
              /** @enum {string} */
              autonomy: 'supervised' | 'autonomous';
              /** @enum {string} */
              trust_tier: 'trusted' | 'read_only';
              model_provider: string | null;
              /** Format: date-time */
              created_at: string;
              /** Format: date-time */
              updated_at: string;
            }[];
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createRunProfile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string;
          /** @default  */
          description?: string;
          /** Format: uuid */
          policy_id: string;
          tools: {
            /** @default [] */
            bundles?: string[];
            /** @default [] */
            connections?: {
              /** Format: uuid */
              id: string;
              tools?: string[];
            }[];
          };
          budget: {
            max_tokens: number;
          };
          /** @enum {string} */
          autonomy: 'supervised' | 'autonomous';
          /**
           * @default trusted
           * @enum {string}
           */
          trust_tier?: 'trusted' | 'read_only';
          /** Format: uuid */
          model_provider?: string;
        };
      };
    };
    responses: {
      /** @description created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            name: string;
            description: string;
            /** Format: uuid */
            policy_id: string;
            tools: {
              bundles: string[];
              connections: {
                /** Format: uuid */
                id: string;
                tools?: string[];
              }[];
            };
            budget: {
              max_tokens: number;
            };
            /** @enum {string} */
            autonomy: 'supervised' | 'autonomous';
            /** @enum {string} */
            trust_tier: 'trusted' | 'read_only';
            model_provider: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getRunProfile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the profile */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            name: string;
            description: string;
            /** Format: uuid */
            policy_id: string;
            tools: {
              bundles: string[];
              connections: {
                /** Format: uuid */
                id: string;
                tools?: string[];
              }[];
            };
            budget: {
              max_tokens: number;
            };
            /** @enum {string} */
            autonomy: 'supervised' | 'autonomous';
            /** @enum {string} */
            trust_tier: 'trusted' | 'read_only';
            model_provider: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  replaceRunProfile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string;
          /** @default  */
          description?: string;
          /** Format: uuid */
          policy_id: string;
          tools: {
            /** @default [] */
            bundles?: string[];
            /** @default [] */
            connections?: {
              /** Format: uuid */
              id: string;
              tools?: string[];
            }[];
          };
          budget: {
            max_tokens: number;
          };
          /** @enum {string} */
          autonomy: 'supervised' | 'autonomous';
          /**
           * @default trusted
           * @enum {string}
           */
          trust_tier?: 'trusted' | 'read_only';
          /** Format: uuid */
          model_provider?: string;
        };
      };
    };
    responses: {
      /** @description the profile as it is now */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace: string;
            name: string;
            description: string;
            /** Format: uuid */
            policy_id: string;
            tools: {
              bundles: string[];
              connections: {
                /** Format: uuid */
                id: string;
                tools?: string[];
              }[];
            };
            budget: {
              max_tokens: number;
            };
            /** @enum {string} */
            autonomy: 'supervised' | 'autonomous';
            /** @enum {string} */
            trust_tier: 'trusted' | 'read_only';
            model_provider: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
          };
        };
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteRunProfile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ws: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description deleted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error (RFC 9457 problem details) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  createMessage: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the provider answer, or its event stream */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
          'text/event-stream': string;
        };
      };
      /** @description an error, in the Anthropic API's shape */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            type: 'error';
            error: {
              type: string;
              message: string;
            };
          };
        };
      };
    };
  };
  countMessageTokens: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the count */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
          'text/event-stream': string;
        };
      };
      /** @description an error, in the Anthropic API's shape */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            type: 'error';
            error: {
              type: string;
              message: string;
            };
          };
        };
      };
    };
  };
  createChatCompletion: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the provider answer, or its event stream */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
          'text/event-stream': string;
        };
      };
      /** @description an error, in OpenAI's shape */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              message: string;
              type: string;
              param?: string | null;
              code?: string | null;
            };
          };
        };
      };
    };
  };
  createResponse: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the provider answer, or its event stream */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
          'text/event-stream': string;
        };
      };
      /** @description an error, in OpenAI's shape */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              message: string;
              type: string;
              param?: string | null;
              code?: string | null;
            };
          };
        };
      };
    };
  };
  approvalsScript: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The pages' script */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/javascript': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  approvalsStylesheet: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The pages' stylesheet */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/css': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  loginPage: {
    parameters: {
      query?: {
        next?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed in already: on to the approvals */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  login: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf: string;
          token?: string;
          next?: string;
        };
      };
    };
    responses: {
      /** @description signed in */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description neither a user token nor the operator key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description a suspended membership, token sign-in switched off, or a post from elsewhere */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description too many wrong tokens from this address; Retry-After says when to try again */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  logout: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf?: string;
        };
      };
    };
    responses: {
      /** @description signed out */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  oidcSignIn: {
    parameters: {
      query?: {
        next?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description to the provider's authorization endpoint */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description no identity provider is configured */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description too many sign-ins started from this address; Retry-After says when */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description the provider could not be reached */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  oidcCallback: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description signed in; the page moves on to the approvals */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description the sign-in was refused, and why */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed in, but no group gives a role here */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  personalTokensPage: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed out: to the sign-in page, and back here after it */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  mintPersonalToken: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf: string;
          name: string;
          days: number;
        };
      };
    };
    responses: {
      /** @description the token, this once, and the list */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  revokePersonalToken: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf: string;
        };
      };
    };
    responses: {
      /** @description revoked; back to the list */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  approvalsPage: {
    parameters: {
      query?: {
        view?: 'mine' | 'all' | 'decided';
        page?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed out: to the sign-in page, and back here after it */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  approvalsListFragment: {
    parameters: {
      query?: {
        view?: 'mine' | 'all' | 'decided';
        page?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the rows */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  approvalPage: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        session_id: string;
        tool_call_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed out: to the sign-in page, and back here after it */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  approvalFormDecision: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        session_id: string;
        tool_call_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf: string;
          /** @enum {string} */
          decision: 'approve' | 'deny';
          reason?: string;
          /**
           * @default none
           * @enum {string}
           */
          grant_for?: '900' | '3600' | '28800' | 'none' | 'run';
          /**
           * @default exact
           * @enum {string}
           */
          grant_scope?: 'exact' | 'any_content';
        };
      };
    };
    responses: {
      /** @description decided: the approval, saying so */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description a standing approval the gate does not offer: the approval, saying so */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description already decided, or the run was revoked: the approval, saying so */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  approvalsStream: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description an event stream */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  simulationPage: {
    parameters: {
      query: {
        version: number;
        since?: string;
        until?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed out: to the sign-in page, and back here after it */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  connectionsPage: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed out: to the sign-in page, and back here after it */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  connectionAuthorizePage: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed out: to the sign-in page, and back here after it */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  connectionAuthorizeStart: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf: string;
        };
      };
    };
    responses: {
      /** @description a page sending the browser on */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  connectionOAuthCallback: {
    parameters: {
      query?: {
        code?: string;
        state?: string;
        error?: string;
        error_description?: string;
        iss?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the outcome, or a page to finish from */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  connectionOAuthFinish: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          code: string;
          state: string;
          iss?: string;
        };
      };
    };
    responses: {
      /** @description the outcome */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  connectionDisconnect: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf: string;
        };
      };
    };
    responses: {
      /** @description the connections, with the outcome */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  runPage: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        run_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed out: to the sign-in page, and back here after it */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  revokeGrantForm: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        run_id: string;
        grant_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf: string;
        };
      };
    };
    responses: {
      /** @description revoked, or already ended: the run page, saying so */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description not a decider of its calls */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  oauthAuthorize: {
    parameters: {
      query?: {
        response_type?: string;
        client_id?: string;
        redirect_uri?: string;
        code_challenge?: string;
        code_challenge_method?: string;
        state?: string;
        scope?: string;
        resource?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description to the consent page */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description refused on this page, never sent on to the client: an unknown client, a redirect_uri it did not register, or a request without PKCE (S256), of another response type or for another resource */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description too many authorizations started from this address */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  oauthConsentPage: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed out: to the sign-in page, and back here after it */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description no such request */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  oauthConsent: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf: string;
          /** @enum {string} */
          decision: 'allow' | 'deny';
          /** Format: uuid */
          profile?: string;
        };
      };
    };
    responses: {
      /** @description back to the client, with a code or access_denied */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description no profile picked, or one not of your workspace */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description the request was answered already or expired */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  runProfilesPage: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description signed out: to the sign-in page, and back here after it */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description not an admin */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  createRunProfileForm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf: string;
          name: string;
          /** @default  */
          description?: string;
          /** Format: uuid */
          policy_id: string;
          max_tokens: number;
          /** @enum {string} */
          autonomy: 'supervised' | 'autonomous';
          /** @enum {string} */
          trust_tier: 'trusted' | 'read_only';
        } & {
          [key: string]: 'on';
        };
      };
    };
    responses: {
      /** @description created; the list */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description a field is not valid, named */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description not an admin */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  deleteRunProfileForm: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          csrf: string;
        };
      };
    };
    responses: {
      /** @description deleted; back to the list */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description not an admin */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description an error, as a page */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': unknown;
        };
      };
    };
  };
  mcpProtectedResourceMetadata: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the metadata */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            resource: string;
            authorization_servers: string[];
            bearer_methods_supported: string[];
            resource_name: string;
            resource_documentation?: string;
          };
        };
      };
      /** @description an error, in OAuth's shape (RFC 6749 §5.2) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: string;
            error_description?: string;
          };
        };
      };
    };
  };
  oauthAuthorizationServerMetadata: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the metadata */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            issuer: string;
            authorization_endpoint: string;
            token_endpoint: string;
            registration_endpoint: string;
            revocation_endpoint: string;
            response_types_supported: string[];
            grant_types_supported: string[];
            code_challenge_methods_supported: string[];
            token_endpoint_auth_methods_supported: string[];
            revocation_endpoint_auth_methods_supported: string[];
            authorization_response_iss_parameter_supported: boolean;
            service_documentation?: string;
          };
        };
      };
      /** @description an error, in OAuth's shape (RFC 6749 §5.2) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: string;
            error_description?: string;
          };
        };
      };
    };
  };
  oauthRegisterClient: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          [key: string]: unknown;
        };
      };
    };
    responses: {
      /** @description registered */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description invalid_redirect_uri or invalid_client_metadata, naming the field */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: string;
            error_description?: string;
          };
        };
      };
      /** @description too many registrations from this address */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: string;
            error_description?: string;
          };
        };
      };
      /** @description an error, in OAuth's shape (RFC 6749 §5.2) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: string;
            error_description?: string;
          };
        };
      };
    };
  };
  oauthToken: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          grant_type: string;
          code?: string;
          code_verifier?: string;
          redirect_uri?: string;
          refresh_token?: string;
          resource?: string;
          scope?: string;
          client_id?: string;
          client_secret?: string;
        };
      };
    };
    responses: {
      /** @description the run’s access token and a new refresh token */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            access_token: string;
            /** @constant */
            token_type: 'Bearer';
            expires_in: number;
            refresh_token: string;
            scope?: string;
          };
        };
      };
      /** @description invalid_request, invalid_grant, unsupported_grant_type, … */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: string;
            error_description?: string;
          };
        };
      };
      /** @description invalid_client */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: string;
            error_description?: string;
          };
        };
      };
      /** @description an error, in OAuth's shape (RFC 6749 §5.2) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: string;
            error_description?: string;
          };
        };
      };
    };
  };
  oauthRevoke: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          token: string;
          token_type_hint?: string;
          client_id?: string;
          client_secret?: string;
        };
      };
    };
    responses: {
      /** @description revoked, or nothing to revoke */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid_client */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: string;
            error_description?: string;
          };
        };
      };
      /** @description an error, in OAuth's shape (RFC 6749 §5.2) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: string;
            error_description?: string;
          };
        };
      };
    };
  };
}
