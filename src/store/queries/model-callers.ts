/** A model endpoint's caller: the run by its session token, with its model provider. */
export { findModelCallerBySessionTokenHash, type ModelCaller } from '../model-callers.js';
