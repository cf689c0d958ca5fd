/**
 * `npm run migrate`: applies pending migrations to DATABASE_URL, by default the dev stack's
 * database (beside `npm run dev`).
 */
import { migrateUp } from '../src/store/migrate.js';
import { withDevStackDefaults } from './devstack/stack-environment.js';

await migrateUp(withDevStackDefaults().DATABASE_URL ?? '', true);
