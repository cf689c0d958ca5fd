/** Approvals one at a time, listed as a member may see them, and counted while pending. */
export { countPendingApprovals, findApproval, type ApprovalRow } from '../approvals.js';
export {
  listApprovals,
  visiblePendingKeys,
  type ApprovalListScope,
  type ListedApproval,
} from '../approval-lists.js';
