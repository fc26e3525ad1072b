// uWebSockets.js behind the adapter interface, loaded lazily: its binaries need glibc >= 2.38, so
// on older Linux the require fails and the service falls back to node:http (see pickAdapter).
// uWS rules honoured here: the request object is only valid during the synchronous handler, so
// everything is copied out at once; every response registers onAborted; writes outside the
// handler are corked; onWritable is registered once per response with the state kept outside it.
import { createRequire } from 'node:module';

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

// The few members of the library used here (its own .d.ts is only present where it installs).
interface UwsRequest {
  getCaseSensitiveMethod(): string;
  getUrl(): string;
  getQuery(): string | undefined;
  forEach(cb: (key: string, value: string) => void): void;
}
interface UwsResponse {
  writeStatus(status: string): UwsResponse;
  writeHeader(key: string, value: string): UwsResponse;
  write(chunk: Uint8Array): boolean;
  end(body?: Uint8Array, closeConnection?: boolean): UwsResponse;
  /** Ends without a body and, given no length, without Content-Length (for 204). */
  endWithoutBody?(reportedContentLength?: number, closeConnection?: boolean): UwsResponse;
  close(): UwsResponse;
  cork(cb: () => void): UwsResponse;
  onWritable(handler: (offset: number) => boolean): UwsResponse;
  onAborted(handler: () => void): UwsResponse;
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): UwsResponse;
  getRemoteAddressAsText(): ArrayBuffer;
}
interface UwsApp {
  any(pattern: string, handler: (res: UwsResponse, req: UwsRequest) => void): UwsApp;
  listen(host: string, port: number, cb: (socket: unknown) => void): UwsApp;
  close(): UwsApp;
}
interface UwsModule {
  App(): UwsApp;
  us_listen_socket_close(socket: unknown): void;
  us_socket_local_port(socket: unknown): number;
}

/** The library, or the reason it did not load. */
export function loadUws(): { module: UwsModule } | { error: string } {
  try {
    const require = createRequire(import.meta.url);
    return { module: require('uWebSockets.js') as UwsModule };
  } catch (e) {
    return { error: e instanceof Error ? e.message.split('\n')[0] ?? e.message : String(e) };
  }
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 409: 'Conflict', 413: 'Content Too Large', 415: 'Unsupported Media Type',
  429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable',
};

// uWS buffers up to this much of a body eagerly: onData must be attached inside the handler.
const MAX_BUFFERED_BODY = 1 << 20;

class UwsResponseAdapter implements HttpResponse {
  aborted = false;
  headersSent = false;
  private finished = false;
  private writableWaiter: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private abortListeners: Array<() => void> = [];
  private body: Promise<Uint8Array> | undefined;
  private bodyError: Error | undefined;

  constructor(private readonly res: UwsResponse, readBody: boolean) {
    res.onAborted(() => this.markAborted());
    // Registered once; the waiter lives outside the callback (re-registering truncates bodies).
    res.onWritable(() => {
      const waiter = this.writableWaiter;
      this.writableWaiter = undefined;
      waiter?.resolve();
      return true;
    });
    if (readBody) this.body = this.collectBody();
  }

  bodyBytes(limit: number): Promise<Uint8Array> {
    if (!this.body) return Promise.resolve(new Uint8Array(0));
    return this.body.then((bytes) => {
      if (this.bodyError) throw this.bodyError;
      if (bytes.byteLength > limit) throw new BodyTooLargeError(`body exceeds ${limit} bytes`);
      return bytes;
    });
  }

  private collectBody(): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const parts: Uint8Array[] = [];
      let size = 0;
      this.abortListeners.push(() => reject(new ClientGoneError()));
      this.res.onData((chunk, isLast) => {
        // uWS reuses the chunk's memory after the callback returns: copy it.
        if (size <= MAX_BUFFERED_BODY) {
          size += chunk.byteLength;
          if (size > MAX_BUFFERED_BODY) this.bodyError = new BodyTooLargeError(`body exceeds ${MAX_BUFFERED_BODY} bytes`);
          else parts.push(new Uint8Array(chunk.slice(0)));
        }
        if (isLast) resolve(Buffer.concat(parts));
      });
    });
  }

  send(status: number, headers: Headers, body: Uint8Array): void {
    if (this.aborted || this.finished) return;
    this.finished = true;
    this.headersSent = true;
    this.res.cork(() => {
      this.head(status, headers);
      // 204 carries neither body nor Content-Length (RFC 9110); otherwise uWS adds Content-Length.
      if (status === 204 && this.res.endWithoutBody) this.res.endWithoutBody();
      else this.res.end(body);
    });
  }

  writeHead(status: number, headers: Headers): void {
    if (this.aborted) return;
    this.headersSent = true;
    this.res.cork(() => this.head(status, headers));
  }

  write(chunk: Uint8Array): Promise<void> {
    if (this.aborted) return Promise.reject(new ClientGoneError());
    let ok = false;
    this.res.cork(() => {
      ok = this.res.write(chunk);
    });
    if (ok) return Promise.resolve();
    // write() buffered the chunk; wait until uWS has drained it before producing more.
    return new Promise((resolve, reject) => {
      this.writableWaiter = { resolve, reject };
    });
  }

  end(): void {
    if (this.aborted || this.finished) return;
    this.finished = true;
    this.res.cork(() => this.res.end());
  }

  abort(): void {
    if (this.aborted) return;
    this.res.close(); // runs onAborted, which marks us aborted
    this.markAborted();
  }

  onAborted(listener: () => void): void {
    if (this.aborted) listener();
    else this.abortListeners.push(listener);
  }

  private head(status: number, headers: Headers): void {
    this.res.writeStatus(`${status} ${STATUS_TEXT[status] ?? ''}`.trimEnd());
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() !== 'content-length') this.res.writeHeader(key, value);
    }
  }

  private markAborted(): void {
    if (this.aborted) return;
    this.aborted = true;
    const waiter = this.writableWaiter;
    this.writableWaiter = undefined;
    waiter?.reject(new ClientGoneError());
    for (const listener of this.abortListeners.splice(0)) listener();
  }
}

class UwsRequestAdapter implements HttpRequest {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly query: string,
    readonly remoteAddress: string,
    private readonly headers: ReadonlyMap<string, string>,
    private readonly response: UwsResponseAdapter,
  ) {}

  header(name: string): string | undefined {
    return this.headers.get(name);
  }

  readBody(limit: number): Promise<Uint8Array> {
    return this.response.bodyBytes(limit);
  }
}

export function createUwsAdapter(uws: UwsModule): HttpAdapter {
  return {
    name: 'uws',
    listen(host: string, port: number, handler: RequestHandler): Promise<ListeningServer> {
      const app = uws.App();
      let inFlight = 0;
      let idle: (() => void) | undefined;
      app.any('/*', (res, req) => {
        // Copy everything now: `req` is invalid once this function returns.
        const method = req.getCaseSensitiveMethod().toUpperCase();
        const path = req.getUrl();
        const query = req.getQuery() ?? '';
        const headers = new Map<string, string>();
        req.forEach((key, value) => {
          const prior = headers.get(key);
          headers.set(key, prior === undefined ? value : `${prior}, ${value}`);
        });
        const remote = Buffer.from(res.getRemoteAddressAsText()).toString();
        const hasBody = method !== 'GET' && method !== 'HEAD';
        const response = new UwsResponseAdapter(res, hasBody);
        const request = new UwsRequestAdapter(method, path, query, remote, headers, response);
        inFlight++;
        const done = (): void => {
          inFlight--;
          if (inFlight === 0) idle?.();
        };
        handler(request, response)
          .catch(() => {
            if (!response.headersSent) response.send(500, {}, new Uint8Array(0));
            else response.abort();
          })
          .finally(done);
      });
      return new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (!socket) {
            reject(new Error(`uWebSockets.js could not listen on ${host}:${port}`));
            return;
          }
          resolve({
            port: uws.us_socket_local_port(socket),
            async close(graceMs: number): Promise<void> {
              uws.us_listen_socket_close(socket);
              if (inFlight > 0) {
                await new Promise<void>((r) => {
                  const timer = setTimeout(r, graceMs);
                  idle = () => {
                    clearTimeout(timer);
                    r();
                  };
                });
              }
              app.close(); // drops the remaining (idle keep-alive) connections
            },
          });
        });
      });
    },
  };
}
