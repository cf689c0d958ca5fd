import type { FrozenTool } from '../domain/tools/tools.js';
import type { RunSource, TrustTier } from '../domain/gate/trust-tier.js';
import type { RunId, SessionId } from '../domain/gate/ids.js';
import { redact } from '../domain/ledger/redaction.js';
import { appendEvent } from './ledger.js';
import { prepared, withTransaction, type Pool, type Queryable } from './pool.js';

export type Autonomy = 'supervised' | 'autonomous';

/** A run as it was frozen at creation. Immutable (a trigger refuses updates). */
export interface FrozenRun {
  id: RunId;
  workspace_id: string;
  session_id: SessionId;
  invoked_by: string;
  source: RunSource;
  trust_tier: TrustTier;
  autonomy: Autonomy;
  policy_id: string;
  policy_version: number;
  toolset: FrozenTool[];
  toolset_digest: string;
  max_tokens: number;
  /** Where the run's model requests go through the gate; null when it has none. */
  model_provider_id: string | null;
  created_at: Date;
}

const runColumns = `id, workspace_id, session_id, invoked_by, source, trust_tier, autonomy, policy_id,
  policy_version, toolset, toolset_digest, max_tokens, model_provider_id, created_at`;

/** The columns of a `FrozenRun`, each qualified by `alias`, for a query that joins the table. */
export const runColumnsOf = (alias: string) =>
  runColumns
    .split(',')
    .map((column) => `${alias}.${column.trim()}`)
    .join(', ');

/** A run to create: what it freezes, and the hash of its session token. */
type NewRun = Omit<FrozenRun, 'id' | 'created_at'> & { session_token_hash: Buffer };

function runCreatedEvent(run: FrozenRun) {
  return redact('run.created', {
    run_id: run.id,
    workspace: run.workspace_id,
    invoked_by: run.invoked_by,
    source_kind: run.source.kind,
    trust_tier: run.trust_tier,
    autonomy: run.autonomy,
    policy_id: run.policy_id,
    policy_version: run.policy_version,
    toolset_digest: run.toolset_digest,
    max_tokens: run.max_tokens,
    model_provider: run.model_provider_id,
  });
}

/**
 * Creates a run and appends run.created, in one transaction. Returns undefined when the session
 * id is already taken (nothing is written).
 */
export function createRun(pool: Pool, run: NewRun): Promise<FrozenRun | undefined> {
  return withTransaction(pool, async (tx) => {
    const created = await insertRun(tx, run);
    if (created) await appendEvent(tx, created.session_id, runCreatedEvent(created));
    return created;
  });
}

/** Returns undefined when the session id is already taken. */
async function insertRun(db: Queryable, run: NewRun): Promise<FrozenRun | undefined> {
  const { rows } = await db.query<FrozenRun>(
    `insert into runs (workspace_id, session_id, session_token_hash, invoked_by, source, trust_tier,
       autonomy, policy_id, policy_version, toolset, toolset_digest, max_tokens, model_provider_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     on conflict (session_id) do nothing
     returning ${runColumns}`,
    [
      run.workspace_id,
      run.session_id,
      run.session_token_hash,
      run.invoked_by,
      JSON.stringify(run.source),
      run.trust_tier,
      run.autonomy,
      run.policy_id,
      run.policy_version,
      JSON.stringify(run.toolset),
      run.toolset_digest,
      run.max_tokens,
      run.model_provider_id,
    ],
  );
  return rows[0];
}

export async function findRun(db: Queryable, runId: RunId): Promise<FrozenRun | undefined> {
  const { rows } = await db.query<FrozenRun>(`select ${runColumns} from runs where id = $1`, [
    runId,
  ]);
  return rows[0];
}

/**
 * Whether a run (`runs` as `alias`) acts no more: it is revoked, its invoker is suspended, or its
 * invoker's runs ended with their access after it started (for good: a reactivation does not
 * bring it back). A run acts on its invoker's authority.
 */
export function runStoppedSql(alias: string): string {
  return `(exists (select 1 from run_revocations v where v.run_id = ${alias}.id)
    or not exists (select 1 from members m where m.id = ${alias}.invoked_by and m.status = 'active'
      and (m.runs_ended_at is null or m.runs_ended_at < ${alias}.created_at)))`;
}

/** Freezes `value` and everything it holds, so that no reader can change what others read. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const held of Object.values(value)) deepFreeze(held);
  }
  return value;
}

/**
 * The frozen runs a process has read, by the hash of their session token. A run's frozen columns
 * never change (a trigger refuses updates), so a run read once is kept, its tool set with it, and
 * each request reads again only whether the run still acts: its revocation and its invoker's
 * status are never kept. A kept run is frozen (every request of its token shares it) and leaves
 * once it is refused. Bounded by count and by the size of the tool sets kept: the oldest go first.
 */
export class KnownRuns {
  private readonly runs = new Map<string, { run: FrozenRun; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly limit = 1_000,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  get(tokenHash: Buffer): FrozenRun | undefined {
    return this.runs.get(tokenHash.toString('hex'))?.run;
  }

  keep(tokenHash: Buffer, run: FrozenRun): void {
    const key = tokenHash.toString('hex');
    const bytes = JSON.stringify(run.toolset).length;
    if (bytes > this.maxBytes) return;
    this.forget(tokenHash);
    while (this.runs.size >= this.limit || this.bytes + bytes > this.maxBytes) {
      const oldest = this.runs.keys().next();
      if (oldest.done) break;
      this.drop(oldest.value);
    }
    this.runs.set(key, { run: deepFreeze(run), bytes });
    this.bytes += bytes;
  }

  forget(tokenHash: Buffer): void {
    this.drop(tokenHash.toString('hex'));
  }

  /**
   * The run a token's read found, given what was kept for it before the read: the kept run when
   * the read named it (it still acts), a run read whole (now kept), or nothing; a token whose read
   * named no run, or another one, is forgotten.
   */
  confirm(
    tokenHash: Buffer,
    kept: FrozenRun | undefined,
    read: FrozenRun | undefined,
  ): FrozenRun | undefined {
    if (kept) {
      if (read?.id === kept.id) return kept;
      this.forget(tokenHash);
      return undefined;
    }
    if (read) this.keep(tokenHash, read);
    return read;
  }

  private drop(key: string): void {
    const entry = this.runs.get(key);
    if (!entry) return;
    this.runs.delete(key);
    this.bytes -= entry.bytes;
  }
}

/**
 * The run a session token acts for; a stopped run's token finds nothing. A run `known` keeps is
 * not read again: only its id, found while it still acts.
 */
export async function findRunBySessionTokenHash(
  db: Queryable,
  tokenHash: Buffer,
  known?: KnownRuns,
): Promise<FrozenRun | undefined> {
  const kept = known?.get(tokenHash);
  const { rows } = await db.query<FrozenRun>(
    prepared(
      `select ${kept ? 'id' : runColumns} from runs
       where session_token_hash = $1 and not ${runStoppedSql('runs')}`,
      [tokenHash],
    ),
  );
  const [row] = rows;
  return known ? known.confirm(tokenHash, kept, row) : row;
}

export async function findRunBySessionTokenHashEvenRevoked(
  db: Queryable,
  tokenHash: Buffer,
): Promise<{ run: FrozenRun; revoked: boolean } | undefined> {
  const { rows } = await db.query<FrozenRun & { revoked: boolean }>(
    `select ${runColumns},
            ${runStoppedSql('runs')} as revoked
       from runs where session_token_hash = $1`,
    [tokenHash],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { revoked, ...run } = row;
  return { run, revoked };
}

export async function findRunBySessionId(
  db: Queryable,
  sessionId: SessionId,
): Promise<FrozenRun | undefined> {
  const { rows } = await db.query<FrozenRun>(
    `select ${runColumns} from runs where session_id = $1`,
    [sessionId],
  );
  return rows[0];
}

/** What an approver is shown about the run that asked: where it comes from and who started it. */
export interface RunSummary {
  id: RunId;
  source: RunSource;
  trust_tier: TrustTier;
  policy_id: string;
  invoked_by: string;
  invoked_by_name: string;
}

export async function findRunSummaries(
  db: Queryable,
  runIds: readonly RunId[],
): Promise<Map<RunId, RunSummary>> {
  if (runIds.length === 0) return new Map();
  const { rows } = await db.query<RunSummary>(
    `select r.id, r.source, r.trust_tier, r.policy_id, r.invoked_by, m.name as invoked_by_name
     from runs r join members m on m.id = r.invoked_by
     where r.id = any($1::uuid[])`,
    [[...new Set(runIds)]],
  );
  return new Map(rows.map((row) => [row.id, row]));
}
