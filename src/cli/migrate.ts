/** `npm run migrate`: applies pending migrations to DATABASE_URL (default: the dev stack's). */
import { configOrExit } from '../config.js';
import { withDevStackDefaults } from '../devstack/stack-environment.js';
import { migrateUp } from '../store/migrate.js';

await migrateUp(configOrExit(withDevStackDefaults()).databaseUrl, true);
