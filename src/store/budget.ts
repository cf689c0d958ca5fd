import type pg from 'pg';
import type { ModelPrice, ProviderKind } from '../domain/budget/pricing.js';
import {
  firstExhausted,
  levelLabel,
  type Booking,
  type SpendLevel,
} from '../domain/budget/spend-levels.js';
import { redact } from '../domain/ledger/redaction.js';
import { appendEvent, appendGuarded } from './ledger.js';
import {
  budgetsOfSubject,
  levelHoldsSql,
  levelHoldValues,
  lockSpendLevels,
  settleAtLevels,
  spendBudgetIdsSql,
  type BudgetFigures,
  type LockedLevel,
} from './spend-levels.js';

export type { BudgetFigures } from './spend-levels.js';
import { one, prepared, withTransaction, type Pool, type Queryable } from './pool.js';

/**
 * A run's token budget: durable, request-keyed reservations and the usage that settles them.
 *
 * Concurrency, as promised and tested (test/budget/):
 * - Admissions of one run queue on a row lock of its budget row, so the balance an admission
 *   reads cannot change before it books; two requests never both pass on the same remainder.
 * - A reservation's key is derived from (session, request id) and the first answer is stored
 *   under it, so a retry, concurrent or late, finds that answer and books nothing.
 * - Reconciliation and expiry lock the reservation row first; the usage entry's external id is
 *   unique, so a hold is released once and real usage is counted once, whichever comes first.
 * - Every level a request falls under (its run, its person, their teams, the workspace; see
 *   store/spend-budgets.ts) is booked in the same transaction: its window rows are locked in
 *   budget id order after the run's row, checked, and all booked or none, so no level is ever
 *   booked past its cap however many requests race.
 * Locks are taken reservation row, run budget row, spend windows by budget id, ledger head, in
 * that order (admission only inserts reservations, never locks one), so none of these
 * transactions deadlock.
 */

export type ReservationStatus = 'refused' | 'held' | 'expired' | 'reconciled';
/** Who books, and so who settles: the runner's own report, or the gate's model endpoint. */
export type ReservationMaker = 'runner' | 'proxy';

export interface ReservationRow {
  id: string;
  session_id: string;
  request_id: string;
  run_id: string;
  request_digest: string;
  model: string;
  max_output_tokens: number;
  input_bound_tokens: number;
  booked_tokens: number;
  status: ReservationStatus;
  made_by: ReservationMaker;
  /** What the sweep charged when the hold expired unsettled (the booking); null otherwise. */
  expiry_charged_tokens: number | null;
  /** The price booked at (kept for the settlement) and the worst-case cost booked. */
  provider_kind: ProviderKind | null;
  price: ModelPrice | null;
  booked_nanos: number | null;
  expiry_charged_nanos: number | null;
  /** The level that refused it, as a refusal names it (`team "payments", month`). */
  refused_by: string | null;
  created_at: Date;
  expired_at: Date | null;
  reconciled_at: Date | null;
}

export interface UsageRow {
  external_id: string;
  input_tokens: number;
  output_tokens: number;
  used_tokens: number;
  released_tokens: number;
  /** Nano-dollars; null for usage recorded before prices. */
  cost_nanos: number | null;
  recorded_at: Date;
}

const reservationColumns = `id, session_id, request_id, run_id, request_digest, model,
  max_output_tokens, input_bound_tokens, booked_tokens, status, made_by, expiry_charged_tokens,
  provider_kind, price, booked_nanos, expiry_charged_nanos, refused_by,
  created_at, expired_at, reconciled_at`;
const usageColumns = `external_id, input_tokens, output_tokens, used_tokens, released_tokens,
  cost_nanos, recorded_at`;
const budgetColumns = 'max_tokens, held_tokens, used_tokens, held_nanos, used_nanos';

/** '/' appears in neither id (see externalIdPattern), so the pair is recoverable from the key. */
function reservationKey(sessionId: string, requestId: string): string {
  return `${sessionId}/${requestId}`;
}

export async function findBudget(db: Queryable, runId: string): Promise<BudgetFigures> {
  const { rows } = await db.query<BudgetFigures>(
    `select ${budgetColumns} from run_budgets where run_id = $1`,
    [runId],
  );
  return budgetRow(rows, runId);
}

function budgetRow<Row extends BudgetFigures>(rows: Row[], runId: string): Row {
  const [row] = rows;
  // The row is opened with the run (a trigger), so a missing one is an unknown run.
  if (!row) throw new Error(`run ${runId} has no budget`);
  return row;
}

interface AdmissionRequest {
  runId: string;
  sessionId: string;
  requestId: string;
  /** Digest of what was asked; a retry with another digest is a conflict, for the caller. */
  requestDigest: string;
  model: string;
  maxOutputTokens: number;
  inputBoundTokens: number;
  /** Who meters and settles the request: the gate's model proxy, or the runner (default). */
  via?: ReservationMaker;
  /** The levels above the run: its workspace and the member who invoked it. */
  workspaceId: string;
  memberId: string;
  /** The price booked at, kept for the settlement, and the worst case it gives. */
  providerKind: ProviderKind;
  price: ModelPrice;
  bookedNanos: number;
}

interface Admission {
  /** Status `held` if admitted, `refused` if not; on a retry, whatever the first answer became. */
  reservation: ReservationRow;
  /** False when the request id was answered before: this call booked nothing. */
  created: boolean;
}

/**
 * Admits a model request if, at every level it falls under, used + held + its booking stays
 * within each cap (money and tokens), booking a hold at all of them; records the answer either
 * way (a refusal with the level that refused) so the same request id always gets it back.
 *
 * A request of a run that falls under no budget above its own and that fits is admitted in one
 * statement (`admitWithinRun`): requests of one run racing queue on the run's budget row inside
 * it, each holding the row only while its statement runs. Anything else (a level above the run,
 * a refusal, a request id answered before) takes the transaction: begin; the run's budget row
 * locked, with the ids of the levels above it; the levels' windows opened and locked; the
 * reservation, the holds and model.reserved in one statement; commit.
 */
export async function admitModelRequest(pool: Pool, request: AdmissionRequest): Promise<Admission> {
  const booking = {
    tokens: request.maxOutputTokens + request.inputBoundTokens,
    nanos: request.bookedNanos,
  };
  const { runId } = request;
  if (!runsWithLevels.has(runId)) {
    const admitted = await admitWithinRun(pool, request, booking);
    if (admitted) return admitted;
  }
  return withTransaction(pool, async (tx) => {
    const { budget, spendBudgetIds } = await lockRunBudget(tx, request);
    sawLevels(runId, spendBudgetIds.length > 0);
    const levels = await lockSpendLevels(tx, spendBudgetIds);
    const exhausted = firstExhausted([runAllowance(budget), ...levels], booking);
    return bookReservation(tx, request, booking, levels, exhausted);
  });
}

/**
 * Runs this process saw fall under a budget above their own: their admissions go straight to
 * the transaction. Only a shortcut: the one statement checks for such budgets itself.
 */
const runsWithLevels = new Set<string>();
const runsWithLevelsLimit = 10_000;

function sawLevels(runId: string, any: boolean): void {
  if (!any) {
    runsWithLevels.delete(runId);
    return;
  }
  if (runsWithLevels.size >= runsWithLevelsLimit) runsWithLevels.clear();
  runsWithLevels.add(runId);
}

/**
 * The common admission as one statement, its own transaction: the run's budget row locked, then
 * its run, then the session's ledger head (the order the transaction takes them in); the
 * reservation inserted, the run's hold raised and model.reserved appended only when no budget
 * above the run applies and the booking fits the run's allowance as the lock found it (the run
 * level of `levelFits`: tokens only, the run has no money cap). Undefined when any of that fails:
 * nothing was written, and the transaction decides, a refusal or a request id answered before
 * included.
 */
async function admitWithinRun(
  pool: Pool,
  request: AdmissionRequest,
  booking: Booking,
): Promise<Admission | undefined> {
  const values = [
    ...reservationValues(request, booking, [], undefined),
    request.workspaceId,
    request.memberId,
  ];
  const guarded = await appendGuarded<ReservationRow>(
    pool,
    request.sessionId,
    {
      // What the statement cannot admit is known before the run's row is waited on: a budget
      // above the run, or an allowance already spent as the statement's snapshot shows it. Such
      // a request goes to the transaction at once, so that a burst of them holds no connection
      // waiting on the row twice. A row that changed while waited on is checked again, as locked.
      lockFirst: `with budget as materialized (
          select used_tokens, held_tokens, max_tokens from run_budgets
          where run_id = $4::uuid and used_tokens + held_tokens + $9::bigint <= max_tokens
            and not exists (
              select 1 from spend_budgets b
              where ${budgetsOfSubject('$18::uuid', '$4::uuid', '$19::uuid')})
          for update
        ), run as materialized (
          select 1 from runs
          where session_id = $2::text and exists (select 1 from budget) for key share
        )
        select budget.* from budget, run`,
      sql: reservationInsertSql(
        `from first where exists (select 1 from head)
           and first.used_tokens + first.held_tokens + $9::bigint <= first.max_tokens`,
      ),
      values,
      followedBy: holdsSql,
    },
    reservedEvent(request, booking),
  );
  return guarded.outcome === 'changed' ? { reservation: guarded.row, created: true } : undefined;
}

/**
 * The run's budget row, locked: admissions of one run queue here. The ids of the spend budgets
 * above the run come in the same statement; their windows are locked next, after this row.
 */
async function lockRunBudget(
  tx: pg.PoolClient,
  request: AdmissionRequest,
): Promise<{ budget: BudgetFigures; spendBudgetIds: string[] }> {
  const { rows } = await tx.query<BudgetFigures & { spend_budget_ids: string[] }>(
    prepared(
      `select ${budgetColumns}, ${spendBudgetIdsSql} as spend_budget_ids
       from run_budgets where run_id = $2 for update of run_budgets`,
      [request.workspaceId, request.runId, request.memberId],
    ),
  );
  const { spend_budget_ids, ...budget } = budgetRow(rows, request.runId);
  return { budget, spendBudgetIds: spend_budget_ids };
}

/** The run's own budget as a level: a token cap for the run's life, no money cap. */
function runAllowance(budget: BudgetFigures): SpendLevel {
  return {
    kind: 'run',
    name: null,
    period: 'life',
    max_nanos: null,
    max_tokens: budget.max_tokens,
    held_nanos: budget.held_nanos,
    used_nanos: budget.used_nanos,
    held_tokens: budget.held_tokens,
    used_tokens: budget.used_tokens,
  };
}

/**
 * Records the answer: a hold, with the run's and each level's held figures raised and
 * model.reserved appended, or a refusal naming the level that refused. The insert comes after
 * the run's budget lock, so a first attempt of the same request id has committed by then or
 * never will: when nothing is inserted, its answer is there to read, and nothing is booked.
 */
async function bookReservation(
  tx: pg.PoolClient,
  request: AdmissionRequest,
  booking: Booking,
  levels: readonly LockedLevel[],
  exhausted: SpendLevel | undefined,
): Promise<Admission> {
  const id = reservationKey(request.sessionId, request.requestId);
  const values = reservationValues(request, booking, levels, exhausted);
  const event = reservedEvent(request, booking);
  if (!exhausted) {
    const guarded = await appendGuarded<ReservationRow>(
      tx,
      request.sessionId,
      {
        sql: reservationInsertSql('where exists (select 1 from head)'),
        values,
        // The row's foreign key locks its run: the run before the head, as a revocation takes them.
        lockFirst: 'select 1 from runs where session_id = $2::text for key share',
        followedBy: holdsSql,
      },
      event,
    );
    if (guarded.outcome === 'changed') return { reservation: guarded.row, created: true };
    if (guarded.outcome === 'unchanged')
      return { reservation: await firstAnswer(tx, id), created: false };
  }
  // A refusal appends nothing; a hold of a session with no head yet appends its event after the
  // insert, which locks the run before the head all the same.
  const { rows } = await tx.query<ReservationRow>(
    `with changed as (${reservationInsertSql('')}), ${holdsSql}
     select ${reservationColumns} from changed`,
    values,
  );
  const [reservation] = rows;
  if (!reservation) return { reservation: await firstAnswer(tx, id), created: false };
  if (!exhausted) await appendEvent(tx, request.sessionId, event);
  return { reservation, created: true };
}

/** The values of reservationInsertSql and holdsSql ($1..$17). */
function reservationValues(
  request: AdmissionRequest,
  booking: Booking,
  levels: readonly LockedLevel[],
  exhausted: SpendLevel | undefined,
): unknown[] {
  return [
    reservationKey(request.sessionId, request.requestId),
    request.sessionId,
    request.requestId,
    request.runId,
    request.requestDigest,
    request.model,
    request.maxOutputTokens,
    request.inputBoundTokens,
    booking.tokens,
    exhausted ? 'refused' : 'held',
    request.via ?? 'runner',
    request.providerKind,
    JSON.stringify(request.price),
    booking.nanos,
    exhausted ? levelLabel(exhausted) : null,
    ...levelHoldValues(levels),
  ];
}

/** The reservation's insert ($1..$15), refused or held; a request id answered before adds none. */
const reservationInsertSql = (guard: string) =>
  `insert into model_reservations (id, session_id, request_id, run_id, request_digest, model,
     max_output_tokens, input_bound_tokens, booked_tokens, status, made_by, provider_kind, price,
     booked_nanos, refused_by)
   select $1::text, $2::text, $3::text, $4::uuid, $5::text, $6::text, $7::bigint, $8::bigint,
     $9::bigint, $10::text, $11::text, $12::text, $13::jsonb, $14::bigint, $15::text
   ${guard}
   on conflict (id) do nothing
   returning ${reservationColumns}`;

/** A hold's figures raised at the run ($4) and at each level locked ($16, $17), in one go. */
const holdsSql = `run_held as (
       update run_budgets rb set held_tokens = rb.held_tokens + c.booked_tokens,
         held_nanos = rb.held_nanos + c.booked_nanos
       from changed c where rb.run_id = $4::uuid and c.status = 'held'
     ), ${levelHoldsSql('$16', '$17')}`;

/** The first answer to a request id, read once its insert found it there. */
async function firstAnswer(tx: pg.PoolClient, id: string): Promise<ReservationRow> {
  const { rows } = await tx.query<ReservationRow>(
    `select ${reservationColumns} from model_reservations where id = $1`,
    [id],
  );
  return one(rows);
}

function reservedEvent(request: AdmissionRequest, booking: Booking) {
  return redact('model.reserved', {
    request_id: request.requestId,
    model: request.model,
    max_output_tokens: request.maxOutputTokens,
    input_bound_tokens: request.inputBoundTokens,
    booked_tokens: booking.tokens,
    booked_nanos: booking.nanos,
    via: request.via ?? 'runner',
  });
}

async function lockReservation(tx: pg.PoolClient, id: string): Promise<ReservationRow | undefined> {
  const { rows } = await tx.query<ReservationRow>(
    `select ${reservationColumns} from model_reservations where id = $1 for update`,
    [id],
  );
  return rows[0];
}

/** Facts of a proxied exchange for the ledger: never a prompt, never a key. */
export interface MeteredFacts {
  outcome: string;
  upstream_status: number | null;
  upstream_request_id: string | null;
  latency_ms: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

interface UsageReport {
  /** Who settles: only the reservation's maker may. */
  by: ReservationMaker;
  sessionId: string;
  requestId: string;
  inputTokens: number;
  outputTokens: number;
  /**
   * The exchange's cost in nano-dollars, from the reservation's booked price (see
   * settlementCost); omitted for a reservation booked before prices.
   */
  costNanos?: (reservation: ReservationRow) => number | null;
  /** Present when the gate's model proxy measured the usage itself. */
  metered?: MeteredFacts;
  /** Further writes in the same transaction, made only by the call that settles the hold. */
  alsoWhenSettling?: (tx: pg.PoolClient, reservation: ReservationRow) => Promise<void>;
}

type Reconciliation =
  | { kind: 'unknown' }
  | { kind: 'refused'; reservation: ReservationRow }
  /** Made by the other party, which settles it: nothing changed. */
  | { kind: 'not_maker'; reservation: ReservationRow }
  | { kind: 'reconciled'; reservation: ReservationRow; usage: UsageRow; created: boolean };

/**
 * Settles a reservation with the real usage: one usage entry keyed by the reservation, the hold
 * released (unless the sweep already did) and the usage counted. A second call finds the entry
 * and changes nothing; the caller compares figures.
 */
export async function reconcileModelRequest(
  pool: Pool,
  report: UsageReport,
): Promise<Reconciliation> {
  return withTransaction(pool, async (tx) => {
    const id = reservationKey(report.sessionId, report.requestId);
    const reservation = await lockReservation(tx, id);
    if (!reservation) return { kind: 'unknown' };
    if (reservation.status === 'refused') return { kind: 'refused', reservation };
    if (reservation.made_by !== report.by) return { kind: 'not_maker', reservation };
    if (reservation.status === 'reconciled') {
      const { rows } = await tx.query<UsageRow>(
        `select ${usageColumns} from model_usage where external_id = $1`,
        [id],
      );
      return { kind: 'reconciled', reservation, usage: one(rows), created: false };
    }

    const held = reservation.status === 'held';
    const released = held ? reservation.booked_tokens : 0;
    const releasedNanos = held ? (reservation.booked_nanos ?? 0) : 0;
    // Real usage replaces what an expiry charged in its place.
    const replacedCharge = reservation.expiry_charged_tokens ?? 0;
    const replacedNanos = reservation.expiry_charged_nanos ?? 0;
    const cost = report.costNanos?.(reservation) ?? null;
    const usage = one(
      (
        await tx.query<UsageRow>(
          `insert into model_usage (external_id, session_id, input_tokens, output_tokens,
             released_tokens, cost_nanos)
           values ($1, $2, $3, $4, $5, $6)
           returning ${usageColumns}`,
          [id, reservation.session_id, report.inputTokens, report.outputTokens, released, cost],
        )
      ).rows,
    );
    const charged = {
      tokens: usage.used_tokens - replacedCharge,
      nanos: (cost ?? 0) - replacedNanos,
    };
    await tx.query(
      `update run_budgets set held_tokens = held_tokens - $2, used_tokens = used_tokens + $3,
         held_nanos = held_nanos - $4, used_nanos = used_nanos + $5
       where run_id = $1`,
      [reservation.run_id, released, charged.tokens, releasedNanos, charged.nanos],
    );
    await settleAtLevels(tx, id, {
      released: { tokens: released, nanos: releasedNanos },
      charged,
    });
    const settled = one(
      (
        await tx.query<ReservationRow>(
          // The clock, not the transaction's start: this may have waited on the sweep's lock.
          `update model_reservations set status = 'reconciled', reconciled_at = clock_timestamp()
           where id = $1 returning ${reservationColumns}`,
          [id],
        )
      ).rows,
    );
    await appendEvent(
      tx,
      reservation.session_id,
      redact('model.reconciled', {
        request_id: reservation.request_id,
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        used_tokens: usage.used_tokens,
        released_tokens: released,
        ...(replacedCharge > 0 && { replaced_charge_tokens: replacedCharge }),
        ...(cost !== null && { cost_nanos: cost }),
        ...(replacedNanos > 0 && { replaced_charge_nanos: replacedNanos }),
        via: report.by,
        ...report.metered,
      }),
    );
    await report.alsoWhenSettling?.(tx, settled);
    return { kind: 'reconciled', reservation: settled, usage, created: true };
  });
}

/**
 * Expires the oldest hold older than `expireAfterMs`: its spend was never learned, so it is
 * charged at its booking (moved from held to used). `skip locked` lets several sweepers share
 * the work: none waits on another or on a reconciliation in flight.
 */
async function expireOneStaleReservation(pool: Pool, expireAfterMs: number): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    // A row another transaction settled meanwhile is re-checked under the lock and passed over.
    const { rows } = await tx.query<ReservationRow>(
      `select ${reservationColumns} from model_reservations
       where status = 'held' and created_at <= now() - make_interval(secs => $1::double precision)
       order by created_at limit 1
       for update skip locked`,
      [expireAfterMs / 1000],
    );
    const reservation = rows[0];
    if (!reservation) return false;
    await tx.query(
      `update model_reservations set status = 'expired', expired_at = clock_timestamp(),
         expiry_charged_tokens = booked_tokens, expiry_charged_nanos = booked_nanos
       where id = $1`,
      [reservation.id],
    );
    const nanos = reservation.booked_nanos ?? 0;
    await tx.query(
      `update run_budgets set held_tokens = held_tokens - $2, used_tokens = used_tokens + $2,
         held_nanos = held_nanos - $3, used_nanos = used_nanos + $3
       where run_id = $1`,
      [reservation.run_id, reservation.booked_tokens, nanos],
    );
    const booking = { tokens: reservation.booked_tokens, nanos };
    await settleAtLevels(tx, reservation.id, { released: booking, charged: booking });
    await appendEvent(
      tx,
      reservation.session_id,
      redact('model.expired', {
        request_id: reservation.request_id,
        released_tokens: reservation.booked_tokens,
        charged_tokens: reservation.booked_tokens,
        ...(reservation.booked_nanos !== null && { charged_nanos: reservation.booked_nanos }),
      }),
    );
    return true;
  });
}

/**
 * The sweep: expires every hold never settled within `expireAfterMs` (up to `limit` per call),
 * charging each its booking. Idempotent and safe to run from several processes at once.
 * Returns how many it expired.
 */
export async function expireStaleReservations(
  pool: Pool,
  { expireAfterMs, limit = 1_000 }: { expireAfterMs: number; limit?: number },
): Promise<number> {
  let swept = 0;
  while (swept < limit && (await expireOneStaleReservation(pool, expireAfterMs))) swept += 1;
  return swept;
}

/**
 * Runs the sweep now and then every `intervalMs` until stopped. A failed sweep (PostgreSQL
 * away) is reported and retried at the next tick. The returned stop waits for a sweep in flight.
 */
export function startReservationSweeper(
  pool: Pool,
  {
    intervalMs,
    expireAfterMs,
    onError = (err: unknown) => {
      process.stderr.write(`reservation sweep failed: ${String(err)}\n`);
    },
  }: { intervalMs: number; expireAfterMs: number; onError?: (err: unknown) => void },
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    inFlight = expireStaleReservations(pool, { expireAfterMs })
      .then(() => undefined, onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await inFlight;
  };
}
