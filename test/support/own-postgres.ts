/**
 * A PostgreSQL cluster of a test file's own: on a free port, in a folder of its own, migrated.
 * The files that stop or freeze PostgreSQL stop theirs, so they run beside the other files while
 * the run's shared cluster stays up.
 */
import { chmodSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrateUp } from '../../src/store/migrate.js';
import { createPool } from '../../src/store/pool.js';
import { isRunning } from '../../tools/devstack/child-process.js';
import { freeLoopbackPort } from '../../tools/devstack/free-port.js';
import {
  clusterDataDir,
  ensurePostgresCluster,
  stopPostgresCluster,
} from '../../tools/devstack/postgres-cluster.js';
import {
  loadStackConfig,
  stackProfile,
  type StackProfile,
} from '../../tools/devstack/stack-config.js';

export type OwnPostgres = Awaited<ReturnType<typeof ownPostgresCluster>>;

/** A cluster's folder is named after the test process that made it. */
const folderPrefix = 'gate-pg-';

function profileIn(folder: string, port: number): StackProfile {
  const base = stackProfile(loadStackConfig(), 'test');
  return { ...base, postgres: { ...base.postgres, port, dataDir: path.join(folder, 'cluster') } };
}

/**
 * Whether the pid in the cluster's `postmaster.pid` is that cluster's server (its working folder
 * is the cluster's): a pid left by a killed server may be another process's by now.
 */
function postmasterRunsIn(dataDir: string): boolean {
  try {
    const pid = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0];
    return realpathSync(`/proc/${pid}/cwd`) === realpathSync(dataDir);
  } catch {
    return false;
  }
}

/** Clusters whose test process is gone (a run interrupted): stopped and removed. */
async function removeAbandoned(): Promise<void> {
  for (const name of readdirSync(tmpdir())) {
    const owner = new RegExp(`^${folderPrefix}(\\d+)-`).exec(name)?.[1];
    if (owner === undefined || isRunning(Number(owner))) continue;
    const folder = path.join(tmpdir(), name);
    if (postmasterRunsIn(path.join(folder, 'cluster')))
      await stopPostgresCluster(profileIn(folder, 0), 'immediate').catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Starts the cluster and applies the migrations; `close` stops it and removes its folder. */
export async function ownPostgresCluster() {
  await removeAbandoned();
  const folder = mkdtempSync(path.join(tmpdir(), `${folderPrefix}${process.pid}-`));
  // The cluster's owner (the postgres user, when tests run as root) enters it.
  chmodSync(folder, 0o755);
  const profile = profileIn(folder, await freeLoopbackPort());
  const { url } = await ensurePostgresCluster(profile);
  await migrateUp(url);
  return {
    url,
    /** A pool of the test's own on it, waiting for a connection as long as a busy machine needs. */
    pool: (max: number) => createPool(url, { max, connectMs: 60_000 }),
    stop: (mode: 'fast' | 'immediate' = 'fast') => stopPostgresCluster(profile, mode),
    start: async () => {
      await ensurePostgresCluster(profile);
    },
    /** Every process of the cluster paused; returns what resumes them. */
    pause: () => pausePostgres(profile),
    close: async () => {
      await stopPostgresCluster(profile, 'immediate').catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** The processes whose parent is `parent`, from /proc. */
function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/**
 * Pauses every process of the profile's PostgreSQL cluster (SIGSTOP), the postmaster first so it
 * forks no more: a server that accepts connections and answers nothing, as behind a partition or
 * on a hung disk. Returns what resumes them.
 */
function pausePostgres(profile: StackProfile): () => void {
  const pidFile = path.join(clusterDataDir(profile), 'postmaster.pid');
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  process.kill(postmaster, 'SIGSTOP');
  const paused = [postmaster, ...childrenOf(postmaster)];
  for (const pid of paused.slice(1)) process.kill(pid, 'SIGSTOP');
  return () => {
    for (const pid of paused.reverse()) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // ended while paused
      }
    }
  };
}
