/**
 * Operators' policy tools.
 *
 *   npm run policy -- simulate <policy-id> (--candidate <file.json> | --version N)
 *       [--since <ISO time>] [--until <ISO time>] [--session <id>]... [--limit N]
 *       [--from <folder>]
 *     prints, as JSON, what the candidate would have decided on the policy's recorded calls: the
 *     answer of POST /v1/policies/{id}/simulate. Reads Temporal's histories in the window, or
 *     with --from the `.pb` files `npm run histories export` wrote; the frozen runs from
 *     PostgreSQL. Argument values of changed calls are printed: this is the operator's tool.
 *
 * Connects to DATABASE_URL and TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (default: the dev stack).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  simulatePolicy,
  type RecordedCalls,
  type SimulationResult,
} from '../src/application/simulate-policy.js';
import { SimulationThreads } from '../src/application/simulation-thread.js';
import { simulateBody, simulationRequest } from '../src/api/routes/policies.js';
import { configOrExit, type GateConfig } from '../src/config.js';
import { createPool } from '../src/store/pool.js';
import { temporalClient } from '../src/temporal/connections.js';
import { EncryptionCodec } from '../src/temporal/payload-codec.js';
import {
  recordedCallsFromFiles,
  recordedCallsFromTemporal,
} from '../src/temporal/recorded-calls.js';
import { withDevStackDefaults } from './devstack/stack-environment.js';

/** The CLI has the operator's time: longer than the API's answer. */
const cliDeadlineMs = 5 * 60_000;

export class PolicyCommandError extends Error {
  override name = 'PolicyCommandError';
}

export interface SimulateOptions {
  policyId: string;
  /** The request body, as POST /v1/policies/{id}/simulate takes it. */
  body: Record<string, unknown>;
  /** A folder of exported histories, instead of Temporal. */
  from?: string;
}

/** One simulation, as the API runs it but with the operator's view, from Temporal or files. */
export async function simulateCommand(
  options: SimulateOptions,
  config: Pick<GateConfig, 'databaseUrl' | 'temporal' | 'payloadKeys'>,
): Promise<SimulationResult> {
  const parsed = simulateBody.safeParse(options.body);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new PolicyCommandError(`the simulation is not valid: ${fields.join('; ')}`);
  }
  const codec = new EncryptionCodec(config.payloadKeys);
  const pool = createPool(config.databaseUrl, { max: 4 });
  const source = recordedSource(options.from, config, codec);
  // One simulation: its thread is not kept for another.
  const threads = new SimulationThreads(1);
  try {
    return await simulatePolicy(
      pool,
      source.read,
      simulationRequest(options.policyId, parsed.data),
      {},
      { deadlineMs: cliDeadlineMs, threads },
    );
  } finally {
    await threads.close();
    await pool.end();
    await source.close();
  }
}

function recordedSource(
  folder: string | undefined,
  config: Pick<GateConfig, 'temporal' | 'payloadKeys'>,
  codec: EncryptionCodec,
): { read: RecordedCalls; close: () => Promise<void> } {
  if (folder !== undefined) {
    return {
      read: (window, signal) => recordedCallsFromFiles(folder, codec, window, signal),
      close: () => Promise.resolve(),
    };
  }
  const client = temporalClient(config.temporal, config.payloadKeys);
  return {
    read: (window, signal) => recordedCallsFromTemporal(client, codec, window, signal),
    close: () => client.connection.close(),
  };
}

/** The command line as a simulation's options. */
export function simulateOptionsOf(args: string[]): SimulateOptions {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      candidate: { type: 'string' },
      version: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      session: { type: 'string', multiple: true },
      limit: { type: 'string' },
      from: { type: 'string' },
    },
  });
  const [command, policyId] = positionals;
  if (command !== 'simulate' || !policyId) {
    throw new PolicyCommandError(
      'usage: policy simulate <policy-id> (--candidate <file.json> | --version N) [--since T] [--until T] [--session ID]... [--limit N] [--from <folder>]',
    );
  }
  const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));
  const body = {
    ...(values.candidate && {
      candidate: JSON.parse(readFileSync(values.candidate, 'utf8')) as unknown,
    }),
    ...(values.version && { version: number(values.version) }),
    ...(values.since && { since: values.since }),
    ...(values.until && { until: values.until }),
    ...(values.session && { sessions: values.session }),
    ...(values.limit && { limit: number(values.limit) }),
  };
  return { policyId, body, ...(values.from && { from: values.from }) };
}

async function main() {
  try {
    const options = simulateOptionsOf(process.argv.slice(2));
    const result = await simulateCommand(options, configOrExit(withDevStackDefaults()));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (err) {
    if (!(err instanceof PolicyCommandError) && !(err instanceof SyntaxError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
}

if (
  process.argv[1] &&
  path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)
) {
  await main();
}
