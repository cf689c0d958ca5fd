import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, test } from 'vitest';
import pg from 'pg';
import {
  clusterDataDir,
  ensurePostgresCluster,
  postgresUrl,
  stopPostgresCluster,
} from '../../tools/devstack/postgres-cluster.js';
import { freeLoopbackPort } from '../../tools/devstack/free-port.js';
import {
  loadStackConfig,
  stackProfile,
  type StackProfile,
} from '../../tools/devstack/stack-config.js';

/** The stack's PostgreSQL takes no connection on trust: every one proves the kept password. */
const profile = stackProfile(loadStackConfig(), 'test');

/** The URL the stack uses, with the password taken out or replaced. */
function withPassword(url: string, password: string | undefined): string {
  return url.replace(
    /^postgres:\/\/postgres:[^@]*@/,
    `postgres://postgres${password === undefined ? '' : `:${password}`}@`,
  );
}

function overTcp(forProfile: StackProfile, password: string | undefined): string {
  const url = `postgres://postgres@127.0.0.1:${forProfile.postgres.port}/postgres`;
  return password === undefined ? url : url.replace('postgres@', `postgres:${password}@`);
}

async function connects(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A connection without the password fails, and one with a wrong password the server refuses (28P01). */
async function assertRefused(noPassword: string, wrongPassword: string, where: string) {
  await assert.rejects(connects(noPassword), `${where}: no password`);
  await assert.rejects(connects(wrongPassword), (err: Error & { code?: string }) => {
    assert.equal(err.code, '28P01', `${where}: a wrong password: ${err.message}`);
    return true;
  });
}

/** pg_reload_conf() only signals: the new rules apply a moment later. */
async function eventually(what: string, check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

test("the test stack's cluster refuses a connection without its password, over loopback TCP and over its socket", async () => {
  const url = postgresUrl(profile, 'postgres');
  await connects(url);
  assert.match(
    url,
    /^postgres:\/\/postgres:[\w-]{16,}@%2F/,
    'the stack reaches it over its socket',
  );
  await assertRefused(withPassword(url, undefined), withPassword(url, 'wrong-password'), 'socket');
  await assertRefused(overTcp(profile, undefined), overTcp(profile, 'wrong-password'), 'tcp');

  const passwordFile = path.join(path.dirname(profile.postgres.dataDir), 'postgres.password');
  assert.equal(statSync(passwordFile).mode & 0o777, 0o600);
  const rules = readFileSync(path.join(clusterDataDir(profile), 'pg_hba.conf'), 'utf8');
  assert.doesNotMatch(rules.replace(/#.*$/gm, ''), /\btrust\b|\bpeer\b|\bmd5\b/);
});

/** Beside the test cluster, in another folder, on a port free now. */
let legacy: StackProfile | undefined;
afterAll(async () => {
  if (!legacy) return;
  await stopPostgresCluster(legacy, 'immediate').catch(() => undefined);
  rmSync(path.dirname(legacy.postgres.dataDir), { recursive: true, force: true });
});

test('a cluster made when the stack trusted local connections takes a password on its next start, and keeps its data', async () => {
  // A fixed port near the stack's could be some client's ephemeral port by now: one free now.
  const cluster: StackProfile = {
    ...profile,
    postgres: {
      ...profile.postgres,
      port: await freeLoopbackPort(),
      dataDir: path.join(path.dirname(profile.postgres.dataDir), 'legacy', 'postgres'),
    },
  };
  legacy = cluster;
  await ensurePostgresCluster(cluster);
  // Made as the stack used to make it: trust for everyone, a superuser without a password.
  const setUp = new pg.Client({ connectionString: postgresUrl(cluster) });
  await setUp.connect();
  try {
    await setUp.query('create table kept (note text)');
    await setUp.query("insert into kept values ('from before')");
    const rulesFile = path.join(clusterDataDir(cluster), 'pg_hba.conf');
    // Written by the server itself, so the file stays the cluster owner's.
    await setUp.query(
      `copy (select 'local all all trust' union all select 'host all all 127.0.0.1/32 trust')
       to '${rulesFile}'`,
    );
    await setUp.query('select pg_reload_conf()');
    await setUp.query('alter role postgres password null');
  } finally {
    await setUp.end();
  }
  rmSync(path.join(path.dirname(cluster.postgres.dataDir), 'postgres.password'));
  await eventually('the old cluster trusts connections', () =>
    connects(overTcp(cluster, undefined)),
  );

  const started = await ensurePostgresCluster(cluster);
  await eventually('the old cluster takes its password', () =>
    assertRefused(overTcp(cluster, undefined), overTcp(cluster, 'wrong-password'), 'tcp'),
  );
  await assertRefused(
    withPassword(started.url, undefined),
    withPassword(started.url, 'wrong-password'),
    'socket',
  );
  const client = new pg.Client({ connectionString: started.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ note: string }>('select note from kept');
    assert.deepEqual(rows, [{ note: 'from before' }]);
  } finally {
    await client.end();
  }
});
