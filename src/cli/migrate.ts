/** `npm run migrate`: applies pending migrations to DATABASE_URL (default: the dev stack's). */
import { runtimeConfig } from '../runtime-config.js';
import { migrateUp } from '../store/migrate.js';

await migrateUp(runtimeConfig().databaseUrl, true);
