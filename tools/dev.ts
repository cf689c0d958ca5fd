/**
 * `npm run dev`: the whole stack on embedded defaults. PostgreSQL, the Temporal dev server with
 * its web UI, migrations, a worker and the API. Ctrl-C stops everything it started; the data
 * stays in .data/dev, so a restart keeps every run, approval and workflow history.
 */
import { portSetting, StackConfigError } from './devstack/stack-config.js';
import { requireFreePort } from './devstack/free-port.js';
import {
  planStack,
  startNodeProcess,
  startStack,
  waitHttpOk,
  type Stack,
} from './devstack/stack.js';
import { devPeople } from './devstack/dev-people.js';
import {
  startDevIdentityProvider,
  type DevIdentityProvider,
} from './devstack/identity-provider.js';

let stack: Stack;
try {
  const plan = planStack('dev');
  // The API and the development identity provider beside it start last: their ports are
  // checked first, so a taken one stops the stack before anything else has started.
  const { host, port } = plan.profile.api;
  await requireFreePort(host, port, 'The API', portSetting(plan.profile, 'api'));
  if (!process.env.GATE_OIDC_ISSUER)
    await requireFreePort(
      host,
      port + 1,
      'The development identity provider',
      `${portSetting(plan.profile, 'api')} (it listens on the port after the API's)`,
    );
  stack = await startStack('dev', { plan });
} catch (err) {
  process.stderr.write(
    `${err instanceof StackConfigError ? err.message : String((err as Error).stack ?? err)}\n`,
  );
  process.exit(1);
}
const { api: apiAddr, temporal } = stack.profile;
const apiUrl = `http://${apiAddr.host}:${apiAddr.port}`;
// People sign in as in production, at an identity provider: a development one beside the API
// (unless the environment names a real one), knowing the people `npm run seed` maps to roles.
let idp: DevIdentityProvider | undefined;
if (!process.env.GATE_OIDC_ISSUER) {
  idp = await startDevIdentityProvider({
    redirectUri: `${process.env.GATE_PUBLIC_URL ?? apiUrl}/auth/oidc/callback`,
    people: devPeople,
    host: apiAddr.host,
    port: apiAddr.port + 1,
  });
  Object.assign(stack.env, {
    GATE_OIDC_ISSUER: idp.issuer,
    GATE_OIDC_CLIENT_ID: idp.clientId,
    GATE_OIDC_CLIENT_SECRET: idp.clientSecret,
  });
}
const worker = startNodeProcess('worker', 'src/worker.ts', stack.env);
const api = startNodeProcess('api', 'src/api/main.ts', stack.env);

let stopping = false;
async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  process.stderr.write('\nstopping...\n');
  await Promise.all([api.stop(), worker.stop(), idp?.close()]);
  await stack.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
void api.exited.then((code) => stopAll(typeof code === 'number' ? code || 1 : 1));
void worker.exited.then((code) => stopAll(typeof code === 'number' ? code || 1 : 1));

/** The database URL as printed: its password stays out of the terminal (and its scrollback). */
function shownDatabaseUrl(url: string): string {
  const shown = url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, '$1@');
  return shown === url || process.env.DATABASE_URL
    ? shown
    : `${shown} (password in .data/dev/postgres.password)`;
}

await waitHttpOk(`${apiUrl}/readyz`);
process.stdout.write(`
fluidbox gate is running

  API                ${apiUrl}
  approvals form     ${apiUrl}/approvals
  identity provider  ${idp ? `${idp.issuer} (development: pick a person, no password)` : (process.env.GATE_OIDC_ISSUER ?? '')}
  Temporal UI        http://${temporal.ip}:${temporal.uiPort} (payloads open once ${apiUrl}/login has the operator key)
  Temporal frontend  ${temporal.ip}:${temporal.port} (namespace ${temporal.namespace}, task queue ${temporal.taskQueue})
  PostgreSQL         ${shownDatabaseUrl(stack.databaseUrl)}

  GATE_OPERATOR_KEY=${stack.env.GATE_OPERATOR_KEY ?? ''}

Ctrl-C stops everything; data stays in .data/dev.
`);
