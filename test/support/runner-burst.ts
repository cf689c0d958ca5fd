import { execFile } from 'node:child_process';
import type { Server } from 'node:http';

/** What each call of a burst was answered: its status, in the order the calls were made. */
export type BurstAnswers = number[];

/** The calls a burst makes: the PUT of `${prefix}${i}` with `body(i)`, as a runner's hook would. */
export interface Burst {
  url: string;
  sessionId: string;
  sessionToken: string;
  count: number;
  prefix: string;
  body: (i: number) => unknown;
}

/**
 * The burst's runner, run as its own Node process: it sends every PUT at once and prints each
 * status. Plain JavaScript, so it starts without a loader.
 */
const runnerCode = `
  const { url, token, calls } = JSON.parse(process.env.GATE_BURST);
  const statuses = await Promise.all(calls.map(async ({ path, body }) => {
    const answer = await fetch(url + path, {
      method: 'PUT',
      headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
      body,
    });
    await answer.arrayBuffer();
    return answer.status;
  }));
  process.stdout.write(JSON.stringify(statuses));
`;

/**
 * A burst of one run's tool calls sent from another process, as a runner's are: the client's own
 * work (its connections, its answers read) is not the API's, as it would be if the test sent them
 * from the process the API runs in. Resolves `sent` once `server` has received `arrived` of them,
 * and `answers` with every status.
 */
export function burstFromAnotherProcess(
  server: Server,
  burst: Burst,
  arrived: number,
): { sent: Promise<void>; answers: Promise<BurstAnswers> } {
  const pathOf = (i: number) => `/v1/sessions/${burst.sessionId}/tool-calls/${burst.prefix}${i}`;
  const paths = new Set(Array.from({ length: burst.count }, (_, i) => pathOf(i)));
  let seen = 0;
  let onArrived: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => {
    onArrived = resolve;
  });
  const count = (request: { url?: string }) => {
    if (request.url !== undefined && paths.has(request.url) && ++seen >= arrived) {
      server.off('request', count);
      onArrived();
    }
  };
  server.on('request', count);
  const calls = Array.from({ length: burst.count }, (_, i) => ({
    path: pathOf(i),
    body: JSON.stringify(burst.body(i)),
  }));
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    GATE_BURST: JSON.stringify({ url: burst.url, token: burst.sessionToken, calls }),
  };
  const answers = new Promise<BurstAnswers>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', runnerCode],
      { env, timeout: 120_000 },
      (err, stdout) => {
        server.off('request', count);
        if (err) reject(new Error(`the burst's runner failed: ${err.message}`, { cause: err }));
        else resolve(JSON.parse(stdout) as BurstAnswers);
      },
    );
  });
  // A runner that failed before its calls arrived ends the wait for them too.
  answers.then(onArrived, onArrived);
  return { sent, answers };
}
