/** A policy version by id. */
export { findPolicyVersion } from '../policies.js';
