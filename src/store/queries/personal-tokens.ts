/** A member's own API tokens, listed without their values. */
export { listPersonalTokens, type PersonalToken } from '../personal-tokens.js';
