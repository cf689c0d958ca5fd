/**
 * Operators' history tools.
 *
 *   npm run histories -- export <folder> [--query "<visibility query>"] [--limit N]
 *       writes the histories of closed gate workflows to <folder>, one protobuf file each
 *       (`temporal.api.history.v1.History`, payloads as stored: ciphertext), which `replay` and
 *       `npm run policy -- simulate --from <folder>` read;
 *   npm run histories -- replay <folder>
 *       replays every history in <folder> against the current workflow code and fails on any
 *       nondeterminism: run it after a deploy, in an incident, and in CI.
 *
 * Connects to TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (default: the dev stack).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import proto from '@temporalio/proto';

const { temporal } = proto;
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { configOrExit, type GateConfig } from '../src/config.js';
import { withDevStackDefaults } from './devstack/stack-environment.js';
import { gateDataConverter, temporalClient } from '../src/temporal/connections.js';
import type { PayloadKey } from '../src/domain/secrets/payload-keys.js';
import { listedHistories } from '../src/temporal/recorded-calls.js';
import { workflowsPath } from '../src/worker.js';
import { gateWorkflowType } from '../src/workflows/messages.js';

export async function exportHistories(
  folder: string,
  query: string,
  limit: number,
  config: Pick<GateConfig, 'temporal' | 'payloadKeys'> = configOrExit(withDevStackDefaults()),
): Promise<number> {
  // Exported as stored: the payloads stay ciphertext; replay opens them with the keys.
  const client = temporalClient(config.temporal, config.payloadKeys);
  try {
    mkdirSync(folder, { recursive: true });
    let written = 0;
    for await (const { workflowId, runId, history } of listedHistories(client, query)) {
      if (written >= limit) break;
      const name = `${workflowId.replace(/[^A-Za-z0-9._-]/g, '_')}.${runId}.pb`;
      // Protobuf binary: exact, and independent of any JSON rendering of the history.
      writeFileSync(
        path.join(folder, name),
        temporal.api.history.v1.History.encode(history).finish(),
      );
      written += 1;
    }
    return written;
  } finally {
    await client.connection.close();
  }
}

/** Replays with the workflow code at `workflowsPath`, or with a bundle of it built beforehand. */
export async function replayHistories(
  folder: string,
  workflowBundle?: WorkflowBundleOption,
  keys: readonly PayloadKey[] = configOrExit(withDevStackDefaults()).payloadKeys,
): Promise<{ replayed: number; failures: string[] }> {
  const files = readdirSync(folder)
    .filter((f) => f.endsWith('.pb'))
    .sort();
  const histories = files.map((file) => ({
    workflowId: file,
    history: temporal.api.history.v1.History.decode(readFileSync(path.join(folder, file))),
  }));
  const failures: string[] = [];
  let replayed = 0;
  const code = workflowBundle ? { workflowBundle } : { workflowsPath };
  const options = { ...code, dataConverter: gateDataConverter(keys) };
  for await (const result of Worker.runReplayHistories(options, histories)) {
    replayed += 1;
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return { replayed, failures };
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { query: { type: 'string' }, limit: { type: 'string' } },
  });
  const [command, folder] = positionals;
  if ((command !== 'export' && command !== 'replay') || !folder) {
    process.stderr.write(
      'usage: histories export <folder> [--query Q] [--limit N] | histories replay <folder>\n',
    );
    process.exit(2);
  }
  if (command === 'export') {
    const query =
      values.query ?? `WorkflowType = '${gateWorkflowType}' AND ExecutionStatus != 'Running'`;
    const written = await exportHistories(folder, query, Number(values.limit ?? 1000));
    process.stdout.write(`exported ${written} histories to ${folder}\n`);
    return;
  }
  const { replayed, failures } = await replayHistories(folder);
  for (const failure of failures) process.stderr.write(`nondeterministic: ${failure}\n`);
  process.stdout.write(`replayed ${replayed} histories, ${failures.length} failed\n`);
  process.exit(failures.length === 0 && replayed > 0 ? 0 : 1);
}

if (
  process.argv[1] &&
  path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)
) {
  await main();
}
