/** What waiting requests re-check when PostgreSQL notifies: ledger heads and answered calls. */
export { answeredToolCalls, ledgerHeads, waitChannels } from '../wait-notifications.js';
