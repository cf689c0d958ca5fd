import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PhotographError } from './photograph-error.js';

interface StdioProcessOptions {
  cmd: string;
  args: readonly string[];
  /** The child's whole environment: nothing of the parent's is added. */
  env: Record<string, string>;
  /** Where the child starts (and a relative command is found); by default the parent's. */
  cwd?: string;
  /** The user and group the child runs as; by default the parent's. */
  user?: { uid: number; gid: number } | undefined;
  /** Bound on everything the server writes to stdout, over its whole life. */
  maxOutputBytes: number;
  /** Bound on one message; by default the whole output's bound. */
  maxMessageBytes?: number;
  /** What an unexpected exit interrupted, for its message (default: listing its tools). */
  interrupted?: string;
  /** How much of stderr is kept; the rest is read and dropped. */
  maxStderrBytes: number;
  /** Called with the first reason the server can no longer be listened to. */
  onFailure: (error: PhotographError) => void;
}

const stdinEofGraceMs = 300;
const terminateGraceMs = 1_000;
const reapWaitMs = 2_000;

/**
 * A stdio MCP client transport with the bounds the SDK's lacks: the server runs in its own
 * process group so everything it started can be killed, stdout is bounded in total rather than
 * per message, and stderr is kept up to a cap.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: StdioProcessOptions;
  readonly #buffer: ReadBuffer;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #spawned = false;
  #stopping = false;
  #closeEmitted = false;
  #outputBytes = 0;
  readonly #stderr: Buffer[] = [];
  #stderrBytes = 0;

  constructor(options: StdioProcessOptions) {
    this.#options = options;
    this.#buffer = new ReadBuffer({
      maxBufferSize: options.maxMessageBytes ?? options.maxOutputBytes,
    });
  }

  /** What the server wrote to stderr, up to the cap. */
  get stderr(): string {
    return Buffer.concat(this.#stderr).toString('utf8');
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const { cmd, args, env, cwd, user } = this.#options;
      // detached makes the child a process-group leader, so one signal reaches all it spawned.
      const child = spawn(cmd, [...args], {
        env,
        ...(cwd !== undefined && { cwd }),
        ...(user !== undefined && { uid: user.uid, gid: user.gid }),
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      this.#child = child;
      this.#exited = new Promise((done) => {
        child.once('exit', () => {
          done();
        });
        child.on('error', () => {
          if (!this.#spawned) done();
        });
      });
      child.once('spawn', () => {
        this.#spawned = true;
        resolve();
      });
      child.on('error', (error: NodeJS.ErrnoException) => {
        reject(
          new PhotographError(
            'unreachable',
            `could not start "${cmd}": ${error.code ?? error.message}`,
          ),
        );
      });
      child.stdout.on('data', (chunk: Buffer) => {
        this.#onStdout(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        this.#onStderr(chunk);
      });
      // A server that dies mid-write makes stdin fail with EPIPE; its exit is reported below.
      child.stdin.on('error', () => undefined);
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        // A command that never started has been reported by start() already.
        if (this.#spawned && !this.#stopping) {
          this.#options.onFailure(
            new PhotographError(
              'protocol',
              `the server exited (${signal ?? String(code)}) ${this.#options.interrupted ?? 'before it listed its tools'}`,
            ),
          );
        }
        this.#emitClose();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin?.writable) return Promise.reject(new Error('the server process is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else
        stdin.once('drain', () => {
          resolve();
        });
    });
  }

  /** Stops the server politely: end of input, then SIGTERM, then SIGKILL to its group. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#stopping) return;
    this.#stopping = true;
    child.stdin?.end();
    if (!(await this.#exitedWithin(stdinEofGraceMs))) {
      this.#signalGroup('SIGTERM');
      await this.#exitedWithin(terminateGraceMs);
    }
    await this.#finish();
  }

  /** Stops the server at once: SIGKILL to its whole group, then waits to reap it. */
  async kill(): Promise<void> {
    if (!this.#child || this.#stopping) return;
    this.#stopping = true;
    await this.#finish();
  }

  async #finish(): Promise<void> {
    // Also after a clean exit: whatever the server left behind in its group goes with it. The
    // group id cannot be handed to a new process while any member of the group is alive.
    this.#signalGroup('SIGKILL');
    await this.#exitedWithin(reapWaitMs);
    this.#child?.stdout?.destroy();
    this.#child?.stderr?.destroy();
    this.#child?.stdin?.destroy();
    this.#buffer.clear();
    this.#emitClose();
  }

  #onStdout(chunk: Buffer): void {
    if (this.#stopping) return;
    this.#outputBytes += chunk.length;
    if (this.#outputBytes > this.#options.maxOutputBytes) {
      // Pausing fills the pipe, which stops a flooding server until it is killed.
      this.#child?.stdout?.pause();
      this.#options.onFailure(
        new PhotographError(
          'too_large',
          `the server wrote more than ${this.#options.maxOutputBytes} bytes to stdout`,
        ),
      );
      return;
    }
    this.#buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC is skipped, as the SDK's transport does; the byte bound
        // still counts it.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  #onStderr(chunk: Buffer): void {
    const room = this.#options.maxStderrBytes - this.#stderrBytes;
    if (room <= 0) return;
    const kept = chunk.subarray(0, room);
    this.#stderr.push(kept);
    this.#stderrBytes += kept.length;
  }

  #signalGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: nothing is left in the group.
    }
  }

  async #exitedWithin(ms: number): Promise<boolean> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return true;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => {
        resolve(false);
      }, ms);
    });
    try {
      return await Promise.race([this.#exited.then(() => true), waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  #emitClose(): void {
    if (this.#closeEmitted) return;
    this.#closeEmitted = true;
    this.onclose?.();
  }
}
