/** What waiting requests re-check when PostgreSQL notifies, and how they ask to be notified. */
export {
  answeredToolCalls,
  ledgerHeads,
  waitChannels,
  watchStream,
  watchToolCall,
} from '../wait-notifications.js';
