/**
 * The inside of a simulation thread: evaluates the candidate of the simulation under way on the
 * calls it is sent, one verdict a message, and forgets both when the simulation ends. Runs at the
 * lowest scheduling priority the system gives a thread, so that deciding calls on the API's own
 * thread keeps the processor first.
 */
import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { PolicyBody } from '../domain/policy/policy.js';
import { candidateVerdict, type SimulatedRun } from '../domain/policy/simulation.js';
import type { ThreadAnswer, ThreadMessage } from './simulation-thread.js';

/** Linux gives each thread its own niceness, named by its thread id; elsewhere none is taken. */
function lowerOwnPriority(): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(threadId)) setPriority(threadId, constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux: the thread keeps the process's priority; the deadline still bounds it.
  }
}

lowerOwnPriority();
const port = parentPort;
if (!port) throw new Error('the simulation thread runs inside a worker thread');
/** The candidate of the simulation under way and the runs sent for it: none between simulations. */
let candidate: PolicyBody | undefined;
let runs = new Map<string, SimulatedRun>();

port.on('message', (message: ThreadMessage) => {
  if (message.kind === 'begin' || message.kind === 'end') {
    candidate = message.kind === 'begin' ? message.candidate : undefined;
    runs = new Map();
    return;
  }
  if (message.kind === 'run') {
    runs.set(message.run_id, message.run);
    return;
  }
  let answer: ThreadAnswer;
  try {
    const run = runs.get(message.call.run_id);
    if (!candidate) throw new Error('no simulation is under way');
    if (!run) throw new Error(`run ${message.call.run_id} was not sent before its call`);
    answer = { id: message.id, verdict: candidateVerdict(candidate, message.call, run) };
  } catch (err) {
    answer = { id: message.id, error: (err as Error).message };
  }
  port.postMessage(answer);
});
