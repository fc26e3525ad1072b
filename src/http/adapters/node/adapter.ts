// node:http behind the adapter interface. Backpressure: write() resolves on 'drain'. Connection
// bookkeeping, the connection cap and protocol-error answers live in node-connections.ts; the
// native accept loop that takes bursts of connections in native-accept.ts.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

import { WebSocketServer, type WebSocket } from 'ws';

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
import { startNativeAccept } from './native-accept.js';
import { Connections, serialize, type ParserError } from './connections.js';
import { afterEarlierResponses, serveAsPlainRequest } from './upgrade.js';
import { connectNotAllowed, MAX_HEAD_BYTES, MAX_URL_BYTES, uriTooLong } from '../../protocol-problems.js';
import { selectSubprotocol } from '../../ws-subprotocol.js';

class NodeRequest implements HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly remoteAddress: string;
  /** Set when the request can no longer complete (its connection failed); readBody rejects. */
  private failed = false;
  private failListeners: Array<() => void> = [];

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

  /** The connection failed before this request's body arrived: a pending readBody rejects. */
  fail(): void {
    this.failed = true;
    for (const listener of this.failListeners.splice(0)) listener();
  }

  readBody(limit: number): Promise<Uint8Array> {
    const req = this.req;
    if (this.failed) return Promise.reject(new ClientGoneError());
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
      this.failListeners.push(() => {
        if (!failed) reject(new ClientGoneError());
        failed = true;
      });
    });
  }
}

class NodeResponse implements HttpResponse {
  aborted = false;
  /** The connection answers for this response now (an error answer): touch nothing. */
  private preempted = false;
  private drainWaiter: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private abortListeners: Array<() => void> = [];
  /** Writes handed to node, and those whose callback ran (node runs them in order). */
  private issued = 0;
  private taken = 0;
  /** afterWritten() callers, each with the count of writes it waits for. */
  private takenWaiters: Array<{ writes: number; fn: () => void }> = [];
  private writeFailed = false;
  private readonly onTaken = (error?: Error | null): void => {
    // A failed write (socket torn down) may come back before libuv is done with its buffer: from
    // then on nothing is released early, the GC frees those chunks.
    if (error) {
      this.writeFailed = true;
      this.takenWaiters = [];
    }
    if (this.writeFailed) return;
    this.taken++;
    while (this.takenWaiters.length > 0 && this.takenWaiters[0]!.writes <= this.taken) this.takenWaiters.shift()!.fn();
  };

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
    this.issued++;
    if (this.res.write(chunk, this.onTaken)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.drainWaiter = { resolve, reject };
    });
  }

  /**
   * node keeps a reference to each written chunk until its write callback runs (the bytes are with
   * the kernel then, or the write failed and nothing reads them again). A callback that never runs
   * (the socket is torn down mid-write) leaves `fn` waiting: its chunk is then freed by the GC.
   */
  afterWritten(fn: () => void): void {
    if (this.writeFailed || this.aborted) return;
    if (this.taken >= this.issued) fn();
    else this.takenWaiters.push({ writes: this.issued, fn });
  }

  end(): void {
    if (!this.aborted) this.res.end();
  }

  abort(): void {
    // destroy() without end(): node never writes the terminating 0-length chunk.
    if (!this.preempted) this.res.destroy();
    this.markAborted();
  }

  /** The connection failed before this response began; its error answer takes this one's place. */
  preempt(): void {
    this.preempted = true;
    this.markAborted();
  }

  /** The connection closed while this response was still queued (node emits no 'close' then). */
  lost(): void {
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

/** A WebSocket client that has read nothing for this long is pinged (keeps proxies and NATs from dropping an idle feed). */
const WS_PING_MS = 30_000;
/** After a refusal, how long the client may keep the socket before it is dropped. */
const REFUSAL_LINGER_MS = 2_000;

/**
 * The response to a WebSocket upgrade request on node: either refused with an ordinary HTTP answer
 * written straight to the socket (which then closes), or upgraded by the `ws` package. node hands
 * an upgrade request over as ('upgrade', req, socket, head), outside its response machinery.
 */
class NodeUpgradeResponse implements HttpResponse {
  aborted = false;
  headersSent = false;
  private upgraded = false;
  private abortListeners: Array<() => void> = [];

  constructor(
    private readonly req: http.IncomingMessage,
    private readonly socket: Duplex,
    private readonly head: Buffer,
    private readonly wss: WebSocketServer,
  ) {
    // Before the upgrade a closed socket is a client gone; after it, the WebSocket reports its close.
    socket.once('close', () => this.upgraded || this.markAborted());
    socket.on('error', () => undefined);
  }

  send(status: number, headers: Headers, body: Uint8Array): void {
    if (this.aborted || this.headersSent) return;
    this.headersSent = true;
    this.socket.end(serialize({ status, headers, body: Buffer.from(body) }));
    setTimeout(() => this.socket.destroy(), REFUSAL_LINGER_MS).unref();
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
    this.socket.destroy();
    this.markAborted();
  }

  onAborted(listener: () => void): void {
    if (this.aborted) listener();
    else this.abortListeners.push(listener);
  }

  upgrade(open: (connection: WebSocketConnection) => WebSocketListener): void {
    if (this.aborted || this.headersSent) return;
    this.headersSent = true;
    // A malformed handshake (bad Sec-WebSocket-Key or version) is answered 400 by `ws`, which then
    // destroys the socket: the 'close' above reports it as a client gone.
    this.wss.handleUpgrade(this.req, this.socket, this.head, (ws) => {
      this.upgraded = true;
      attach(ws, open);
    });
  }

  private markAborted(): void {
    if (this.aborted) return;
    this.aborted = true;
    for (const listener of this.abortListeners.splice(0)) listener();
  }
}

function attach(ws: WebSocket, open: (connection: WebSocketConnection) => WebSocketListener): void {
  let listener: WebSocketListener | undefined;
  // One callback for every send: once the socket has taken everything, the session hears of it.
  const written = (): void => {
    if (ws.bufferedAmount === 0) listener?.drain();
  };
  // ws has no cork of its own: its socket's (each send corks it too, and node's cork nests).
  const socket = (ws as unknown as { _socket?: { cork?: () => void; uncork?: () => void } })._socket;
  listener = open({
    bufferedAmount: () => ws.bufferedAmount,
    send: (data, text = typeof data === 'string') => {
      if (ws.readyState === ws.OPEN) ws.send(data, { binary: !text }, written);
    },
    cork: (fn) => {
      if (typeof socket?.cork !== 'function' || typeof socket.uncork !== 'function') {
        fn();
        return;
      }
      socket.cork();
      try {
        fn();
      } finally {
        socket.uncork();
      }
    },
    end: (code, reason) => ws.close(code, reason),
    terminate: () => ws.terminate(),
  });
  const ping = setInterval(() => ws.ping(), WS_PING_MS);
  ping.unref();
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data;
    listener?.message(bytes, isBinary);
  });
  // 'error' (a protocol violation by the client, a reset) is followed by 'close'; unhandled it would throw.
  ws.on('error', () => undefined);
  ws.once('close', (code: number) => {
    clearInterval(ping);
    const l = listener;
    listener = undefined;
    l?.close(code);
  });
}

/** Whether the request asks for a WebSocket (Upgrade: websocket); other upgrades (h2c…) are ordinary requests here. */
function wantsWebSocket(req: http.IncomingMessage): boolean {
  return req.method === 'GET' && (req.headers.upgrade ?? '').split(',').some((p) => p.trim().toLowerCase() === 'websocket');
}

/** For the sockets node hands over without its own 'error' listener: an error there is a client gone (the socket is destroyed with it). */
const ignoreError = (): void => undefined;

/**
 * node sends every request with Upgrade/Connection: upgrade to 'upgrade' once anyone listens for it.
 * A WebSocket request at the endpoint's path goes to the handler with an upgradable response;
 * anything else goes back to node's parser and is served as the ordinary request it is, body
 * included (node-upgrade.ts). Either only once the connection has written its earlier responses.
 */
function listenForUpgrades(
  server: http.Server,
  ws: WebSocketOptions,
  handler: RequestHandler,
  connections: Connections,
  regiven: Set<Socket>,
): void {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: ws.maxPayloadBytes,
    perMessageDeflate: false,
    clientTracking: false,
    // Only a subprotocol we define (none): `ws` would otherwise echo the first one offered.
    handleProtocols: (offered) => selectSubprotocol(offered) ?? false,
  });
  server.on('upgrade', (req: http.IncomingMessage, duplex: Duplex, head: Buffer) => {
    // First: node took its own listener off, and an unhandled 'error' (a reset) ends the process.
    duplex.on('error', ignoreError);
    const socket = duplex as Socket;
    if (connections.isRejected(socket)) return;
    afterEarlierResponses(socket, () => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      if (path !== ws.path || !wantsWebSocket(req)) {
        serveAsPlainRequest(server, req, socket, head, regiven);
        return;
      }
      const response = new NodeUpgradeResponse(req, socket, head, wss);
      handler(new NodeRequest(req), response).catch(() => {
        if (!response.headersSent) response.send(500, {}, new Uint8Array(0));
        else response.abort();
      });
    });
  });
}

/** How often node looks for requests over their time limit (its default, 30 s, would add up to 30 s to each). */
function checkingInterval(options: ListenOptions): number {
  return Math.max(10, Math.min(1_000, Math.floor(options.headersTimeoutMs / 4)));
}

export const nodeAdapter: HttpAdapter = {
  name: 'node',
  listen(host: string, port: number, handler: RequestHandler, options: ListenOptions): Promise<ListeningServer> {
    let idle: (() => void) | undefined;
    const connections = new Connections({
      maxConnections: options.maxConnections,
      headersTimeoutMs: options.headersTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs,
      onProtocolError: options.onProtocolError,
      onIdle: () => idle?.(),
    });
    const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      // Over the cap: the connection was already answered 503 and is closing.
      if (connections.isRejected(req.socket)) return;
      const request = new NodeRequest(req);
      const response = new NodeResponse(res);
      connections.track({ req, res, preempt: () => (request.fail(), response.preempt()), lost: () => response.lost() });
      const url = req.url ?? '/';
      if (url.length > MAX_URL_BYTES) {
        // Checked here rather than by the parser so that it gets its own status (see protocol-problems.ts).
        const answer = uriTooLong(url.length);
        options.onProtocolError?.({ status: answer.status, code: 'URI_TOO_LONG', remoteAddress: request.remoteAddress });
        // As every protocol-level answer: the connection closes after it (node then says so in Connection).
        res.shouldKeepAlive = false;
        response.send(answer.status, answer.headers, answer.body);
        return;
      }
      handler(request, response).catch(() => {
        // The handler answers its own failures; this is a last resort against a hang.
        if (!res.headersSent) {
          res.writeHead(500).end();
        } else res.destroy();
      });
    };
    const server = http.createServer(
      {
        keepAliveTimeout: options.keepAliveTimeoutMs,
        headersTimeout: options.headersTimeoutMs,
        requestTimeout: options.requestTimeoutMs,
        connectionsCheckingInterval: checkingInterval(options),
        // Explicit, so that --max-http-header-size cannot move the 414/431 boundary documented in protocol-problems.ts.
        maxHeaderSize: MAX_HEAD_BYTES,
      },
      onRequest,
    );
    // Sockets given back to node after an upgrade it handed over (node-upgrade.ts): no new connection.
    const regiven = new Set<Socket>();
    if (options.websocket) listenForUpgrades(server, options.websocket, handler, connections, regiven);
    // Beyond our cap (answered 503), node's own stops even that at a margin: a flood of
    // connections must not cost unbounded sockets just to be refused.
    server.maxConnections = options.maxConnections + Math.max(64, Math.ceil(options.maxConnections / 10));
    // First, before node's own listener sets up a parser on the socket.
    server.prependListener('connection', (socket: Socket) => {
      if (!regiven.delete(socket)) connections.accept(socket);
    });
    // Malformed or timed-out requests never reach the handler: answered after what the connection owes.
    server.on('clientError', (err: ParserError, socket: Socket) => connections.clientError(err, socket));
    // node hands CONNECT over as a tunnel request (and drops the socket when nobody listens).
    server.on('connect', (_req: http.IncomingMessage, socket: Socket) => {
      // node took its own 'error' listener off this socket, as for 'upgrade'.
      socket.on('error', ignoreError);
      connections.refuse(socket, connectNotAllowed(options.methods), 'CONNECT');
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host, backlog: options.backlog }, () => {
        server.off('error', reject);
        const address = server.address();
        const bound = typeof address === 'object' && address ? address.port : port;
        // A burst of connects must not wait for node's one-accept-per-loop-turn (native-accept.ts).
        const acceptor = options.nativeAccept ? startNativeAccept(server) : undefined;
        resolve({
          port: bound,
          async close(graceMs: number): Promise<{ aborted: number }> {
            // First: its thread polls the listening descriptor, which server.close() closes.
            acceptor?.stop();
            const closed = new Promise<void>((r) => server.close(() => r()));
            server.closeIdleConnections();
            if (connections.inFlight > 0) {
              await new Promise<void>((r) => {
                const timer = setTimeout(r, graceMs);
                idle = () => {
                  clearTimeout(timer);
                  r();
                };
              });
            }
            const aborted = connections.inFlight;
            server.closeAllConnections();
            for (const socket of connections.sockets) socket.destroy();
            await closed;
            return { aborted };
          },
        });
      });
    });
  },
};
