import type { Client } from '@temporalio/client';
import type { CredentialSealer } from '../broker/sealing.js';
import type { Pool } from '../store/pool.js';
import type { Authenticator } from './auth.js';
import type { LedgerNotifier } from './ledger-notifier.js';
import type { GateMetrics } from './metrics.js';

/** What every route needs. One per API process. */
export interface ApiContext {
  pool: Pool;
  temporal: Client;
  taskQueue: string;
  publicUrl: string;
  auth: Authenticator;
  metrics: GateMetrics;
  ledger: LedgerNotifier;
  sealer: CredentialSealer;
  /** Best-effort work started after a response (wake-up signals), awaited before closing. */
  inFlight: Set<Promise<unknown>>;
  /** How long a PUT waits for the gate before asking the runner to send it again. */
  gateWaitMs: number;
  /** How often a paused call re-reads its approval row when no signal arrives. */
  approvalRecheckS: number;
  /** How the cheap stages run: local activities, or regular ones on any worker. */
  stageActivities: 'local' | 'remote';
  /** The bounds of one proxied model request. */
  modelProxy: { idleTimeoutMs: number; totalTimeoutMs: number };
}
