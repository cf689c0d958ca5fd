import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

/** PEM files of one certificate authority and what it signed, made with openssl for a test. */
export interface TestPki {
  dir: string;
  file(name: string): string;
  read(name: string): Buffer;
  /** A CA (`<name>.crt`, `<name>.key`). */
  authority(name: string): void;
  /** A leaf signed by `ca` for `host` (`<name>.crt`, `<name>.key`). */
  leaf(name: string, ca: string, host: string): void;
  remove(): void;
}

export function testPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'gate-pki-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  return {
    dir,
    file,
    read: (name) => readFileSync(file(name)),
    authority(name) {
      openssl(
        'req',
        '-x509',
        ...ec,
        '-keyout',
        `${name}.key`,
        '-subj',
        `/CN=${name}`,
        '-days',
        '2',
        '-out',
        `${name}.crt`,
      );
    },
    leaf(name, ca, host) {
      openssl(
        'req',
        '-new',
        ...ec,
        '-keyout',
        `${name}.key`,
        '-subj',
        `/CN=${host}`,
        '-out',
        `${name}.csr`,
      );
      writeFileSync(
        file(`${name}.ext`),
        `subjectAltName=DNS:${host}\nextendedKeyUsage=serverAuth,clientAuth\n`,
      );
      openssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        `${ca}.crt`,
        '-CAkey',
        `${ca}.key`,
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
        '-out',
        `${name}.crt`,
      );
    },
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TlsProxy {
  address: string;
  /** Connections whose TLS handshake completed (and, with mTLS, whose client was trusted). */
  accepted(): number;
  close(): Promise<void>;
}

/**
 * A TLS-terminating proxy in front of a plain gRPC server (the Temporal dev server has no TLS
 * flags): HTTP/2 inside TLS with ALPN `h2`, relayed byte for byte. With `clientCa`, a client
 * certificate signed by it is required.
 */
export async function startTlsProxy(
  upstream: string,
  { cert, key, clientCa }: { cert: Buffer; key: Buffer; clientCa?: Buffer },
): Promise<TlsProxy> {
  const [host = '', port = ''] = upstream.split(/:(?=\d+$)/);
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  const server = tls.createServer(
    {
      cert,
      key,
      ALPNProtocols: ['h2'],
      ...(clientCa && { ca: clientCa, requestCert: true, rejectUnauthorized: true }),
    },
    (client) => {
      accepted += 1;
      const backend = net.connect(Number(port), host);
      for (const s of [client, backend]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(backend).pipe(client);
      client.on('close', () => backend.destroy());
      backend.on('close', () => client.destroy());
    },
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${listening}`,
    accepted: () => accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}
