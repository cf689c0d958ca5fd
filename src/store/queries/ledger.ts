/** A ledger stream's events and head. */
export { readEvents, readStreamHead, type LedgerEvent } from '../ledger.js';
