/**
 * The approvers' list at scale: 1,000 pending calls across 50 runs, read a page at a time (50
 * calls, grouped by run) as an approver does. The calls are written straight to the tables: what
 * is measured is the list, not the gate that filled it.
 */
import { createPool, type Queryable } from '../../src/store/pool.js';
import { figures, show, type Figures } from './figures.js';
import { newRuns, type GateCalls } from './gate-calls.js';

const runs = 50;
const callsPerRun = 20;
const reads = 200;

export interface ApprovalListFigures {
  figures: Figures;
  /** What the first page said of itself: how many calls in all, and their runs in order. */
  total: number;
  pageRuns: string[];
  pageCalls: { run_id: string; requested_at: string }[];
}

/** Seeds the calls, then reads pages 1..20 in turn, `reads` times in all. */
export async function measureApprovalList(
  calls: GateCalls,
  base: string,
  pool: Queryable,
): Promise<ApprovalListFigures> {
  {
    const created = await newRuns(calls, runs);
    const sessions = created.map((run) => run.session_id);
    // Calls interleaved across runs in time, so grouping (not insertion order) makes the groups.
    await pool.query(
      `insert into tool_calls (session_id, tool_call_id, run_id, tool, request_digest, status)
       select r.session_id, 'list-' || n, r.id, 'Bash', 'bench', 'pending_approval'
       from runs r, generate_series(1, $2::int) n where r.session_id = any($1::text[]);
       `,
      [sessions, callsPerRun],
    );
    await pool.query(
      `insert into approvals (session_id, tool_call_id, run_id, workspace_id, tool, arguments,
         policy_version, authority, on_timeout, requested_at, expires_at)
       select t.session_id, t.tool_call_id, t.run_id, r.workspace_id, 'Bash',
         jsonb_build_object('command', 'npm test -- --shard ' || t.tool_call_id), 1,
         'workspace_approvers', 'deny', now() - random() * interval '1 hour', now() + interval '1 day'
       from tool_calls t join runs r on r.id = t.run_id
       where t.session_id = any($1::text[]) and t.tool_call_id like 'list-%'`,
      [sessions],
    );
    const token = calls.demo.approver.user_token;
    const read = async (page: number) => {
      const response = await fetch(`${base}/v1/approvals?scope=all&per_page=50&page=${page}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (response.status !== 200) throw new Error(`the list answered ${response.status}`);
      return (await response.json()) as {
        total: number;
        runs: { run_id: string }[];
        approvals: { run_id: string; requested_at: string }[];
      };
    };
    const first = await read(1);
    const pages = Math.ceil((runs * callsPerRun) / 50);
    const samples: number[] = [];
    for (let i = 0; i < reads; i += 1) {
      const started = performance.now();
      await read((i % pages) + 1);
      samples.push(performance.now() - started);
    }
    return {
      figures: figures(samples),
      total: first.total,
      pageRuns: first.runs.map((r) => r.run_id),
      pageCalls: first.approvals,
    };
  }
}

export async function benchApprovalList(
  calls: GateCalls,
  base: string,
  databaseUrl: string,
): Promise<void> {
  process.stdout.write(
    `\nApprovals list, ${runs * callsPerRun} pending calls across ${runs} runs, a page of 50 (${reads} reads; under 100 ms p50 is the aim):\n`,
  );
  const pool = createPool(databaseUrl, { max: 2 });
  try {
    const measured = await measureApprovalList(calls, base, pool);
    show('GET /v1/approvals?scope=all, one page', measured.figures);
  } finally {
    await pool.end();
  }
}
