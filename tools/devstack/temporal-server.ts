import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { run, startProcess, stillRuns, waitFor, type ManagedProcess } from './child-process.js';
import { portSetting, projectRoot, type StackProfile } from './stack-config.js';
import { freeLoopbackPort, requireFreePort } from './free-port.js';
import { startTemporalUiProxy } from './temporal-ui-proxy.js';

export const toolsDir = path.join(projectRoot, '.tools');
/** The Go module the CLI is built from: its version, and the SQLite driver it is built with. */
export const temporalCliModule = path.join(projectRoot, 'tools', 'temporal-cli');

/**
 * Where the CLI built from `tools/temporal-cli` is kept: named by its version and a digest of
 * the module's go.mod and go.sum, so a changed pin builds anew.
 */
export function temporalCliPath(version: string): string {
  const digest = createHash('sha256');
  for (const file of ['go.mod', 'go.sum'])
    digest.update(readFileSync(path.join(temporalCliModule, file)));
  return path.join(
    toolsDir,
    `temporal-${version}-${digest.digest('hex').slice(0, 12)}`,
    'temporal',
  );
}

/** The CLI version tools/temporal-cli/go.mod pins; temporal-dev.yaml must name the same. */
function pinnedCliVersion(): string | undefined {
  const goMod = readFileSync(path.join(temporalCliModule, 'go.mod'), 'utf8');
  return /^\s*github\.com\/temporalio\/cli v(\S+)/m.exec(goMod)?.[1];
}

/**
 * Builds the Temporal CLI from the Go module proxy once per pin into `.tools/`, from the module
 * in tools/temporal-cli (its go.sum checks every module). Nothing is downloaded at run time:
 * tests and `npm run dev` use this binary.
 */
export async function ensureTemporalCli(version: string): Promise<string> {
  const pinned = pinnedCliVersion();
  if (pinned !== version) {
    throw new Error(
      `temporal-dev.yaml names the Temporal CLI ${version}, but tools/temporal-cli/go.mod pins ${pinned ?? 'none'}: change both together`,
    );
  }
  const binary = temporalCliPath(version);
  const what = `the temporal CLI at ${path.relative(projectRoot, binary)}`;
  if (existsSync(binary) && (await stillRuns(binary, what))) return binary;
  mkdirSync(path.dirname(binary), { recursive: true });
  process.stderr.write(
    `building the Temporal CLI ${version} with go build (the first build takes a few minutes)...\n`,
  );
  const started = Date.now();
  try {
    await run('go', ['build', '-o', binary, 'github.com/temporalio/cli/cmd/temporal'], {
      cwd: temporalCliModule,
      env: { ...process.env, GOFLAGS: '-buildvcs=false -mod=readonly' },
      echo: true,
    });
  } catch (err) {
    throw new Error(
      `could not build the Temporal CLI ${version}; nothing can run without a Temporal server.\n${(err as Error).message}`,
    );
  }
  process.stderr.write(
    `built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)} s\n`,
  );
  return binary;
}

/** Where the stack's Temporal UI is, its codec with it (see temporal-ui-proxy.ts). */
export function temporalUiOrigin(profile: StackProfile): string {
  return `http://${profile.temporal.ip}:${profile.temporal.uiPort}`;
}

/** The dev server's arguments; its own UI listens on `uiPort`, behind the stack's UI address. */
export function temporalServerArgs(profile: StackProfile, uiPort: number): string[] {
  const t = profile.temporal;
  const args = [
    'server',
    'start-dev',
    '--ip',
    t.ip,
    '--port',
    String(t.port),
    '--ui-port',
    String(uiPort),
    '--namespace',
    t.namespace,
    '--db-filename',
    t.sqliteFile,
    '--log-level',
    'error',
    // The UI shows decrypted payloads through the API's codec endpoint, served on the UI's own
    // origin, to a browser signed in to the API with the operator key.
    '--ui-codec-endpoint',
    `${temporalUiOrigin(profile)}/codec`,
  ];
  for (const [pragma, value] of Object.entries(t.sqlitePragmas)) {
    args.push('--sqlite-pragma', `${pragma}=${value}`);
  }
  for (const [key, value] of Object.entries(t.dynamicConfig)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  for (const [name, type] of Object.entries(t.searchAttributes)) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  return args;
}

export function temporalAddress(profile: StackProfile): string {
  return `${profile.temporal.ip}:${profile.temporal.port}`;
}

/**
 * Starts the dev server on the profile's SQLite file and waits until its frontend answers; its
 * UI, with the gate's codec, is at the profile's UI address. Stopping it stops both.
 */
export async function startTemporalServer(
  binary: string,
  profile: StackProfile,
  { quiet = false } = {},
): Promise<ManagedProcess> {
  mkdirSync(path.dirname(profile.temporal.sqliteFile), { recursive: true });
  const { ip, port, uiPort: shownUiPort } = profile.temporal;
  await requireFreePort(ip, port, 'The Temporal dev server', portSetting(profile, 'temporal'));
  await requireFreePort(ip, shownUiPort, 'The Temporal UI', portSetting(profile, 'temporal_ui'));
  const { server, uiPort, output } = await startTemporalProcess(binary, profile, quiet);
  // A server that exits unasked says so with its last words: whatever used it fails next.
  let stopping = false;
  void server.exited.then((code) => {
    if (stopping) return;
    process.stderr.write(
      `the Temporal dev server at ${temporalAddress(profile)} exited unasked (${code}):\n${output.slice(-30).join('\n')}\n`,
    );
  });
  try {
    const proxy = await startTemporalUiProxy(
      { host: ip, port: profile.temporal.uiPort },
      { host: ip, port: uiPort },
      { host: profile.api.host, port: profile.api.port },
    );
    return {
      ...server,
      stop: async (signal, graceMs) => {
        stopping = true;
        await proxy.close();
        await server.stop(signal, graceMs);
      },
    };
  } catch (err) {
    stopping = true;
    await server.stop();
    throw err;
  }
}

/**
 * The CLI's own UI listens on a port found free a moment before: another process may take it
 * first, and the server exits. So a server that exits while starting is started once more, on
 * another port, and a second exit fails with what it printed.
 */
async function startTemporalProcess(binary: string, profile: StackProfile, quiet: boolean) {
  for (let attempt = 1; ; attempt++) {
    const uiPort = await freeLoopbackPort();
    const output: string[] = [];
    const args = temporalServerArgs(profile, uiPort);
    const server = startProcess('temporal', binary, args, { quiet, capture: output });
    try {
      await waitTemporalReady(profile, server);
      return { server, uiPort, output };
    } catch (err) {
      await server.stop();
      if (server.child.exitCode === null || attempt === 2) {
        throw new Error(`${(err as Error).message}\n${output.slice(-20).join('\n')}`, {
          cause: err,
        });
      }
    }
  }
}

export async function waitTemporalReady(profile: StackProfile, server?: ManagedProcess) {
  await waitFor(
    'the Temporal dev server',
    async () => {
      if (server && server.child.exitCode !== null) {
        throw new Error(`the Temporal dev server exited with ${server.child.exitCode}`);
      }
      const connection = await Connection.connect({
        address: temporalAddress(profile),
        connectTimeout: 1000,
      });
      try {
        await connection.workflowService.describeNamespace({
          namespace: profile.temporal.namespace,
        });
      } finally {
        await connection.close();
      }
    },
    { timeoutMs: 90_000, intervalMs: 300 },
  );
}
