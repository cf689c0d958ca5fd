import { canonicalJson, sha256Hex } from './digest.js';

/** The hash before a stream's first event. */
export const genesisHash = '0'.repeat(64);

interface ChainedEvent {
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

/**
 * What `eventHash` hashes for an event, split where the head decides: the hash of the event at
 * seq `n`, stamped `at`, after `prevHash`, is sha256 of `prevHash + open + JSON(at) + beforeSeq +
 * n + after`. So a statement that finds the stream's head under its lock can stamp and chain the
 * event itself, with no seq, time or hash known before. Canonical JSON sorts the keys: at, data,
 * idempotency_key, seq, stream_id, type.
 */
export function chainedAround(event: Omit<ChainedEvent, 'seq' | 'at'>): {
  open: string;
  beforeSeq: string;
  after: string;
} {
  return {
    open: '\n{"at":',
    beforeSeq: `,"data":${canonicalJson(event.data)},"idempotency_key":${canonicalJson(event.idempotency_key)},"seq":`,
    after: `,"stream_id":${canonicalJson(event.stream_id)},"type":${canonicalJson(event.type)}}`,
  };
}

/** Where a stream's head row says its chain ends. */
export interface StreamHead {
  seq: number;
  hash: string;
}

export type ChainVerdict =
  | { ok: true; events: number; head: StreamHead }
  | {
      ok: false;
      events: number;
      first_broken_seq: number;
      problem: string;
      head: StreamHead | null;
    };

/**
 * Checks a stream's events in seq order: seq runs 1..n from the genesis hash, each prev_hash is
 * the previous hash, and each hash is recomputed from the event itself. Then `verdict` holds the
 * chain against the stream's head row, so a stream cut short at its end, emptied, or extended
 * behind the head's back is reported too: each event only vouches for those before it.
 */
export class ChainVerifier {
  private expectedSeq = 1;
  private prevHash = genesisHash;
  private valid = 0;
  private broken: { seq: number; problem: string } | undefined;

  /** Takes the next event; returns false once the chain is broken (read no further). */
  check(event: ChainedEvent & { prev_hash: string; hash: string }): boolean {
    const problem =
      event.seq !== this.expectedSeq
        ? `expected seq ${this.expectedSeq}, found ${event.seq}`
        : event.prev_hash !== this.prevHash
          ? this.expectedSeq === 1
            ? 'the first event does not start from the genesis hash'
            : 'prev_hash does not match the previous event'
          : eventHash(event.prev_hash, event) !== event.hash
            ? 'hash does not match the event'
            : undefined;
    if (problem) {
      this.broken = { seq: event.seq, problem };
      return false;
    }
    this.expectedSeq = event.seq + 1;
    this.prevHash = event.hash;
    this.valid += 1;
    return true;
  }

  /** The verdict once every event was checked, against the head row (undefined: none). */
  verdict(head: StreamHead | undefined): ChainVerdict {
    const events = this.valid;
    const failed = (first_broken_seq: number, problem: string): ChainVerdict => ({
      ok: false,
      events,
      first_broken_seq,
      problem,
      head: head ?? null,
    });
    if (this.broken) return failed(this.broken.seq, this.broken.problem);
    const last = this.expectedSeq - 1;
    if (!head) return failed(1, 'the stream has no head row: its events and head were removed');
    if (head.seq > last) {
      const found = last === 0 ? 'there are no events' : `the events end at seq ${last}`;
      return failed(last + 1, `the head is at seq ${head.seq} but ${found}: events were removed`);
    }
    if (head.seq < last) {
      return failed(
        head.seq + 1,
        `events run past the head at seq ${head.seq}: they were added behind its back`,
      );
    }
    if (head.hash !== this.prevHash) {
      return failed(last, `the hash of seq ${last} is not the head's: the chain was rewritten`);
    }
    return { ok: true, events, head };
  }
}
