// A lean HTTP/1.1 GET for the benches: a TCP socket that reads into 1 MiB buffers of its own
// (net.Socket's `onread`), and a small parser for the status line, the headers and the body
// (Content-Length, chunked, or to the close). node's http client reads 64 KiB at a time and spends
// ~0.5 CPU-s receiving a 600 MB answer on the same two cores as the server, four times what curl
// spends: the client, not the server, was what the big pulls measured (issue 24). One buffer is
// read into again and again (a fresh one per read costs page faults per read, which would bill a
// server that writes in small pieces for the client's allocations): bodies reach `onBody` as views
// valid only during the call.
import net from 'node:net';

/** Bytes per read: what the socket holds, up to this. */
const READ_BYTES = 1 << 20;
/** Bounds on what is parsed before the body (a bench talks to known servers, but stays bounded). */
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE = 1024;

export interface RawResponse {
  readonly status: number;
  /** Header names lowercased; a repeated header's values joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
}

export interface RawGetHandlers {
  /** The status line and headers, once. */
  onHead(response: RawResponse): void;
  /** A piece of the body (de-chunked). */
  onBody(chunk: Buffer): void;
}

type BodyState =
  | { kind: 'length'; left: number }
  | { kind: 'close' }
  | { kind: 'chunk-size'; line: string }
  | { kind: 'chunk-data'; left: number }
  | { kind: 'chunk-crlf'; left: number }
  | { kind: 'trailers'; line: string }
  | { kind: 'done' };

/** GET `url` (http only); resolves once the whole body was handed over, rejects on a socket error or a malformed answer. */
export function rawGet(url: string, requestHeaders: Readonly<Record<string, string>>, handlers: RawGetHandlers, timeoutMs: number): Promise<void> {
  const u = new URL(url);
  if (u.protocol !== 'http:') return Promise.reject(new Error(`rawGet: http only (${u.protocol})`));
  const port = Number(u.port || 80);
  return new Promise<void>((resolve, reject) => {
    let head: Buffer | null = Buffer.alloc(0);
    let body: BodyState | null = null;
    let settled = false;
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };

    const onHead = (bytes: Buffer): void => {
      const text = bytes.toString('latin1');
      const lines = text.split('\r\n');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
      if (!status) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] = headers[name] !== undefined ? `${headers[name]}, ${value}` : value;
      }
      handlers.onHead({ status: Number(status[1]), headers });
      const chunked = /(^|,)\s*chunked\s*$/i.test(headers['transfer-encoding'] ?? '');
      if (chunked) body = { kind: 'chunk-size', line: '' };
      else if (headers['content-length'] !== undefined) {
        const left = Number(headers['content-length']);
        if (!Number.isSafeInteger(left) || left < 0) throw new Error(`bad Content-Length ${headers['content-length']}`);
        body = left === 0 ? { kind: 'done' } : { kind: 'length', left };
      } else body = { kind: 'close' };
    };

    // Consumes `buf` from `at`; returns when it is used up or the body is done.
    const onBodyBytes = (buf: Buffer, at: number): void => {
      while (at < buf.length && body !== null && body.kind !== 'done') {
        switch (body.kind) {
          case 'length': {
            const take = Math.min(body.left, buf.length - at);
            handlers.onBody(buf.subarray(at, at + take));
            at += take;
            body.left -= take;
            if (body.left === 0) body = { kind: 'done' };
            break;
          }
          case 'close':
            handlers.onBody(buf.subarray(at));
            at = buf.length;
            break;
          case 'chunk-size':
          case 'trailers': {
            const nl = buf.indexOf(0x0a, at);
            const end = nl === -1 ? buf.length : nl;
            body.line += buf.toString('latin1', at, end);
            if (body.line.length > MAX_CHUNK_LINE) throw new Error('chunk size line too long');
            at = nl === -1 ? buf.length : nl + 1;
            if (nl === -1) break;
            const line = body.line.replace(/\r$/, '');
            if (body.kind === 'trailers') {
              body = line === '' ? { kind: 'done' } : { kind: 'trailers', line: '' };
              break;
            }
            const size = Number.parseInt(line.split(';')[0]!.trim(), 16);
            if (!Number.isSafeInteger(size) || size < 0) throw new Error(`bad chunk size line ${JSON.stringify(line.slice(0, 40))}`);
            body = size === 0 ? { kind: 'trailers', line: '' } : { kind: 'chunk-data', left: size };
            break;
          }
          case 'chunk-data': {
            const take = Math.min(body.left, buf.length - at);
            handlers.onBody(buf.subarray(at, at + take));
            at += take;
            body.left -= take;
            if (body.left === 0) body = { kind: 'chunk-crlf', left: 2 };
            break;
          }
          case 'chunk-crlf': {
            const take = Math.min(body.left, buf.length - at);
            at += take;
            body.left -= take;
            if (body.left === 0) body = { kind: 'chunk-size', line: '' };
            break;
          }
        }
      }
      if (body?.kind === 'done') finish();
    };

    const onBytes = (buf: Buffer): void => {
      let at = 0;
      if (head !== null) {
        const joined = head.length > 0 ? Buffer.concat([head, buf]) : buf;
        const end = joined.indexOf('\r\n\r\n', Math.max(0, head.length - 3), 'latin1');
        if (end === -1) {
          if (joined.length > MAX_HEAD_BYTES) throw new Error('response head too long');
          head = Buffer.from(joined);
          return;
        }
        onHead(joined.subarray(0, end));
        // What follows the head in this read: the start of the body.
        const rest = joined.subarray(end + 4);
        head = null;
        onBodyBytes(rest, 0);
        return;
      }
      onBodyBytes(buf, at);
    };

    const socket = connectReading(u.hostname, port, READ_BYTES, onBytes, (e) => finish(e));
    const timer = setTimeout(() => finish(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    socket.setNoDelay(true);
    socket.on('connect', () => {
      const lines = [`GET ${u.pathname}${u.search} HTTP/1.1`, `Host: ${u.host}`, ...Object.entries(requestHeaders).map(([k, v]) => `${k}: ${v}`), 'Connection: close', '', ''];
      socket.write(lines.join('\r\n'));
    });
    socket.on('error', (e) => finish(e));
    socket.on('close', () => {
      if (settled) return;
      if (body?.kind === 'close') finish();
      else finish(new Error(head !== null ? 'connection closed before the response head' : 'connection closed before the body ended'));
    });
  });
}

/**
 * A TCP connection whose reads all land in one buffer of `readBytes`, reused: `onBytes` gets a view
 * valid only during the call; what it throws goes to `onError`.
 */
export function connectReading(host: string, port: number, readBytes: number, onBytes: (bytes: Buffer) => void, onError: (e: Error) => void): net.Socket {
  return net.connect({
    host,
    port,
    onread: {
      buffer: Buffer.allocUnsafeSlow(readBytes),
      callback: (n: number, buf: Uint8Array): boolean => {
        try {
          onBytes(Buffer.from(buf.buffer, buf.byteOffset, n));
        } catch (e) {
          onError(e instanceof Error ? e : new Error(String(e)));
        }
        return true;
      },
    },
  } as net.NetConnectOpts);
}
