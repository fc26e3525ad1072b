// node:http behind the adapter interface. Backpressure: write() resolves on 'drain'.
import http from 'node:http';
import type { Socket } from 'node:net';

import {
  BodyTooLargeError,
  ClientGoneError,
  type Headers,
  type HttpAdapter,
  type HttpRequest,
  type HttpResponse,
  type ListeningServer,
  type RequestHandler,
} from './adapter.js';

class NodeRequest implements HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly remoteAddress: string;

  constructor(private readonly req: http.IncomingMessage) {
    this.method = (req.method ?? 'GET').toUpperCase();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q < 0 ? url : url.slice(0, q);
    this.query = q < 0 ? '' : url.slice(q + 1);
    this.remoteAddress = req.socket.remoteAddress ?? '';
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  readBody(limit: number): Promise<Uint8Array> {
    const req = this.req;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume(); // discard, so that the connection can still carry the error response
      return Promise.reject(new BodyTooLargeError(`body of ${declared} bytes exceeds ${limit}`));
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let failed = false;
      req.on('data', (chunk: Buffer) => {
        if (failed) return;
        size += chunk.length;
        if (size > limit) {
          failed = true;
          reject(new BodyTooLargeError(`body exceeds ${limit} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        if (!failed) resolve(Buffer.concat(chunks, size));
      });
      req.on('error', () => {
        if (!failed) reject(new ClientGoneError());
        failed = true;
      });
      req.on('aborted', () => {
        if (!failed) reject(new ClientGoneError());
        failed = true;
      });
    });
  }
}

class NodeResponse implements HttpResponse {
  aborted = false;
  private drainWaiter: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private abortListeners: Array<() => void> = [];

  constructor(private readonly res: http.ServerResponse) {
    res.on('drain', () => {
      const waiter = this.drainWaiter;
      this.drainWaiter = undefined;
      waiter?.resolve();
    });
    res.on('close', () => {
      if (res.writableFinished) return;
      this.markAborted();
    });
  }

  get headersSent(): boolean {
    return this.res.headersSent;
  }

  send(status: number, headers: Headers, body: Uint8Array): void {
    if (this.aborted) return;
    if (status === 204) {
      // No Content: no body and, per RFC 9110, no Content-Length either.
      this.res.writeHead(status, headers);
      this.res.end();
      return;
    }
    this.res.writeHead(status, { ...headers, 'content-length': String(body.byteLength) });
    this.res.end(body);
  }

  writeHead(status: number, headers: Headers): void {
    if (this.aborted) return;
    this.res.writeHead(status, headers);
  }

  write(chunk: Uint8Array): Promise<void> {
    if (this.aborted) return Promise.reject(new ClientGoneError());
    if (this.res.write(chunk)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.drainWaiter = { resolve, reject };
    });
  }

  end(): void {
    if (!this.aborted) this.res.end();
  }

  abort(): void {
    // destroy() without end(): node never writes the terminating 0-length chunk.
    this.res.destroy();
    this.markAborted();
  }

  onAborted(listener: () => void): void {
    if (this.aborted) listener();
    else this.abortListeners.push(listener);
  }

  private markAborted(): void {
    if (this.aborted) return;
    this.aborted = true;
    const waiter = this.drainWaiter;
    this.drainWaiter = undefined;
    waiter?.reject(new ClientGoneError());
    for (const listener of this.abortListeners.splice(0)) listener();
  }
}

export const nodeAdapter: HttpAdapter = {
  name: 'node',
  listen(host: string, port: number, handler: RequestHandler): Promise<ListeningServer> {
    let inFlight = 0;
    let idle: (() => void) | undefined;
    const sockets = new Set<Socket>();
    const server = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
      inFlight++;
      res.on('close', () => {
        inFlight--;
        if (inFlight === 0) idle?.();
      });
      handler(new NodeRequest(req), new NodeResponse(res)).catch(() => {
        // The handler answers its own failures; this is a last resort against a hang.
        if (!res.headersSent) {
          res.writeHead(500).end();
        } else res.destroy();
      });
    });
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    // Malformed requests never reach the handler; answer them plainly and close.
    server.on('clientError', (_err, socket: Socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      else socket.destroy();
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const address = server.address();
        const bound = typeof address === 'object' && address ? address.port : port;
        resolve({
          port: bound,
          async close(graceMs: number): Promise<void> {
            const closed = new Promise<void>((r) => server.close(() => r()));
            server.closeIdleConnections();
            if (inFlight > 0) {
              await new Promise<void>((r) => {
                const timer = setTimeout(r, graceMs);
                idle = () => {
                  clearTimeout(timer);
                  r();
                };
              });
            }
            server.closeAllConnections();
            for (const socket of sockets) socket.destroy();
            await closed;
          },
        });
      });
    });
  },
};
