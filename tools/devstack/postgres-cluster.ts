import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { run, waitFor } from './child-process.js';
import type { StackProfile } from './stack-config.js';
import { keptSecret } from './stack-keys.js';
import { requireFreePort } from './free-port.js';
import { portSetting } from './stack-config.js';

const binDir = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

/**
 * PostgreSQL refuses to run as root. As root we run its binaries as the `postgres` system user
 * on a data folder that user owns; as anyone else, as ourselves.
 */
function asClusterOwner(binary: string, args: string[]): [string, string[]] {
  const full = path.join(binDir, binary);
  if (userInfo().uid === 0) return ['runuser', ['-u', 'postgres', '--', full, ...args]];
  return [full, args];
}

function clusterOwnerIds(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const entry = /^postgres:[^:]*:(\d+):(\d+):/m.exec(readFileSync('/etc/passwd', 'utf8'));
  if (!entry) {
    throw new Error('running as root, but there is no "postgres" system user to run PostgreSQL as');
  }
  return { uid: Number(entry[1]), gid: Number(entry[2]) };
}

/**
 * The cluster's data folder: the profile's, inside the project, unless the `postgres` user
 * cannot reach it (a project under a private home folder, when we run as root); then a folder
 * of the system's temporary directory named after the project's path.
 */
const reachable = new Map<string, string>();
export function clusterDataDir(profile: StackProfile): string {
  const wanted = profile.postgres.dataDir;
  const known = reachable.get(wanted);
  if (known) return known;
  let dataDir = wanted;
  if (clusterOwnerIds()) {
    const parent = path.dirname(wanted);
    mkdirSync(parent, { recursive: true, mode: 0o755 });
    const probe = spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', parent]);
    if (probe.status !== 0) {
      const key = createHash('sha256').update(wanted).digest('hex').slice(0, 12);
      dataDir = path.join(tmpdir(), `fluidbox-gate-${key}`, path.basename(wanted));
      process.stderr.write(
        `the postgres user cannot reach ${path.relative(process.cwd(), wanted) || wanted}; using ${dataDir}\n`,
      );
    }
  }
  reachable.set(wanted, dataDir);
  return dataDir;
}

/** The data folder must belong to the user the server runs as. */
function prepareDataDir(dataDir: string) {
  // The folders above it stay enterable by the cluster's owner; the data folder is its alone.
  mkdirSync(path.dirname(dataDir), { recursive: true, mode: 0o755 });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const owner = clusterOwnerIds();
  if (!owner) return;
  chownSync(dataDir, owner.uid, owner.gid);
  for (const entry of readdirSync(dataDir)) {
    const stat = statSync(path.join(dataDir, entry));
    if (stat.uid !== owner.uid) chownSync(path.join(dataDir, entry), owner.uid, owner.gid);
  }
}

/**
 * The cluster's Unix socket, in its data folder, unless its path would pass the system's limit
 * (108 bytes with its terminating zero, Linux's sun_path) or the folder holds characters the
 * server's option list would need quoted; then the cluster listens on loopback TCP only.
 */
function socketPath(profile: StackProfile): string | undefined {
  const dir = clusterDataDir(profile);
  const socket = path.join(dir, `.s.PGSQL.${profile.postgres.port}`);
  return /^[\w./-]+$/.test(dir) && Buffer.byteLength(socket) <= 107 ? socket : undefined;
}

/**
 * The superuser's password: made once, kept beside the cluster's data in `postgres.password`
 * (0600, like sealing.key). Letters, digits, `-` and `_` only, so it needs no quoting anywhere.
 */
function clusterPassword(profile: StackProfile): string {
  const password = keptSecret(profile, 'postgres.password', 'base64url');
  if (!/^[\w-]{16,}$/.test(password)) {
    throw new Error('postgres.password must hold 16 or more letters, digits, "-" or "_"');
  }
  return password;
}

/**
 * Every connection proves the password, over the socket and over loopback TCP alike: another
 * user of the machine reaches the cluster's port, and the socket when run as root.
 */
const hbaRules = `# Written by fluidbox gate's dev stack: every connection proves the password in
# postgres.password, beside the cluster's folder.
local all all scram-sha-256
host all all 127.0.0.1/32 scram-sha-256
host all all ::1/128 scram-sha-256
`;

function writeHbaRules(dataDir: string): void {
  const file = path.join(dataDir, 'pg_hba.conf');
  writeFileSync(file, hbaRules, { mode: 0o600 });
  const owner = clusterOwnerIds();
  if (owner) chownSync(file, owner.uid, owner.gid);
}

/** A cluster made before it had a password trusted every local connection: it gets one now. */
async function requirePassword(profile: StackProfile): Promise<void> {
  const dataDir = clusterDataDir(profile);
  if (readFileSync(path.join(dataDir, 'pg_hba.conf'), 'utf8') === hbaRules) return;
  process.stderr.write(
    'the PostgreSQL cluster trusted local connections: it takes a password now\n',
  );
  // Bounded: whatever else listens on the port may accept and never answer.
  const client = new pg.Client({
    connectionString: postgresUrl(profile, 'postgres'),
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    // Sent once, over the socket or loopback; stored by the server as a SCRAM verifier.
    await client.query(`alter role postgres password '${clusterPassword(profile)}'`);
    writeHbaRules(dataDir);
    await client.query('select pg_reload_conf()');
  } finally {
    await client.end();
  }
}

/** initdb with the password set and the rules written before the cluster first starts. */
async function createCluster(profile: StackProfile, dataDir: string): Promise<void> {
  // initdb reads the password from a file the cluster's owner can read; it lives a moment.
  const passwordDir = mkdtempSync(path.join(tmpdir(), 'fluidbox-gate-initdb-'));
  const passwordFile = path.join(passwordDir, 'password');
  writeFileSync(passwordFile, clusterPassword(profile), { mode: 0o600 });
  const owner = clusterOwnerIds();
  if (owner) {
    chownSync(passwordDir, owner.uid, owner.gid);
    chownSync(passwordFile, owner.uid, owner.gid);
  }
  try {
    await run(
      ...asClusterOwner('initdb', [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '--auth=scram-sha-256',
        `--pwfile=${passwordFile}`,
        '-E',
        'UTF8',
        '--no-instructions',
      ]),
    );
  } finally {
    rmSync(passwordDir, { recursive: true, force: true });
  }
  writeHbaRules(dataDir);
}

/**
 * Where the stack's own processes reach the cluster: its Unix socket while it is there (each
 * statement costs less CPU than over loopback TCP; see docs/architecture.md), else
 * loopback TCP, which the cluster also listens on, for any other client and for a cluster
 * started without a socket.
 */
export function postgresUrl(profile: StackProfile, database = profile.postgres.database): string {
  const socket = socketPath(profile);
  return clusterUrl(profile, database, socket !== undefined && existsSync(socket));
}

/** Where a cluster this stack starts will be reached once it is up: known before it starts. */
export function startedPostgresUrl(profile: StackProfile): string {
  return clusterUrl(profile, profile.postgres.database, socketPath(profile) !== undefined);
}

function clusterUrl(profile: StackProfile, database: string, overSocket: boolean): string {
  const socket = socketPath(profile);
  const host =
    overSocket && socket !== undefined ? encodeURIComponent(path.dirname(socket)) : '127.0.0.1';
  return `postgres://postgres:${clusterPassword(profile)}@${host}:${profile.postgres.port}/${database}`;
}

export interface PostgresCluster {
  url: string;
  /** Stops the cluster if this process started it. */
  stop(): Promise<void>;
}

async function isReady(profile: StackProfile): Promise<boolean> {
  // Bounded: whatever else listens on the port may accept and never answer.
  const client = new pg.Client({
    connectionString: postgresUrl(profile, 'postgres'),
    connectionTimeoutMillis: 5000,
  });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '28P01') {
      throw new Error(
        `the PostgreSQL cluster in ${path.basename(clusterDataDir(profile))}/ refuses the password in postgres.password beside it: put the right one back, or remove the cluster's folder to start afresh`,
      );
    }
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Creates the cluster on first use, starts it unless it already runs, and creates the
 * profile's database. Loopback TCP and a socket only its owner may open, and a password on both.
 * `settings` are server options added when this call starts it (the bench's statement counts).
 */
export async function ensurePostgresCluster(
  profile: StackProfile,
  { settings = {} }: { settings?: Record<string, string> } = {},
): Promise<PostgresCluster> {
  const { port } = profile.postgres;
  const dataDir = clusterDataDir(profile);
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    process.stderr.write(`creating a PostgreSQL cluster in ${path.basename(dataDir)}/\n`);
    prepareDataDir(dataDir);
    await createCluster(profile, dataDir);
  }
  prepareDataDir(dataDir);
  let startedHere = false;
  if (!(await isReady(profile))) {
    await requireFreePort('127.0.0.1', port, 'PostgreSQL', portSetting(profile, 'postgres'));
    const socket = socketPath(profile);
    const socketDirectory = socket === undefined ? '' : path.dirname(socket);
    await run(
      ...asClusterOwner('pg_ctl', [
        '-D',
        dataDir,
        '-l',
        path.join(dataDir, 'server.log'),
        '-w',
        '-t',
        '60',
        '-o',
        `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories='${socketDirectory}' -c unix_socket_permissions=0700 -c max_connections=300 -c fsync=${profile.name === 'test' ? 'off' : 'on'}${Object.entries(
          settings,
        )
          .map(([name, value]) => ` -c ${name}=${value}`)
          .join('')}`,
        'start',
      ]),
    );
    startedHere = true;
  }
  await waitFor('PostgreSQL', async () => {
    if (!(await isReady(profile))) throw new Error('not ready');
  });
  await requirePassword(profile);
  await createDatabase(profile);
  return {
    url: postgresUrl(profile),
    stop: async () => {
      if (!startedHere) return;
      await stopPostgresCluster(profile);
    },
  };
}

export async function stopPostgresCluster(
  profile: StackProfile,
  mode: 'fast' | 'immediate' = 'fast',
) {
  await run(...asClusterOwner('pg_ctl', ['-D', clusterDataDir(profile), '-m', mode, '-w', 'stop']));
}

async function createDatabase(profile: StackProfile) {
  // Bounded: whatever else listens on the port may accept and never answer.
  const client = new pg.Client({
    connectionString: postgresUrl(profile, 'postgres'),
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [
      profile.postgres.database,
    ]);
    if (rowCount === 0) await client.query(`create database "${profile.postgres.database}"`);
  } finally {
    await client.end();
  }
}
