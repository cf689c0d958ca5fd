/**
 * A gate workflow whose every workflow task fails (a worker of a broken build, or one too slow
 * on a loaded machine): Temporal retries the task and refuses updates meanwhile.
 */
export function gate(): Promise<never> {
  throw new TypeError('this build of the gate workflow fails every workflow task');
}
