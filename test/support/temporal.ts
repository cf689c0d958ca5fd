import type { Client } from '@temporalio/client';
import { temporalClient } from '../../src/temporal/connections.js';
import { testConfig } from './env.js';

/** A Temporal client of the test stack that opens the gate's encrypted payloads. */
export function testTemporalClient(): Client {
  const config = testConfig();
  return temporalClient(config.temporal, config.payloadKeys);
}
