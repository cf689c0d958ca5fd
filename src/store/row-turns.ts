/**
 * Turns on a hot row, within one process. Every write of a session takes its ledger head's lock,
 * so writes of one session run one at a time on the server whatever the client does; but each
 * waits there holding a connection, and a burst on one session (a runner's parallel calls, a
 * run's model requests at once) would hold every connection of the pool while the rest of the
 * process, other runs included, waited for one. Here at most `turnsAtOnce` writes of a key hold
 * a connection at a time; the others wait in the process, without one, in the order they came.
 * More than one, so that the server always has the next write queued on the lock when the one
 * holding it commits: a single turn would leave the row idle for a hand-over through the process
 * after every write, which a loaded machine makes long. A write is one turn whatever path it
 * takes (its one statement, and the transaction it falls back to): a fallback that went to the
 * back of the queue would take a burst through it twice.
 *
 * A wait is bounded: past `turnWaitMs` the write is refused as PostgreSQL being unavailable
 * (`isUnavailableError` says so: a 503 the caller sends again). A write that ended with PostgreSQL
 * unavailable (`outage` says which errors mean it) refuses those waiting behind it at once: they
 * would meet the same outage, one after another, each for as long as its own bound.
 */

/** How many writes of one key hold a connection at once. */
export const turnsAtOnce = 4;

/** How long a write waits for its turn before it is refused. */
export const turnWaitMs = 10_000;

/** A write that waited `turnWaitMs` for its turn on a hot row, and was refused. */
export class TurnWaitExceeded extends Error {
  override name = 'TurnWaitExceeded';
  constructor(readonly key: string) {
    super(`other writes of ${key} were ahead of this one for ${String(turnWaitMs)} ms`);
  }
}

interface Waiter {
  go: () => void;
  refuse: (err: Error) => void;
}

interface Queue {
  running: number;
  waiting: Waiter[];
}

const queues = new Map<string, Queue>();

/** `work` in its turn on the row `key` names: with at most `turnsAtOnce - 1` others of the key. */
export async function inTurn<T>(
  key: string,
  work: () => Promise<T>,
  outage: (err: unknown) => boolean,
): Promise<T> {
  let queue = queues.get(key);
  if (!queue) {
    queue = { running: 0, waiting: [] };
    queues.set(key, queue);
  }
  // A turn handed over keeps `running` as it was: nobody slips in between.
  if (queue.running >= turnsAtOnce) await waitForTurn(key, queue);
  else queue.running += 1;
  try {
    return await work();
  } catch (err) {
    if (outage(err)) for (const waiter of queue.waiting.splice(0)) waiter.refuse(err as Error);
    throw err;
  } finally {
    const next = queue.waiting.shift();
    if (next) next.go();
    else {
      queue.running -= 1;
      if (queue.running === 0) queues.delete(key);
    }
  }
}

function waitForTurn(key: string, queue: Queue): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const waiter: Waiter = {
      go: () => {
        clearTimeout(timer);
        resolve();
      },
      refuse: (err) => {
        clearTimeout(timer);
        reject(err);
      },
    };
    const timer = setTimeout(() => {
      const at = queue.waiting.indexOf(waiter);
      if (at >= 0) queue.waiting.splice(at, 1);
      reject(new TurnWaitExceeded(key));
    }, turnWaitMs);
    queue.waiting.push(waiter);
  });
}

/** How many keys have a write under way or waiting: what a test reads to see nothing is left. */
export function keysInTurn(): number {
  return queues.size;
}
