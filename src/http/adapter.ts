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
  /** Finishes a streamed body. */
  end(): void;
  /** Closes the connection at once, so a streamed body ends without a valid terminator. */
  abort(): void;
  /** Called once if the client goes away before the response is finished. */
  onAborted(listener: () => void): void;
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
