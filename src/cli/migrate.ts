/**
 * `npm run start:migrate` from the build: applies pending migrations to DATABASE_URL
 * (`npm run migrate` does the same beside `npm run dev`, on the dev stack's database).
 */
import { migrateUp } from '../store/migrate.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  process.stderr.write('DATABASE_URL is required: the database to migrate\n');
  process.exit(2);
}
await migrateUp(databaseUrl, true);
