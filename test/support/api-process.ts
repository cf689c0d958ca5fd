import { waitFor, type ManagedProcess } from '../../tools/devstack/child-process.js';
import { startNodeProcess } from '../../tools/devstack/stack.js';
import { apiCaller, type ApiCaller } from './api.js';
import { freeLoopbackPort } from '../../tools/devstack/free-port.js';

/**
 * The API as its own process (src/api/main.ts) on the test stack, with `env` over the test's own
 * environment (which must name GATE_OPERATOR_KEY) and on `port` (a free one by default). Resolves
 * once it is ready.
 */
export async function startApiProcess(
  name: string,
  env: NodeJS.ProcessEnv & { GATE_OPERATOR_KEY: string },
  { port, output = [] }: { port?: number; output?: string[] } = {},
): Promise<{ process: ManagedProcess; api: ApiCaller }> {
  const listenOn = port ?? (await freeLoopbackPort());
  const child = startNodeProcess(
    name,
    'src/api/main.ts',
    { ...process.env, ...env, GATE_API_PORT: String(listenOn) },
    { quiet: true, capture: output },
  );
  const url = `http://127.0.0.1:${listenOn}`;
  await waitFor(
    `${name} to be ready`,
    async () => {
      if (child.child.exitCode !== null) {
        throw new Error(`${name} exited with ${child.child.exitCode}: ${output.join('\n')}`);
      }
      const ready = await fetch(`${url}/readyz`);
      if (!ready.ok) throw new Error(`readyz ${ready.status}`);
    },
    { timeoutMs: 90_000, intervalMs: 200 },
  );
  return { process: child, api: apiCaller(url, env.GATE_OPERATOR_KEY) };
}
