/** Workspace members by id and by a user token's hash. */
export { findMember, findMemberByTokenHash, type Member } from '../members.js';
