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
 * from the process the API runs in. `sent` resolves once `server` has received `arrived` of them
 * (and fails if the runner ended first); `answers`, with every status once all are answered.
 */
export function burstFromAnotherProcess(
  server: Server,
  burst: Burst,
  arrived: number,
): { sent: Promise<void>; answers: Promise<BurstAnswers> } {
  const pathOf = (i: number) => `/v1/sessions/${burst.sessionId}/tool-calls/${burst.prefix}${i}`;
  const paths = new Set(Array.from({ length: burst.count }, (_, i) => pathOf(i)));
  let seen = 0;
  const arrival: { resolve: () => void; reject: (err: Error) => void } = {
    resolve: () => undefined,
    reject: () => undefined,
  };
  const sent = new Promise<void>((resolve, reject) => {
    Object.assign(arrival, { resolve, reject });
  });
  const count = (request: { url?: string }) => {
    if (request.url !== undefined && paths.has(request.url) && ++seen >= arrived) {
      server.off('request', count);
      arrival.resolve();
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
    // Bounded under the test's own timeout, so that a stuck runner fails with its own error.
    execFile(
      process.execPath,
      ['--input-type=module', '-e', runnerCode],
      { env, timeout: 90_000 },
      (err, stdout) => {
        server.off('request', count);
        const failed = (cause: unknown) => {
          reject(new Error(`the burst's runner failed: ${String(cause)}`, { cause }));
        };
        if (err) {
          failed(err);
          return;
        }
        try {
          resolve(JSON.parse(stdout) as BurstAnswers);
        } catch (parseError) {
          failed(parseError);
        }
      },
    );
  });
  // A runner that ended before enough of its calls arrived ends the wait for them, failing it
  // (once they arrived, `sent` is settled and this changes nothing).
  answers.then(
    () => {
      arrival.reject(new Error(`only ${seen} of the burst's calls arrived before it ended`));
    },
    (err: unknown) => {
      arrival.reject(err as Error);
    },
  );
  return { sent, answers };
}
