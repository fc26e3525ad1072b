// node:http connection bookkeeping: which responses each connection still owes, the connection
// cap, and error answers (400, 408, 413, 414, 431, 405 to CONNECT) that never cut into a response.
//
// Why: with keep-alive and pipelining node runs the handlers of every request it has parsed and
// queues their responses behind the one on the wire. A parse error or timeout on that connection
// must not write into the middle of them (node's own default handler checks only the response on
// the wire, and ours used to write at once), so an error answer waits until the connection owes
// nothing more, then goes out and the connection closes. Responses still queued when a connection
// dies never get a 'close' event from node, so the in-flight count releases them here instead.
import http from 'node:http';
import type { Socket } from 'node:net';

import type { ProtocolErrorEvent } from '../../adapter.js';
import { MAX_HEAD_BYTES, protocolAnswer, type ProtocolAnswer } from '../../protocol-problems.js';

/** What a connection owes: one per request node has handed to the service. */
export interface Owed {
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
  /** The service's handle on the request: stop it (the request will never complete). */
  readonly preempt: () => void;
  /** The transport went away: producers stop. */
  readonly lost: () => void;
}

/** After an error answer, how long a client may keep the connection before it is dropped. */
const LINGER_MS = 2_000;

class Connection {
  readonly owed = new Set<Owed>();
  /** The error answer waiting for the owed responses, once the connection has failed. */
  private pendingAnswer: Buffer | undefined;
  failed = false;

  constructor(readonly socket: Socket) {}

  /** Writes the error answer now if nothing is owed any more, and closes the connection. */
  flush(): void {
    if (this.pendingAnswer === undefined || this.owed.size > 0) return;
    const bytes = this.pendingAnswer;
    this.pendingAnswer = undefined;
    const socket = this.socket;
    // A response that ended the connection itself (Connection: close) leaves nothing to say.
    if (socket.writable) socket.end(bytes);
    else socket.destroy();
    // end() keeps reading until the client closes; a client that never does is dropped.
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }

  fail(answer: ProtocolAnswer): void {
    this.failed = true;
    this.pendingAnswer = serialize(answer);
    this.flush();
  }
}

export interface ConnectionsOptions {
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  onProtocolError: ((event: ProtocolErrorEvent) => void) | undefined;
  /** The in-flight count changed to zero. */
  onIdle: () => void;
}

export class Connections {
  /** Accepted connections. */
  private readonly open = new Map<Socket, Connection>();
  /** Connections over the cap, being told so. */
  private readonly rejected = new Set<Socket>();
  private inFlightCount = 0;

  constructor(private readonly options: ConnectionsOptions) {}

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** Every socket, accepted or being refused (to destroy at shutdown). */
  get sockets(): Socket[] {
    return [...this.open.keys(), ...this.rejected];
  }

  /**
   * A new connection: tracked, or over the cap answered 503 and closed. Runs before node sets up
   * its parser (prependListener), so a rejected socket is never handed a request.
   */
  accept(socket: Socket): void {
    if (this.open.size >= this.options.maxConnections) {
      this.report(503, 'CONNECTION_LIMIT', socket);
      const answer = protocolAnswer('connectionLimit', `the server holds its maximum of ${this.options.maxConnections} connections; retry shortly`, { 'retry-after': '1' });
      // Parsed requests on this socket are ignored (see isRejected); the answer is all it gets.
      this.rejected.add(socket);
      socket.once('close', () => this.rejected.delete(socket));
      socket.end(serialize(answer));
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
      return;
    }
    const connection = new Connection(socket);
    this.open.set(socket, connection);
    socket.once('close', () => {
      this.open.delete(socket);
      for (const owed of [...connection.owed]) {
        owed.lost();
        this.settle(connection, owed);
      }
    });
  }

  isRejected(socket: Socket): boolean {
    return this.rejected.has(socket) || !this.open.has(socket);
  }

  /** Counts a response in flight until it finishes or its connection closes, exactly once. */
  track(owed: Owed): void {
    const connection = this.open.get(owed.req.socket);
    if (!connection) return;
    connection.owed.add(owed);
    this.inFlightCount++;
    const settle = (): void => this.settle(connection, owed);
    owed.res.once('finish', settle);
    owed.res.once('close', settle);
  }

  private settle(connection: Connection, owed: Owed): void {
    if (!connection.owed.delete(owed)) return;
    this.inFlightCount--;
    if (this.inFlightCount === 0) this.options.onIdle();
    connection.flush();
  }

  /** node's clientError: a parse error, a timeout, or the socket failing. */
  clientError(err: ParserError, socket: Socket): void {
    const connection = this.open.get(socket);
    if (!connection || this.rejected.has(socket)) {
      socket.destroy();
      return;
    }
    // The parser stays in its error state and reports again on every read: answered once.
    if (connection.failed) return;
    const answer = this.answerFor(err);
    if (!answer) {
      // Not a protocol error (ECONNRESET, EPIPE…): nobody is listening any more.
      socket.destroy();
      return;
    }
    this.report(answer.status, err.code ?? 'UNKNOWN', socket);
    // The request being received when the error came (the last one, if its body was still
    // arriving) is answered by the error itself, unless its handler has already begun answering.
    const last = [...connection.owed].pop();
    if (last && !last.req.complete && !last.res.headersSent) {
      last.preempt();
      this.settle(connection, last);
    }
    connection.fail(answer);
  }

  /** An error answer for a request node would not hand over (CONNECT), after what the connection owes. */
  refuse(socket: Socket, answer: ProtocolAnswer, code: string): void {
    this.report(answer.status, code, socket);
    const connection = this.open.get(socket);
    if (connection && !connection.failed) connection.fail(answer);
    else socket.destroy();
  }

  private report(status: number, code: string, socket: Socket): void {
    this.options.onProtocolError?.({ status, code, remoteAddress: socket.remoteAddress ?? '' });
  }

  private answerFor(err: ParserError): ProtocolAnswer | undefined {
    const code = err.code ?? '';
    if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      const { headersTimeoutMs: h, requestTimeoutMs: r } = this.options;
      return protocolAnswer('requestTimeout', `the request did not arrive in time: its headers must arrive within ${h} ms and the whole request within ${r} ms`);
    }
    if (code === 'HPE_HEADER_OVERFLOW') {
      return overflowInRequestLine(err)
        ? protocolAnswer('uriTooLong', `the request line exceeds ${MAX_HEAD_BYTES} bytes`)
        : protocolAnswer('headersTooLarge', `the request line and headers exceed ${MAX_HEAD_BYTES} bytes`);
    }
    if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return protocolAnswer('payloadTooLarge', 'the chunk extensions of the request body are too large');
    if (code.startsWith('HPE_')) return protocolAnswer('badRequest', `malformed request (${code}): ${err.reason ?? err.message}`);
    return undefined;
  }
}

/** The extra members node puts on a parser error (see prepareError in node's _http_server.js). */
export interface ParserError extends Error {
  code?: string;
  reason?: string;
  bytesParsed?: number;
  rawPacket?: Buffer;
}

/**
 * node reports an over-long URL and over-large headers alike (HPE_HEADER_OVERFLOW: the request
 * line counts towards the head's 16 KiB). Tell them apart by the line the parser stopped in: a
 * request line starts with a method and a space, a header line has ':' right after its name. When
 * that line began in an earlier read (a head split across TCP reads), it is not in the buffer we
 * are given and the answer is 431; URLs up to MAX_URL_BYTES never get here (414 from the adapter).
 */
function overflowInRequestLine(err: ParserError): boolean {
  const raw = err.rawPacket;
  if (!Buffer.isBuffer(raw)) return false;
  const upTo = Math.min(typeof err.bytesParsed === 'number' ? err.bytesParsed : raw.length, raw.length);
  const lineStart = upTo > 0 ? raw.lastIndexOf(0x0a, upTo - 1) + 1 : 0;
  const line = raw.subarray(lineStart, Math.min(lineStart + 32, raw.length)).toString('latin1');
  return /^[A-Z]+ /.test(line);
}

/** A complete HTTP/1.1 response that closes the connection, for writing straight to a socket. */
export function serialize(answer: ProtocolAnswer): Buffer {
  const reason = http.STATUS_CODES[answer.status] ?? '';
  let head = `HTTP/1.1 ${answer.status} ${reason}\r\n`;
  for (const [name, value] of Object.entries(answer.headers)) head += `${name}: ${value}\r\n`;
  head += `content-length: ${answer.body.length}\r\nconnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), answer.body]);
}
