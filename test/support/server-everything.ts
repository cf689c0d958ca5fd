import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startProcess, waitFor } from '../../tools/devstack/child-process.js';
import { freeLoopbackPort } from '../../tools/devstack/free-port.js';

const binary = fileURLToPath(
  new URL('../../node_modules/.bin/mcp-server-everything', import.meta.url),
);

// server-everything takes only PORT and listens on every interface; this preload makes any
// listen on a port bind 127.0.0.1 instead, since its get-env tool would show its environment.
const loopbackOnly = `
import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  if (typeof port === 'number' || (typeof port === 'string' && /^[0-9]+$/.test(port))) {
    args.splice(1, typeof args[1] === 'string' ? 1 : 0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
`;

export interface ServerEverything {
  /** Its Streamable HTTP endpoint. It takes no credential; any bearer token passes. */
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts `@modelcontextprotocol/server-everything` over Streamable HTTP on 127.0.0.1. */
export async function startServerEverything(): Promise<ServerEverything> {
  const port = await freeLoopbackPort();
  const server = startProcess('server-everything', binary, ['streamableHttp'], {
    env: {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      PORT: String(port),
      NODE_OPTIONS: `--import=data:text/javascript;base64,${Buffer.from(loopbackOnly).toString('base64')}`,
    },
    quiet: true,
  });
  try {
    await waitFor('server-everything to listen', () => connectOnce(port), {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
  } catch (error) {
    await server.stop('SIGKILL', 1_000);
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: server.child.pid,
    stop: () => server.stop('SIGTERM', 5_000),
  };
}

export { freeLoopbackPort };

function connectOnce(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('error', reject);
  });
}
