// The physical floor: a node:http server that sends N bytes from a buffer prepared in advance, so
// that a pull of the same size from it costs only the loopback transfer and the client.
//
//   POST /prepare?bytes=N   allocate and fill a buffer of N bytes (untimed)
//   GET  /bytes?n=N         send it (Content-Length: N)
//   DELETE /prepare?bytes=N drop it
//
// As a child process (`node dist/bench/floor-server.js [--port P]`) it prints {"port": P} on stdout
// once listening.
import { randomFillSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

import { isMain } from './is-main.js';

export interface FloorServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

function prepared(bytes: number): Buffer {
  const block = randomFillSync(Buffer.allocUnsafe(Math.min(bytes, 1 << 20)));
  const out = Buffer.allocUnsafe(bytes);
  for (let at = 0; at < bytes; at += block.length) block.copy(out, at, 0, Math.min(block.length, bytes - at));
  return out;
}

export function startFloorServer(port = 0, host = '127.0.0.1'): Promise<FloorServer> {
  const buffers = new Map<number, Buffer>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://floor');
    const n = Number(url.searchParams.get(url.pathname === '/bytes' ? 'n' : 'bytes'));
    if (!Number.isSafeInteger(n) || n < 0) {
      res.writeHead(400).end('bad size');
      return;
    }
    if (url.pathname === '/prepare') {
      if (req.method === 'DELETE') buffers.delete(n);
      else if (!buffers.has(n)) buffers.set(n, prepared(n));
      res.writeHead(204).end();
      return;
    }
    const body = buffers.get(n);
    if (url.pathname !== '/bytes' || !body) {
      res.writeHead(404).end('not prepared');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(n) });
    res.end(body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = (server.address() as AddressInfo).port;
      resolve({
        port: actual,
        url: `http://${host}:${actual}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } } });
  const floor = await startFloorServer(Number(values.port), values.host);
  process.stdout.write(`${JSON.stringify({ port: floor.port })}\n`);
  const stop = (): void => void floor.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
