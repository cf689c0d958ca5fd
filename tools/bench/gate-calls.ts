/** The bench's runner and approver: tool calls and decisions through the gate's HTTP API. */
import { randomUUID } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { createDemoRun, seed, type DemoWorkspace } from '../seed.js';

export class BenchCallError extends Error {
  override name = 'BenchCallError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function call(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  // As the runner's client asks (`GateClient`): undici's request, not fetch.
  const response = await request(base + path, {
    method: method as Dispatcher.HttpMethod,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await response.body.json()) as Record<string, unknown>;
  if (response.statusCode >= 300)
    throw new BenchCallError(
      `${method} ${path}: ${response.statusCode} ${JSON.stringify(json)}`,
      response.statusCode,
    );
  return json;
}

export const allowBody = { tool: 'Read', arguments: { file_path: 'README.md' } };
export const firstStageDenyBody = { tool: 'Nope', arguments: {} };
/** The demo policy asks a person for anything that is not a read. */
export const approvalBody = { tool: 'Bash', arguments: { command: 'echo bench' } };

export interface BenchRun {
  session_id: string;
  session_token: string;
}

/** The demo workspace on the API at `base`, and what a runner and its approver do there. */
export async function gateCalls(base: string, operatorKey: string) {
  const demo: DemoWorkspace = await seed(base, operatorKey);
  const newRun = (): Promise<BenchRun> => createDemoRun(base, operatorKey, demo);

  /** One tool call with a fresh id; resolves with its id once the gate answered. */
  const submit = async (run: BenchRun, body: unknown, id: string = randomUUID()) => {
    const answer = await call(
      base,
      'PUT',
      `/v1/sessions/${run.session_id}/tool-calls/${id}`,
      run.session_token,
      body,
    );
    return { id, status: answer.status as string };
  };

  /** A runner waiting for a pending call's final answer. */
  const waitFor = (run: BenchRun, id: string) =>
    call(base, 'GET', `/v1/sessions/${run.session_id}/tool-calls/${id}?wait=30`, run.session_token);

  const approve = (run: BenchRun, id: string) =>
    call(base, 'POST', `/v1/approvals/${run.session_id}/${id}/decision`, demo.approver.user_token, {
      decision: 'approve',
    });

  return { demo, newRun, submit, waitFor, approve };
}

export type GateCalls = Awaited<ReturnType<typeof gateCalls>>;

/** `count` runs made one after another: at once, a loaded machine's pool turns some away. */
export async function newRuns(calls: GateCalls, count: number): Promise<BenchRun[]> {
  const runs: BenchRun[] = [];
  for (let i = 0; i < count; i += 1) runs.push(await calls.newRun());
  return runs;
}
