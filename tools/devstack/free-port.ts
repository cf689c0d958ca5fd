import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { StackConfigError } from './stack-config.js';

/**
 * The lowest port the system hands a client as its local port (Linux's ephemeral range; 32768
 * where that cannot be read). A port above it can be taken by any outgoing connection between
 * the moment it is found free and the moment a server listens on it.
 */
function ephemeralLow(): number {
  try {
    const low = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    if (Number.isInteger(low) && low > 2048) return low;
  } catch {
    // not Linux: the usual start of the range
  }
  return 32768;
}

/** Where free ports are picked from: below the ephemeral range, above the stack's own ports. */
const pickedFrom = 20_000;

/** Whether a server can listen on the port now: false when another process holds it. */
function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') resolve(false);
      else reject(err);
    });
    probe.listen(port, host, () => {
      probe.close(() => {
        resolve(true);
      });
    });
  });
}

/**
 * A loopback port free right now, for a process about to listen on it: picked at random below
 * the ephemeral range, so no outgoing connection takes it meanwhile (another test picking the
 * same port in that moment is one chance in thousands).
 */
export async function freeLoopbackPort(): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = Math.min(pickedFrom, high - 1000);
  for (let tries = 0; tries < 100; tries += 1) {
    const port = randomInt(low, high + 1);
    if (await canListen('127.0.0.1', port)) return port;
  }
  throw new Error(`no free loopback port between ${low} and ${high} after 100 tries`);
}

/**
 * Fails with what to change when a port the stack is about to listen on is taken: a server
 * that cannot bind would otherwise stop with its own, less helpful words, or not at all.
 */
export async function requireFreePort(
  host: string,
  port: number,
  what: string,
  setting: string,
): Promise<void> {
  if (!(await canListen(host, port)))
    throw new StackConfigError(
      `${what} cannot listen on ${host}:${port}: another process holds that port. Stop it, or set ${setting}.`,
    );
}
