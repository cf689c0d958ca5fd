/** Whether PostgreSQL answers, and whether an error means it cannot be reached right now. */
export { isTransientConflict, isUnavailableError, pingDatabase } from '../pool.js';
