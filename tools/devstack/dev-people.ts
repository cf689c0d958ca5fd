import type { DevPerson } from './identity-provider.js';

/**
 * The people of `npm run dev`'s identity provider, and how `npm run seed` maps their groups to
 * the demo workspace's roles: one person per role.
 */
export const devGroupRoles = {
  admins: 'admin',
  approvers: 'approver',
  members: 'member',
} as const;

export const devPeople: DevPerson[] = [
  { subject: 'ada', name: 'Ada Admin', email: 'ada@example.test', groups: ['admins'] },
  { subject: 'alex', name: 'Alex Approver', email: 'alex@example.test', groups: ['approvers'] },
  { subject: 'max', name: 'Max Member', email: 'max@example.test', groups: ['members'] },
];
