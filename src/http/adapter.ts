// The one seam between the service and an HTTP server library. Everything above this file sees
// only these interfaces; node-adapter.ts and uws-adapter.ts are the only importers of a library.

/** A request as the service needs it; every member is available after the handler has awaited. */
export interface HttpRequest {
  /** Upper-case method, e.g. 'GET'. */
  readonly method: string;
  /** The URL path as sent, still percent-encoded, without the query string. */
  readonly path: string;
  /** The raw query string without the leading '?', '' when absent. */
  readonly query: string;
  readonly remoteAddress: string;
  /** A header by lower-case name; repeated headers are joined with ', '. */
  header(name: string): string | undefined;
  /** The whole body; rejects with BodyTooLargeError past `limit` bytes, or if the client leaves. */
  readBody(limit: number): Promise<Uint8Array>;
}

export type Headers = Readonly<Record<string, string>>;

/** A response: status and headers once, then a body that is either sent whole or streamed. */
export interface HttpResponse {
  /** True once the client went away or abort() was called; writes then reject. */
  readonly aborted: boolean;
  readonly headersSent: boolean;
  /** Sends status and headers, then `body` with a Content-Length, and finishes. */
  send(status: number, headers: Headers, body: Uint8Array): void;
  /** Sends status and headers for a streamed (chunked) body. */
  writeHead(status: number, headers: Headers): void;
  /** Writes a body chunk; resolves when the transport can take more, rejects if aborted. */
  write(chunk: Uint8Array): Promise<void>;
  /**
   * True when a resolved write() no longer reads its chunk (uWS: what the socket does not take at
   * once is copied into its own buffer), so the chunk's buffer may be reused; see BodySink.
   */
  readonly releasesWrites?: boolean;
  /** See BodySink.afterWritten (node: the write callbacks, which node runs in order). */
  afterWritten?(fn: () => void): void;
  /** Finishes a streamed body. */
  end(): void;
  /** Closes the connection at once, so a streamed body ends without a valid terminator. */
  abort(): void;
  /** Called once if the client goes away before the response is finished. */
  onAborted(listener: () => void): void;
  /**
   * Present only on a WebSocket upgrade request at ListenOptions.websocket's path: completes the
   * handshake (101) instead of answering over HTTP. `open` runs once the connection is up and
   * returns the listener of its messages; nothing runs when the client left before (onAborted).
   * Answering with send() instead refuses the upgrade with that HTTP answer.
   */
  upgrade?(open: (connection: WebSocketConnection) => WebSocketListener): void;
}

/** An open WebSocket, as the service sees it (node: the `ws` package; uWS: its own). */
export interface WebSocketConnection {
  /** Bytes handed to send() that the socket has not taken yet (the transport's backpressure). */
  bufferedAmount(): number;
  /**
   * A text frame for a string, a binary frame for bytes, unless `text` says otherwise (bytes that
   * are UTF-8 text: one encoding shared by every client). Ignored once closed.
   */
  send(data: string | Uint8Array, text?: boolean): void;
  /** Runs `fn`, whose sends leave in as few socket writes as the transport can make (one, usually). */
  cork(fn: () => void): void;
  /** The closing handshake with this code and reason (at most 123 bytes of UTF-8). */
  end(code: number, reason: string): void;
  /** Drops the connection without a closing handshake (a client that reads nothing). */
  terminate(): void;
}

export interface WebSocketListener {
  /** One message (text or binary); the bytes are the listener's to keep. */
  message(data: Uint8Array, isBinary: boolean): void;
  /** The socket took buffered bytes; bufferedAmount() says how many are left (0: all out). */
  drain(): void;
  /** Once, when the connection is gone, however it ended; nothing may be sent after it. */
  close(code: number): void;
}

/** Where and how the adapter accepts WebSocket upgrades; the dispatcher decides each one. */
export interface WebSocketOptions {
  /** The one path (prefix included) taken as a WebSocket endpoint; upgrades elsewhere are ordinary requests. */
  readonly path: string;
  /** Largest message a client may send; a bigger one closes the connection (1009). */
  readonly maxPayloadBytes: number;
  /** uWS's own per-socket cap on buffered bytes: above what the service ever lets queue (it drops first). */
  readonly maxBackpressureBytes: number;
}

export type RequestHandler = (req: HttpRequest, res: HttpResponse) => Promise<void>;

export interface ListeningServer {
  readonly port: number;
  /** Stops accepting, lets in-flight responses finish for up to graceMs, then drops the rest and says how many. */
  close(graceMs: number): Promise<{ aborted: number }>;
}

/** A request the adapter answered itself, before the service saw it (malformed, too slow, too long…). */
export interface ProtocolErrorEvent {
  status: number;
  /** What went wrong, e.g. the parser's code (HPE_INVALID_METHOD) or ERR_HTTP_REQUEST_TIMEOUT. */
  code: string;
  remoteAddress: string;
}

/** Connection-level limits; every adapter applies what its library lets it (see each adapter). */
export interface ListenOptions {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  backlog: number;
  /** node adapter: also accept on a native thread where the addon has one (see native-accept.ts). */
  nativeAccept: boolean;
  /** The methods the service has (for Allow on a 405 to CONNECT). */
  methods: readonly string[];
  onProtocolError?: (event: ProtocolErrorEvent) => void;
  /** WebSocket upgrades at one path, handed to the request handler with a response that has upgrade(). */
  websocket?: WebSocketOptions | undefined;
}

export interface HttpAdapter {
  readonly name: 'uws' | 'node';
  listen(host: string, port: number, handler: RequestHandler, options: ListenOptions): Promise<ListeningServer>;
}

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
  constructor() {
    super('the client closed the connection');
  }
}
