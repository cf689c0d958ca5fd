/**
 * `npm run migrate` (or `npm run start:migrate` from the build): applies pending migrations to
 * DATABASE_URL. Without it, beside `npm run dev`, to the dev stack's database.
 */
import { migrateUp } from '../store/migrate.js';

async function databaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const { withDevStackDefaults } = await import('../devstack/stack-environment.js');
  return withDevStackDefaults().DATABASE_URL ?? '';
}

await migrateUp(await databaseUrl(), true);
