import { createServer, type AddressInfo } from 'node:net';
import { StackConfigError } from './stack-config.js';

/** A loopback port free right now, for a process about to listen on it. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => {
        resolve(port);
      });
    });
  });
}

/**
 * Fails with what to change when a port the stack is about to listen on is taken: a server
 * that cannot bind would otherwise stop with its own, less helpful words, or not at all.
 */
export function requireFreePort(
  host: string,
  port: number,
  what: string,
  setting: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EADDRINUSE') reject(err);
      else
        reject(
          new StackConfigError(
            `${what} cannot listen on ${host}:${port}: another process holds that port. Stop it, or set ${setting}.`,
          ),
        );
    });
    probe.listen(port, host, () =>
      probe.close(() => {
        resolve();
      }),
    );
  });
}
