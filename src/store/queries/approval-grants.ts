/** The standing approvals a run holds. */
export { grantsOfRun, type GrantRow } from '../approval-grants.js';
