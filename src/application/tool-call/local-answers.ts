import type { GateAnswer } from '../../domain/gate/vocabulary.js';

/** A wait for one call's answer (decided, or pending on a person) as this process records it. */
interface LocalExpectation {
  /** The answer if this process records it within `ms` (or did since `expect`), else undefined. */
  within(ms: number): Promise<GateAnswer | undefined>;
  /** Stops waiting; call it whichever way the wait ended. */
  cancel(): void;
}

/**
 * Answers recorded by this process's own gate worker, handed to the request waiting for them.
 * A call started eagerly runs its stages and records its decision (or its pending approval)
 * here, in this process: the answer the transaction returned after its commit is the state of
 * record, and needs no notice from PostgreSQL nor a read back. Only calls someone waits for are
 * held.
 */
export class LocalAnswers {
  private readonly waiting = new Map<string, Set<(answer: GateAnswer) => void>>();

  expect(sessionId: string, toolCallId: string): LocalExpectation {
    const key = JSON.stringify([sessionId, toolCallId]);
    let settle: (answer: GateAnswer) => void = () => undefined;
    const arrived = new Promise<GateAnswer>((resolve) => {
      settle = resolve;
    });
    const waiters = this.waiting.get(key) ?? new Set();
    waiters.add(settle);
    this.waiting.set(key, waiters);
    return {
      within: async (ms) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<undefined>((resolve) => {
          timer = setTimeout(resolve, ms, undefined);
        });
        try {
          return await Promise.race([arrived, timeout]);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel: () => {
        waiters.delete(settle);
        if (waiters.size === 0 && this.waiting.get(key) === waiters) this.waiting.delete(key);
      },
    };
  }

  /** An answer this process committed: the requests waiting for it get it. */
  deliver(sessionId: string, toolCallId: string, answer: GateAnswer): void {
    for (const settle of this.waiting.get(JSON.stringify([sessionId, toolCallId])) ?? []) {
      settle(answer);
    }
  }

  /** How many calls are waited for, for tests. */
  get size(): number {
    return this.waiting.size;
  }
}
