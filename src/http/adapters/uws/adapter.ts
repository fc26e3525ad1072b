// uWebSockets.js behind the adapter interface, loaded lazily: its binaries need glibc >= 2.38, so
// on older Linux the require fails and the service falls back to node:http (see pickAdapter).
// uWS rules honoured here: the request object is only valid during the synchronous handler, so
// everything is copied out at once; every response registers onAborted; writes outside the
// handler are corked; onWritable is registered once per response with the state kept outside it.
//
// Connection-level limits differ from node:http's (see node-connections.ts), because uWS parses
// and times out connections in C++ where we cannot reach: no headers/request timeout and no
// keep-alive setting (uWS 20.57 closes a connection that has not completed a request within ~30 s,
// without an answer, but never times out one that has had an answer: measured), no connection cap,
// its own listen backlog (uSockets passes a fixed 512), and malformed requests and heads over
// 16 KiB answered by uWS itself (bare 400/431, no problem body). Requests pipelined behind a
// pending response make uWS close the connection. What does reach us is checked here as on node:
// a URL over MAX_URL_BYTES gets the 414 problem and the connection closes. CONNECT never reaches
// us on uWS 20.57 (an authority-form target gets uWS's own 505; an origin-form CONNECT is routed
// to no handler and held until the idle timeout); the 405 branch stays for a uWS that routes it.
import { createRequire } from 'node:module';

import {
  BodyTooLargeError,
  ClientGoneError,
  type Headers,
  type HttpAdapter,
  type HttpRequest,
  type HttpResponse,
  type ListeningServer,
  type ListenOptions,
  type RequestHandler,
  type WebSocketConnection,
  type WebSocketListener,
  type WebSocketOptions,
} from '../../adapter.js';
import { connectNotAllowed, MAX_HEAD_BYTES, MAX_URL_BYTES, uriTooLong } from '../../protocol-problems.js';
import { offeredSubprotocols, selectSubprotocol } from '../../ws-subprotocol.js';

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
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): UwsResponse;
  close(): UwsResponse;
  cork(cb: () => void): UwsResponse;
  onWritable(handler: (offset: number) => boolean): UwsResponse;
  onAborted(handler: () => void): UwsResponse;
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): UwsResponse;
  getRemoteAddress(): ArrayBuffer;
  getRemoteAddressAsText(): ArrayBuffer;
  /** Only in a WebSocket route's upgrade handler: completes the handshake. */
  upgrade(userData: WsUserData, key: string, protocol: string, extensions: string, context: unknown): void;
}
/** Valid from open to close only: every use after close throws. */
interface UwsWebSocket {
  /** 1: sent, 0: sent but buffered (backpressure), 2: dropped (over maxBackpressure). */
  send(message: Uint8Array | string, isBinary?: boolean): number;
  getBufferedAmount(): number;
  end(code?: number, shortMessage?: string): void;
  close(): void;
  cork(cb: () => void): UwsWebSocket;
  getUserData(): WsUserData;
}
interface UwsWebSocketBehavior {
  maxPayloadLength: number;
  idleTimeout: number;
  maxBackpressure: number;
  closeOnBackpressureLimit: boolean;
  sendPingsAutomatically: boolean;
  upgrade(res: UwsResponse, req: UwsRequest, context: unknown): void;
  open(ws: UwsWebSocket): void;
  message(ws: UwsWebSocket, message: ArrayBuffer, isBinary: boolean): void;
  drain(ws: UwsWebSocket): void;
  close(ws: UwsWebSocket, code: number, message: ArrayBuffer): void;
}
/** What a WebSocket carries from its upgrade to open and on. */
interface WsUserData {
  readonly open: (connection: WebSocketConnection) => WebSocketListener;
  listener?: WebSocketListener | undefined;
  closed?: boolean;
  /** Inside the connection's cork(): sends need no cork of their own. */
  corked?: boolean;
}
interface UwsApp {
  any(pattern: string, handler: (res: UwsResponse, req: UwsRequest) => void): UwsApp;
  ws(pattern: string, behavior: UwsWebSocketBehavior): UwsApp;
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
    // uWS reads its request-head limit once, when the library loads; its default (4 KiB) would
    // answer 431 to URLs node:http accepts, so match node's 16 KiB unless the operator chose.
    process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(MAX_HEAD_BYTES);
    const require = createRequire(import.meta.url);
    return { module: require('uWebSockets.js') as UwsModule };
  } catch (e) {
    return { error: uwsLoadError(e instanceof Error ? e.message : String(e)) };
  }
}

/**
 * Why uWS did not load, in one line. Its loader wraps every failure in "supports only Node.js
 * versions 20, 22, 24 and 25 …", which blames node even when the real cause, quoted further down,
 * is the C library: its Linux binaries need glibc 2.38. That case is named as it is.
 */
export function uwsLoadError(message: string, runtimeGlibc: () => string | undefined = glibcVersion): string {
  const glibc = /version `GLIBC_(\d+\.\d+)' not found/.exec(message);
  if (glibc) {
    const version = runtimeGlibc();
    const have = version ? `this system has glibc ${version}` : 'this system has an older one';
    return `uWebSockets.js needs glibc >= ${glibc[1]}, ${have} (node ${process.versions.node} itself is fine)`;
  }
  return message.split('\n')[0] ?? message;
}

function glibcVersion(): string | undefined {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 408: 'Request Timeout', 409: 'Conflict', 413: 'Content Too Large', 414: 'URI Too Long',
  415: 'Unsupported Media Type', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable',
};

// uWS buffers up to this much of a body eagerly: onData must be attached inside the handler.
const MAX_BUFFERED_BODY = 1 << 20;
/**
 * Body chunks are handed to uWS in pieces of at most this size. uWS copies whatever the socket
 * does not take at once into its own buffer and, with onWritable registered, drains that buffer
 * only when we write again (a writable event that writes nothing leaves it where it is). So the
 * writable handler writes the next piece itself, which keeps the socket fed, and at most about one
 * piece (not a whole chunk) ever sits in uWS's buffer. Each piece is a send() of its own: measured
 * on 10 M ticks with curl (issue 24), 256 KB against 64 KB took Arrow from 0.36-0.44 to 0.33-0.38 s
 * and JSON from 1.11-1.17 to 0.94-0.98 s (fewer syscalls and TCP pushes); 512 KB and 1 MB were
 * slower again (more of each piece copied into uWS's buffer when the socket is full).
 */
const PIECE_BYTES = 256 * 1024;

class UwsResponseAdapter implements HttpResponse {
  /** write() resolves once every piece is with uWS, which copies what the socket did not take. */
  readonly releasesWrites = true;
  aborted = false;
  headersSent = false;
  /** end()/send() reached uWS: the uWS response is no longer ours to touch. */
  private finished = false;
  /** end() was called while pieces were still queued: finish once they are handed over. */
  private endPending = false;
  /** A piece handed over met a full socket (uWS copied its rest), and no onWritable since. */
  private blocked = false;
  /** Pieces of the current chunk not yet handed to uWS (views of the caller's chunk, no copies). */
  private queue: Uint8Array[] = [];
  /** Writers waiting for the queue to be handed over (one, unless a caller does not await). */
  private waiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private abortListeners: Array<() => void> = [];
  private body: Promise<Uint8Array> | undefined;
  private bodyError: Error | undefined;

  constructor(
    private readonly res: UwsResponse,
    readBody: boolean,
    /** HEAD: headers as for GET, no body bytes (uWS would send them). */
    private readonly head: boolean,
    /** The request's Connection header is one uWS takes for "close" (see send_). */
    private readonly clientSaidClose = false,
  ) {
    res.onAborted(() => this.markAborted());
    // Registered once; the state lives outside the callback (re-registering truncates bodies).
    res.onWritable(() => this.onWritable());
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
    this.send_(status, headers, body, false);
  }

  /**
   * A protocol answer: sent, then the connection closes (uWS shuts it down once the answer is
   * out), and the answer says so, as node's does.
   */
  sendAndClose(status: number, headers: Headers, body: Uint8Array): void {
    this.send_(status, headers, body, true);
  }

  private send_(status: number, headers: Headers, body: Uint8Array, close: boolean): void {
    if (this.aborted || this.finished || this.headersSent) return;
    this.finished = true;
    this.headersSent = true;
    this.res.cork(() => {
      // end(…, true) writes `Connection: close` itself only when the client did not send one: uWS
      // takes any 5-character Connection value as "close" and then leaves the header out. Write
      // it ourselves in exactly that case, so the answer carries it once, whatever the client sent.
      this.writeHead_(status, close && this.clientSaidClose ? { ...headers, connection: 'close' } : headers);
      // 204 carries neither body nor Content-Length (RFC 9110); HEAD gets the Content-Length the
      // body would have, without the body; otherwise uWS adds Content-Length itself.
      // (No explicit `undefined` length: uWS would report it as Content-Length 2^63. A 204 is never a
      // protocol answer, so it never needs closing.)
      if (status === 204) this.res.endWithoutBody();
      else if (this.head) this.res.endWithoutBody(body.byteLength, close);
      else this.res.end(body, close);
    });
  }

  writeHead(status: number, headers: Headers): void {
    if (this.aborted || this.finished || this.headersSent) return;
    this.headersSent = true;
    this.res.cork(() => this.writeHead_(status, headers));
  }

  write(chunk: Uint8Array): Promise<void> {
    if (this.aborted) return Promise.reject(new ClientGoneError());
    if (this.finished) return Promise.reject(new Error('write after end'));
    if (this.head || chunk.byteLength === 0) return Promise.resolve();
    for (let at = 0; at < chunk.byteLength; at += PIECE_BYTES) {
      this.queue.push(chunk.subarray(at, Math.min(at + PIECE_BYTES, chunk.byteLength)));
    }
    // While the socket is full (a piece handed over met it, and no onWritable since), uWS would
    // copy every write into its buffer: a write then waits for onWritable. Before, chunks smaller
    // than a piece piled up in uWS's buffer behind a peer that reads nothing, unbounded, and the
    // send timeout never fired (test/http/write-backpressure.test.ts).
    if (!this.blocked) this.res.cork(() => this.pump());
    // Everything is with uWS (at most the last piece partly in its buffer, copied): the producer
    // may prepare its next chunk meanwhile, which is what keeps the socket fed.
    if (this.queue.length === 0) return Promise.resolve();
    // The socket is full: the rest goes out from onWritable, and the producer waits until the
    // whole chunk is with uWS (it may reuse its buffer once this resolves).
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
    });
  }

  end(): void {
    if (this.aborted || this.finished) return;
    if (!this.headersSent) {
      this.send(200, {}, new Uint8Array(0));
      return;
    }
    if (this.queue.length > 0) {
      this.endPending = true; // onWritable finishes once the queue is handed over
      return;
    }
    this.finished = true;
    this.res.cork(() => this.finish());
  }

  abort(): void {
    if (this.aborted) return;
    if (this.finished) {
      // The response went out whole; the connection may already carry the next request.
      this.markAborted();
      return;
    }
    this.res.close(); // runs onAborted, which marks us aborted
    this.markAborted();
  }

  onAborted(listener: () => void): void {
    if (this.aborted) listener();
    else this.abortListeners.push(listener);
  }

  /** Hands queued pieces to uWS until it reports backpressure; call corked. */
  private pump(): void {
    while (this.queue.length > 0) {
      const piece = this.queue.shift() as Uint8Array;
      // false: uWS copied what the socket did not take into its buffer; wait for onWritable.
      if (!this.res.write(piece)) {
        this.blocked = true;
        return;
      }
    }
  }

  private onWritable(): boolean {
    if (this.aborted || this.finished) return true;
    // The socket takes bytes again; at most the rest of one piece sits in uWS's buffer, which the
    // next write sends first.
    this.blocked = false;
    if (this.queue.length > 0) this.res.cork(() => this.pump());
    if (this.queue.length > 0) return false;
    if (this.endPending) {
      this.finished = true;
      this.res.cork(() => this.finish());
    }
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
    return true;
  }

  private finish(): void {
    // A HEAD response, or a streamed one without any body bytes, ends without a body.
    if (this.head) this.res.endWithoutBody();
    else this.res.end();
  }

  private writeHead_(status: number, headers: Headers): void {
    this.res.writeStatus(`${status} ${STATUS_TEXT[status] ?? ''}`.trimEnd());
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() !== 'content-length') this.res.writeHeader(key, value);
    }
  }

  private markAborted(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.queue = [];
    this.endPending = false;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new ClientGoneError());
    for (const listener of this.abortListeners.splice(0)) listener();
  }
}

/**
 * The response to a WebSocket upgrade request: refused with an HTTP answer (the connection then
 * closes), or upgraded. The upgrade handler may finish later than it was called (the service checks
 * the key and the caps first), which uWS allows once onAborted is registered; the handshake headers
 * were copied while the request was valid.
 */
class UwsUpgradeResponse implements HttpResponse {
  aborted = false;
  headersSent = false;
  private abortListeners: Array<() => void> = [];

  constructor(
    private readonly res: UwsResponse,
    private readonly handshake: { key: string; protocol: string; extensions: string; context: unknown },
  ) {
    res.onAborted(() => this.markAborted());
  }

  send(status: number, headers: Headers, body: Uint8Array): void {
    if (this.aborted || this.headersSent) return;
    this.headersSent = true;
    this.res.cork(() => {
      this.res.writeStatus(`${status} ${STATUS_TEXT[status] ?? ''}`.trimEnd());
      for (const [key, value] of Object.entries(headers)) {
        if (key.toLowerCase() !== 'content-length') this.res.writeHeader(key, value);
      }
      this.res.end(body, true);
    });
  }

  writeHead(status: number, headers: Headers): void {
    // Not used on an upgrade request (the service answers it whole or upgrades it): an empty answer.
    this.send(status, headers, new Uint8Array(0));
  }

  write(): Promise<void> {
    return Promise.reject(new Error('no streamed body on an upgrade request'));
  }

  end(): void {
    if (!this.headersSent) this.send(200, {}, new Uint8Array(0));
  }

  abort(): void {
    if (this.aborted) return;
    if (!this.headersSent) this.res.close();
    this.markAborted();
  }

  onAborted(listener: () => void): void {
    if (this.aborted) listener();
    else this.abortListeners.push(listener);
  }

  upgrade(open: (connection: WebSocketConnection) => WebSocketListener): void {
    if (this.aborted || this.headersSent) return;
    this.headersSent = true;
    const { key, protocol, extensions, context } = this.handshake;
    this.res.cork(() => this.res.upgrade({ open }, key, protocol, extensions, context));
  }

  private markAborted(): void {
    if (this.aborted) return;
    this.aborted = true;
    for (const listener of this.abortListeners.splice(0)) listener();
  }
}

/** The connection the service uses; every call is a no-op once uWS reported the close (using a closed uWS socket throws). */
function uwsConnection(ws: UwsWebSocket, data: WsUserData): WebSocketConnection {
  return {
    bufferedAmount: () => (data.closed ? 0 : ws.getBufferedAmount()),
    send: (payload, text = typeof payload === 'string') => {
      if (data.closed) return;
      if (data.corked) ws.send(payload, !text);
      else ws.cork(() => ws.send(payload, !text));
    },
    cork: (fn) => {
      if (data.closed || data.corked) {
        fn();
        return;
      }
      ws.cork(() => {
        data.corked = true;
        try {
          fn();
        } finally {
          data.corked = false;
        }
      });
    },
    end: (code, reason) => {
      if (!data.closed) ws.end(code, reason);
    },
    terminate: () => {
      if (!data.closed) ws.close();
    },
  };
}

function webSocketBehavior(
  options: WebSocketOptions,
  onRequest: (req: UwsRequest, res: UwsResponse) => { method: string; path: string; query: string; headers: Map<string, string>; remote: string },
  handler: RequestHandler,
  track: (p: Promise<void>) => void,
): UwsWebSocketBehavior {
  return {
    maxPayloadLength: options.maxPayloadBytes,
    // uWS pings an idle client itself and closes one that stays silent this long (seconds).
    idleTimeout: 120,
    sendPingsAutomatically: true,
    // The service drops events long before this (its queue bound); uWS's own limit is a backstop.
    maxBackpressure: options.maxBackpressureBytes,
    closeOnBackpressureLimit: false,
    upgrade: (res, req, context) => {
      // Copy everything now: `req` is invalid once this function returns.
      const r = onRequest(req, res);
      const handshake = {
        key: r.headers.get('sec-websocket-key') ?? '',
        // uWS answers with the first name of what it is given ('': no Sec-WebSocket-Protocol at all).
        protocol: selectSubprotocol(offeredSubprotocols(r.headers.get('sec-websocket-protocol') ?? '')) ?? '',
        extensions: r.headers.get('sec-websocket-extensions') ?? '',
        context,
      };
      const response = new UwsUpgradeResponse(res, handshake);
      const request = new UwsRequestAdapter(r.method, r.path, r.query, r.remote, r.headers, undefined);
      track(
        handler(request, response).catch(() => {
          if (!response.headersSent) response.send(500, {}, new Uint8Array(0));
          else response.abort();
        }),
      );
    },
    open: (ws) => {
      const data = ws.getUserData();
      data.listener = data.open(uwsConnection(ws, data));
    },
    message: (ws, message, isBinary) => {
      // The ArrayBuffer is uWS's until the callback returns: copy it.
      ws.getUserData().listener?.message(new Uint8Array(message.slice(0)), isBinary);
    },
    drain: (ws) => ws.getUserData().listener?.drain(),
    close: (ws, code) => {
      const data = ws.getUserData();
      data.closed = true;
      const listener = data.listener;
      data.listener = undefined;
      listener?.close(code);
    },
  };
}

/** The peer's address as node:http reports it: dotted IPv4, '::ffff:a.b.c.d', compressed IPv6. */
export function formatAddress(raw: ArrayBuffer): string {
  const b = new Uint8Array(raw);
  if (b.byteLength === 4) return b.join('.');
  if (b.byteLength !== 16) return '';
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return `::ffff:${b.subarray(12).join('.')}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((b[i] as number) << 8) | (b[i + 1] as number)).toString(16));
  // RFC 5952 compression, as inet_ntop does: the URL serializer implements the same rules.
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

class UwsRequestAdapter implements HttpRequest {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly query: string,
    readonly remoteAddress: string,
    private readonly headers: ReadonlyMap<string, string>,
    /** Undefined on an upgrade request, which has no body. */
    private readonly response: UwsResponseAdapter | undefined,
  ) {}

  header(name: string): string | undefined {
    return this.headers.get(name);
  }

  readBody(limit: number): Promise<Uint8Array> {
    return this.response ? this.response.bodyBytes(limit) : Promise.resolve(new Uint8Array(0));
  }
}

function copyRequest(req: UwsRequest, res: UwsResponse): { method: string; path: string; query: string; headers: Map<string, string>; remote: string } {
  const headers = new Map<string, string>();
  req.forEach((key, value) => {
    const prior = headers.get(key);
    headers.set(key, prior === undefined ? value : `${prior}, ${value}`);
  });
  return {
    method: req.getCaseSensitiveMethod().toUpperCase(),
    path: req.getUrl(),
    query: req.getQuery() ?? '',
    headers,
    remote: formatAddress(res.getRemoteAddress()),
  };
}

export function createUwsAdapter(uws: UwsModule): HttpAdapter {
  return {
    name: 'uws',
    // options: only the URL limit, CONNECT and onProtocolError apply here (see the top of this file).
    listen(host: string, port: number, handler: RequestHandler, options: ListenOptions): Promise<ListeningServer> {
      const app = uws.App();
      let inFlight = 0;
      let idle: (() => void) | undefined;
      const track = (p: Promise<void>): void => {
        inFlight++;
        void p.finally(() => {
          inFlight--;
          if (inFlight === 0) idle?.();
        });
      };
      // A GET at this path without the WebSocket handshake headers falls through to app.any (uWS yields it).
      if (options.websocket) app.ws(options.websocket.path, webSocketBehavior(options.websocket, copyRequest, handler, track));
      app.any('/*', (res, req) => {
        // Copy everything now: `req` is invalid once this function returns.
        const { method, path, query, headers, remote } = copyRequest(req, res);
        const target = path.length + (query === '' ? 0 : query.length + 1);
        if (method === 'CONNECT' || target > MAX_URL_BYTES) {
          const answer = method === 'CONNECT' ? connectNotAllowed(options.methods) : uriTooLong(target);
          options.onProtocolError?.({ status: answer.status, code: method === 'CONNECT' ? 'CONNECT' : 'URI_TOO_LONG', remoteAddress: remote });
          new UwsResponseAdapter(res, false, false, headers.get('connection')?.length === 5).sendAndClose(answer.status, answer.headers, answer.body);
          return;
        }
        const hasBody = method !== 'GET' && method !== 'HEAD';
        const response = new UwsResponseAdapter(res, hasBody, method === 'HEAD');
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
            app.close();
            reject(new Error(`uWebSockets.js could not listen on ${host}:${port}`));
            return;
          }
          let closing: Promise<{ aborted: number }> | undefined;
          const close = async (graceMs: number): Promise<{ aborted: number }> => {
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
            const aborted = inFlight;
            app.close(); // drops the remaining connections, those still answering included
            return { aborted };
          };
          resolve({
            port: uws.us_socket_local_port(socket),
            // Once only: closing the freed listen socket a second time crashes the process.
            close: (graceMs: number) => (closing ??= close(graceMs)),
          });
        });
      });
    },
  };
}
