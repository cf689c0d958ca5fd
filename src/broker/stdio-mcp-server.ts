import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { protocolFailure } from './exchange-failures.js';
import {
  clientInfo,
  Deadline,
  withDefaults,
  type ListedTool,
  type StdioPhotographOptions,
} from './exchange-limits.js';
import { PhotographError } from './photograph-error.js';
import { redactor } from './secret-redactor.js';
import { StdioProcessTransport } from './stdio-process-transport.js';
import { listAllTools } from './tool-listing.js';
import { photographUser, type ProcessIdentity } from './unprivileged-user.js';

/**
 * Starts a stdio MCP server, lists its tools and stops it, within a time bound and with bounded
 * output. The child sees only PATH and `options.env`, starts in a fresh empty directory, and runs
 * as `nobody` when this process is root (see `photographUser`): a server is a stranger's code,
 * and this process holds the sealing key. Throws `PhotographError` carrying the server's stderr
 * (capped, with the values of `options.env` redacted).
 */
export async function photographStdio(
  command: { cmd: string; args: string[] },
  options: StdioPhotographOptions = {},
): Promise<ListedTool[]> {
  if (command.cmd === '') throw new PhotographError('invalid_request', 'the command is empty');
  const user = photographUser();
  const workdir = await mkdtemp(join(tmpdir(), 'gate-photograph-'));
  try {
    if (user) await chown(workdir, user.uid, user.gid);
    // A command given by a relative path is the operator's, found from here as before; only the
    // server's own working directory is the fresh one.
    const cmd = command.cmd.includes('/') ? resolve(command.cmd) : command.cmd;
    return await photographStdioIn({ ...command, cmd }, options, { cwd: workdir, user });
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}

async function photographStdioIn(
  command: { cmd: string; args: string[] },
  options: StdioPhotographOptions,
  where: { cwd: string; user: ProcessIdentity | undefined },
): Promise<ListedTool[]> {
  const limits = withDefaults(options);
  // Short values such as "1" or "true" are not secrets, and hiding them would garble messages.
  const redact = redactor(Object.values(options.env ?? {}).filter((value) => value.length >= 6));
  const deadline = new Deadline(limits.timeoutMs);
  const transport = new StdioProcessTransport({
    cmd: command.cmd,
    args: command.args,
    env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', ...options.env },
    cwd: where.cwd,
    user: where.user,
    maxOutputBytes: limits.maxOutputBytes,
    maxStderrBytes: limits.maxStderrBytes,
    onFailure: (error) => {
      deadline.fail(error);
    },
  });
  const client = new Client(clientInfo);
  try {
    return await listAllTools(client, transport, deadline, limits);
  } catch (error) {
    await transport.kill();
    const failure = deadline.failure ?? protocolFailure('the server', error, redact);
    failure.stderr = redact(transport.stderr, Infinity);
    throw failure;
  } finally {
    deadline.clear();
    // Closing the client closes the transport: a polite stop, or nothing after a kill.
    await client.close().catch(() => undefined);
  }
}
