/**
 * The Temporal CLI the stack runs is the one tools/temporal-cli pins, SQLite driver included,
 * and that driver keeps answering after queries are cut off by their deadlines (the CLI's own
 * driver does not: a loaded dev server then loses its namespace for good).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'vitest';
import { parseStackConfig, projectRoot } from '../../tools/devstack/stack-config.js';
import { temporalCliModule, temporalCliPath } from '../../tools/devstack/temporal-server.js';

const exec = promisify(execFile);
const config = parseStackConfig(readFileSync(path.join(projectRoot, 'temporal-dev.yaml'), 'utf8'));
const goMod = readFileSync(path.join(temporalCliModule, 'go.mod'), 'utf8');
const pinnedSqlite = /^\s*modernc\.org\/sqlite (v\S+)/m.exec(goMod)?.[1];

test('the built CLI is the version temporal-dev.yaml names, with the SQLite driver go.mod pins', async () => {
  assert.ok(pinnedSqlite, 'tools/temporal-cli/go.mod requires modernc.org/sqlite');
  const binary = temporalCliPath(config.temporal.cli_version);
  const { stdout } = await exec('go', ['version', '-m', binary]);
  const modules = new Map(
    [...stdout.matchAll(/^\s*(?:mod|dep)\s+(\S+)\s+(v\S+)/gm)].map((m) => [m[1], m[2]]),
  );
  assert.equal(modules.get('github.com/temporalio/cli'), `v${config.temporal.cli_version}`);
  assert.equal(modules.get('modernc.org/sqlite'), pinnedSqlite);
});

test('after a storm of queries cut off by their deadlines, the pinned driver answers plain reads', async () => {
  const { stdout } = await exec('go', ['run', './interrupt-check'], {
    cwd: temporalCliModule,
    env: { ...process.env, GOFLAGS: '-mod=readonly' },
  });
  // The storm did cut queries off, and every read after it answered.
  assert.match(stdout, /^storm: 6400 queries, failed: map\[context deadline exceeded:\d+/m);
  assert.match(stdout, /^after: 200 plain reads, failed: map\[\]$/m);
}, 300_000);
