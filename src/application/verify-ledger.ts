import type { SessionId } from '../domain/gate/ids.js';
import { ChainVerifier, type ChainVerdict } from '../domain/ledger/hash-chain.js';
import { readChainedEvents, readStreamHead } from '../store/ledger.js';
import { inOneSnapshot, type Pool } from '../store/pool.js';

const batchSize = 1000;

/**
 * Verifies a session's ledger: every event's link from the genesis hash, then the chain's end
 * against the stream's head row. Events and head are read in one snapshot, so appends committing
 * meanwhile are neither half-seen nor reported as tampering.
 */
export async function verifyLedger(pool: Pool, sessionId: SessionId): Promise<ChainVerdict> {
  return inOneSnapshot(pool, async (tx) => {
    const head = await readStreamHead(tx, sessionId);
    const verifier = new ChainVerifier();
    for (let after = 0; ;) {
      const batch = await readChainedEvents(tx, sessionId, after, batchSize);
      for (const event of batch) {
        if (!verifier.check({ ...event, stream_id: sessionId })) return verifier.verdict(head);
      }
      if (batch.length < batchSize) return verifier.verdict(head);
      after = batch.at(-1)?.seq ?? after;
    }
  });
}
