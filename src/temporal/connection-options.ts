import type { TemporalConfig } from '../config.js';

/**
 * How every process of the gate reaches Temporal: the API's client, the worker's native
 * connection and the operators' history tools all connect with these options.
 */
export function connectionOptions(config: TemporalConfig): { address: string } {
  return { address: config.address };
}
