import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A long-running process the stack started, with its output prefixed by its name. */
export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  options: SpawnOptions & { quiet?: boolean; capture?: string[] } = {},
): ManagedProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    const lines = createInterface({ input: stream });
    lines.on('line', (line) => {
      options.capture?.push(line);
      if (!options.quiet) process.stderr.write(`[${name}] ${line}\n`);
    });
  }
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
    });
    child.on('error', (err) => {
      process.stderr.write(`[${name}] failed to start: ${err.message}\n`);
      resolve('spawn-error');
    });
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { name, child, exited, stop };
}

/** Runs a command to completion; rejects with its output when it fails. */
export function run(
  command: string,
  args: readonly string[],
  options: SpawnOptions & { echo?: boolean } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (options.echo) process.stderr.write(chunk);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

/** Whether a process of this pid is running (the owner of something left behind). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a tool installed earlier still runs (its `--version`); says so when it does not. */
export async function stillRuns(
  binary: string,
  what: string,
  args: string[] = ['--version'],
): Promise<boolean> {
  try {
    await run(binary, args);
    return true;
  } catch {
    process.stderr.write(`${what} is broken; installing it again\n`);
    return false;
  }
}

export async function waitFor<T>(
  what: string,
  attempt: () => Promise<T>,
  { timeoutMs = 60_000, intervalMs = 200 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await attempt();
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
  throw new Error(`timed out waiting for ${what}: ${String(lastError)}`);
}
