import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';

const migrationsDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../migrations',
);

/** Applies every pending migration (node-pg-migrate, plain SQL files in migrations/). */
export async function migrateUp(databaseUrl: string, log = false): Promise<void> {
  await runner({
    databaseUrl,
    dir: migrationsDir,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    count: Infinity,
    singleTransaction: true,
    checkOrder: true,
    log: log ? (msg: string) => process.stderr.write(`[migrate] ${msg}\n`) : () => undefined,
  });
}
