// Raw HTTP/1.1 over a plain TCP socket, for the cases fetch() cannot produce: pipelining,
// malformed framing, unfinished requests. The response parser is strict on purpose: a response
// that ends early or a chunked body without its terminating chunk is reported as incomplete.
// Also getCoded: a plain GET whose coded body is kept as it came (the content-coding suites).
import http from 'node:http';
import net from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ', '. */
  headers: Map<string, string>;
  body: Buffer;
  /** False when the connection ended before the body did (Content-Length short, no last chunk). */
  complete: boolean;
}

export interface Exchange {
  /** Everything the server sent until it closed the connection. */
  bytes: Buffer;
  /** True when the server closed (rather than our deadline). */
  closed: boolean;
  /** Milliseconds from connect to close (or to the deadline). */
  ms: number;
}

/** Opens a connection; resolves once connected. */
export function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Collects what the server sends on `socket` until it closes the connection or `deadlineMs` passes
 * (then the socket is destroyed and `closed` is false). A reset after the server's last byte counts
 * as closed: the bytes received before it are kept.
 */
export function collect(socket: net.Socket, deadlineMs: number): Promise<Exchange> {
  const started = performance.now();
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ bytes: Buffer.concat(chunks), closed, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish(false), deadlineMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
  });
}

/** Connects, writes each part in turn (a function part is awaited between writes), collects the answer. */
export async function exchange(port: number, parts: ReadonlyArray<string | Buffer | ((socket: net.Socket) => Promise<void>)>, deadlineMs = 10_000): Promise<Exchange> {
  const socket = await connect(port);
  const answer = collect(socket, deadlineMs);
  for (const part of parts) {
    if (typeof part === 'function') await part(socket);
    else if (!socket.destroyed) socket.write(part);
  }
  return answer;
}

/** Resolves once the socket has received at least `bytes` bytes (it keeps flowing to collect()). */
export function received(socket: net.Socket, bytes: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen >= bytes) {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
    socket.once('close', () => resolve());
  });
}

/** Splits a byte stream into the HTTP/1.1 responses it holds, in order. */
export function parseResponses(bytes: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  while (at < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd < 0) throw new Error(`unparseable response head at byte ${at}: ${JSON.stringify(bytes.subarray(at, at + 80).toString('latin1'))}`);
    const lines = bytes.subarray(at, headEnd).toString('latin1').split('\r\n');
    const statusLine = /^HTTP\/1\.1 (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
    if (!statusLine) throw new Error(`not a status line at byte ${at}: ${JSON.stringify(lines[0])}`);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const prior = headers.get(name);
      headers.set(name, prior === undefined ? value : `${prior}, ${value}`);
    }
    const status = Number(statusLine[1]);
    at = headEnd + 4;
    const length = headers.get('content-length');
    if (status === 204 || status === 304) {
      out.push({ status, headers, body: Buffer.alloc(0), complete: true });
    } else if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') {
      const parts: Buffer[] = [];
      let complete = false;
      for (;;) {
        const lineEnd = bytes.indexOf('\r\n', at);
        if (lineEnd < 0) break;
        const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
        if (!Number.isFinite(size)) throw new Error(`bad chunk size at byte ${at}: ${JSON.stringify(bytes.subarray(at, at + 40).toString('latin1'))}`);
        const dataStart = lineEnd + 2;
        if (size === 0) {
          // The last chunk, then (no trailers from us) the final CRLF.
          complete = bytes.subarray(dataStart, dataStart + 2).toString('latin1') === '\r\n';
          at = dataStart + 2;
          break;
        }
        if (dataStart + size + 2 > bytes.length) {
          parts.push(bytes.subarray(dataStart));
          at = bytes.length;
          break;
        }
        if (bytes.subarray(dataStart + size, dataStart + size + 2).toString('latin1') !== '\r\n') {
          throw new Error(`chunk of ${size} bytes at byte ${dataStart} is not followed by CRLF: the body was corrupted`);
        }
        parts.push(bytes.subarray(dataStart, dataStart + size));
        at = dataStart + size + 2;
      }
      out.push({ status, headers, body: Buffer.concat(parts), complete });
      if (!complete) break;
    } else if (length !== undefined) {
      const n = Number(length);
      const body = bytes.subarray(at, at + n);
      out.push({ status, headers, body, complete: body.length === n });
      at += n;
    } else {
      out.push({ status, headers, body: bytes.subarray(at), complete: true });
      at = bytes.length;
    }
  }
  return out;
}

/** A problem body (parsed), or undefined when the response is not application/problem+json. */
export function problemOf(res: RawResponse): { type: string; title: string; status: number; detail: string; instance: string } | undefined {
  if (!/^application\/problem\+json/.test(res.headers.get('content-type') ?? '')) return undefined;
  return JSON.parse(res.body.toString('utf8')) as { type: string; title: string; status: number; detail: string; instance: string };
}

/** A GET through node:http whose body is left coded (fetch would decode it and hide Content-Encoding). */
export interface CodedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export function getCoded(url: string, headers: Record<string, string>): Promise<CodedResponse> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
