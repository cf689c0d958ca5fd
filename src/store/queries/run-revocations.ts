/** A run's revocation, if it was revoked. */
export { findRunRevocation, type RunRevocation } from '../run-revocations.js';
