import net from 'node:net';

/** What a raw connection got before the server closed it, and after how long. */
export interface RawClosing {
  received: string;
  closedAfterMs: number;
}

/**
 * Opens a TCP connection to `url`'s host and port, lets `misbehave` write what it likes (headers
 * that never end, a body that stops), and resolves when the server closes the connection, or
 * rejects after `giveUpMs` (the server would hold it forever).
 */
export function rawConnection(
  url: string,
  misbehave: (socket: net.Socket) => void,
  giveUpMs = 30_000,
): Promise<RawClosing> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const started = Date.now();
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server still held the connection after ${giveUpMs} ms`));
    }, giveUpMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', () => {
      misbehave(socket);
    });
  });
}

/** The head of a request with a JSON body of `length` bytes, of which none is sent yet. */
export function requestHead(
  method: string,
  path: string,
  token: string,
  length: number,
  host = '127.0.0.1',
): string {
  return [
    `${method} ${path} HTTP/1.1`,
    `host: ${host}`,
    `authorization: Bearer ${token}`,
    'content-type: application/json',
    `content-length: ${length}`,
    '',
    '',
  ].join('\r\n');
}
