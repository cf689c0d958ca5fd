/**
 * The floor of the bench: a workflow that does nothing. Started with update-with-start it answers
 * the update in its first task; started eagerly it returns in its first task.
 */
import { defineUpdate, setHandler } from '@temporalio/workflow';

export const floorUpdate = defineUpdate<string>('floor');

export function floor(): Promise<string> {
  setHandler(floorUpdate, () => 'ok');
  return Promise.resolve('ok');
}
