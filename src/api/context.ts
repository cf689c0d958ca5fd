import type { SimulationBounds } from '../application/simulate-policy.js';
import type { ToolCalls } from '../application/tool-call/tool-calls.js';
import type { HttpBounds, WebSignIn } from '../config.js';
import type { Resolve } from '../broker/address-reach.js';
import type { CredentialSealer } from '../broker/sealing.js';
import type { ModelProxyLimits } from '../config.js';
import type { Pool } from '../store/pool.js';
import type { GateWorkflowClient } from '../temporal/gate-workflow-client.js';
import type { EncryptionCodec } from '../temporal/payload-codec.js';
import type { Authenticator } from './auth.js';
import type { CallerSlots } from './caller-slots.js';
import type { GateMetrics } from './metrics.js';
import type { WaitNotifications } from './wait-notifications.js';
import type { OidcRelyingParty } from './web/oidc-relying-party.js';

/** What every route needs. One per API process. */
export interface ApiContext {
  pool: Pool;
  /**
   * Connections of their own for settling proxied model requests. A burst of admissions, each
   * waiting on its levels' rows, can hold every connection of `pool`; a settlement releases a
   * hold (and ends its client's answer), so it never queues behind them.
   */
  settlements: Pool;
  gate: GateWorkflowClient;
  /** A tool call's one door: its request, its wait and its answer, for every entrance. */
  toolCalls: ToolCalls;
  publicUrl: string;
  auth: Authenticator;
  metrics: GateMetrics;
  /** Wakes waits and event streams (LISTEN/NOTIFY, fanned out in process). */
  notifications: WaitNotifications;
  /** What each caller holds open: waits and streams, capped. */
  slots: CallerSlots;
  sealer: CredentialSealer;
  /** How the broker resolves the host names of connections' servers. */
  resolve: Resolve;
  /** What the HTTP server allows a client: request, idle and stream bounds. */
  http: HttpBounds;
  /** The bounds of one proxied model request. */
  modelProxy: ModelProxyLimits;
  /** Temporal's payload encryption, served to the Temporal UI at /codec. */
  codec: EncryptionCodec;
  /** Browser origins allowed to call /codec (the Temporal UI's). */
  codecCorsOrigins: readonly string[];
  /** How people sign in to the web app, and how long a sign-in lasts. */
  web: WebSignIn;
  /** The company's identity provider; undefined when sign-in is by token only. */
  oidc: OidcRelyingParty | undefined;
  /** How long a plain `tools/call` on `/mcp` waits for a person before "call again". */
  mcpApprovalWaitMs: number;
  /** How long a simulation may run, and the threads that evaluate candidates, a few at once. */
  simulation: SimulationBounds;
}
