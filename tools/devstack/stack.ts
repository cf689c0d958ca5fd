import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { migrateUp } from '../../src/store/migrate.js';
import { startProcess, waitFor, type ManagedProcess } from './child-process.js';
import {
  clusterDataDir,
  ensurePostgresCluster,
  startedPostgresUrl,
  stopPostgresCluster,
} from './postgres-cluster.js';
import { loadStackConfig, projectRoot, stackProfile, type StackProfile } from './stack-config.js';
import { payloadKeys, sealingKey } from './stack-keys.js';
import { stackEnvironment } from './stack-environment.js';
import { ensureTemporalCli, startTemporalServer } from './temporal-server.js';
import { letPhotographsReachProject } from './photograph-reach.js';
import { nodeEntryArgs } from './node-entry.js';

export interface Stack {
  profile: StackProfile;
  temporalBinary: string;
  databaseUrl: string;
  /** The environment the worker, the API and the tests run with. */
  env: NodeJS.ProcessEnv;
  temporal: ManagedProcess;
  stop(): Promise<void>;
}

/**
 * A stack's profile and the variables its processes get, known before anything starts (the
 * database's URL is where a cluster started here will be; a cluster found running may differ).
 */
export interface StackPlan {
  profile: StackProfile;
  variables: Record<string, string>;
}

export function planStack(name: 'dev' | 'test'): StackPlan {
  // Before any path is chosen (the database URL names the cluster's socket): PostgreSQL's data
  // folder stays in the project once reachable, and every process then agrees where it is.
  letPhotographsReachProject();
  const profile = stackProfile(loadStackConfig(), name);
  const databaseUrl = process.env.DATABASE_URL ?? startedPostgresUrl(profile);
  return {
    profile,
    variables: {
      ...stackEnvironment(profile, databaseUrl),
      GATE_SEALING_KEY: sealingKey(profile),
      GATE_PAYLOAD_KEYS: payloadKeys(profile),
      GATE_OPERATOR_KEY:
        process.env.GATE_OPERATOR_KEY ?? `fgo_${randomBytes(24).toString('base64url')}`,
    },
  };
}

/**
 * Starts PostgreSQL (unless DATABASE_URL names a server), applies migrations, and starts the
 * Temporal dev server, all as temporal-dev.yaml describes for the profile.
 */
export async function startStack(
  name: 'dev' | 'test',
  {
    fresh = false,
    quietTemporal = false,
    plan = planStack(name),
    postgresSettings = {},
  }: {
    fresh?: boolean;
    quietTemporal?: boolean;
    plan?: StackPlan;
    /** Server options for a cluster this call starts. */
    postgresSettings?: Record<string, string>;
  } = {},
): Promise<Stack> {
  const { profile, variables } = plan;
  const temporalBinary = await ensureTemporalCli(profile.cliVersion);
  if (fresh) await wipeData(profile);

  const postgres = process.env.DATABASE_URL
    ? undefined
    : await ensurePostgresCluster(profile, { settings: postgresSettings });
  const databaseUrl = process.env.DATABASE_URL ?? postgres?.url ?? '';
  const stopAll: (() => Promise<void>)[] = [];
  if (postgres) stopAll.push(() => postgres.stop());
  try {
    await migrateUp(databaseUrl, name === 'dev');
    const temporal = await startTemporalServer(temporalBinary, profile, { quiet: quietTemporal });
    stopAll.unshift(() => temporal.stop('SIGTERM', 15_000));
    return {
      profile,
      temporalBinary,
      databaseUrl,
      env: { ...process.env, ...variables, DATABASE_URL: databaseUrl },
      temporal,
      stop: async () => {
        for (const stop of stopAll)
          await stop().catch((err: unknown) => process.stderr.write(`${String(err)}\n`));
      },
    };
  } catch (err) {
    for (const stop of stopAll) await stop().catch(() => undefined);
    throw err;
  }
}

/** A test run starts from nothing: a cluster left running by a crashed run is stopped first. */
async function wipeData(profile: StackProfile) {
  const dataDir = clusterDataDir(profile);
  if (existsSync(path.join(dataDir, 'postmaster.pid'))) {
    await stopPostgresCluster(profile, 'immediate').catch(() => undefined);
  }
  rmSync(dataDir, { recursive: true, force: true });
  for (const suffix of ['', '-wal', '-shm'])
    rmSync(profile.temporal.sqliteFile + suffix, { force: true });
}

/** Starts one of the project's own entry points (worker, API) as a child process. */
export function startNodeProcess(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  {
    quiet = false,
    capture,
    args = [],
  }: { quiet?: boolean; capture?: string[]; args?: string[] } = {},
): ManagedProcess {
  const argv = [...nodeEntryArgs(path.join(projectRoot, entry), env), ...args];
  return startProcess(name, process.execPath, argv, {
    env,
    cwd: projectRoot,
    quiet,
    ...(capture && { capture }),
  });
}

export async function waitHttpOk(url: string, timeoutMs = 60_000) {
  await waitFor(
    url,
    async () => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`status ${response.status}`);
    },
    { timeoutMs },
  );
}
