import { canonicalJson, sha256Hex } from './digest.js';

/** The hash before a stream's first event. */
export const genesisHash = '0'.repeat(64);

export interface ChainedEvent {
  stream_id: string;
  seq: number;
  type: string;
  at: string;
  data: unknown;
  idempotency_key: string;
}

/** SHA-256 over the previous hash and the canonical event: editing any past event breaks every later link. */
export function eventHash(prevHash: string, event: ChainedEvent): string {
  return sha256Hex(
    `${prevHash}\n${canonicalJson({
      stream_id: event.stream_id,
      seq: event.seq,
      type: event.type,
      at: event.at,
      data: event.data,
      idempotency_key: event.idempotency_key,
    })}`,
  );
}

export type ChainVerdict =
  | { ok: true; events: number }
  | { ok: false; events: number; first_broken_seq: number; problem: string };

/**
 * Checks a stream's events in seq order: seq runs 1..n, each prev_hash is the previous hash,
 * and each hash is recomputed from the event itself.
 */
export class ChainVerifier {
  private expectedSeq = 1;
  private prevHash = genesisHash;

  /** Returns the problem with this event, or undefined when it links correctly. */
  check(event: ChainedEvent & { prev_hash: string; hash: string }): string | undefined {
    const problem =
      event.seq !== this.expectedSeq
        ? `expected seq ${this.expectedSeq}, found ${event.seq}`
        : event.prev_hash !== this.prevHash
          ? 'prev_hash does not match the previous event'
          : eventHash(event.prev_hash, event) !== event.hash
            ? 'hash does not match the event'
            : undefined;
    this.expectedSeq = event.seq + 1;
    this.prevHash = event.hash;
    return problem;
  }
}
