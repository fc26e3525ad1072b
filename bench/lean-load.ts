// A lean keep-alive load generator for small answers: `connections` TCP sockets, each sending the
// next GET as soon as the previous answer is whole, answers parsed just enough (status line,
// Content-Length or chunked framing, the body skipped). node's http client costs tens of microseconds of CPU per
// request, which on 2 shared cores made it the ceiling near 20-25 k req/s, below what the servers
// answer (issue 24's `/health` ratio measured the client). Reads land in one reused buffer per
// socket.
import { performance } from 'node:perf_hooks';

import { latency, type Latency } from './load.js';
import { connectReading } from './raw-get.js';

const READ_BYTES = 64 * 1024;
const MAX_HEAD_BYTES = 16 * 1024;
const BLANK_LINE = Buffer.from('\r\n\r\n', 'latin1');

/** One connection's loop: resolves at `end` (the answer in flight is waited for). */
function connectionLoop(port: number, request: Buffer, end: number, times: number[], failures: { errors: number }): Promise<void> {
  return new Promise((resolve) => {
    let head = '';
    // What is being read: a head, a body of known length, or a chunked body (size line, data,
    // the CRLF after the data, trailers).
    let state: 'head' | 'length' | 'size' | 'data' | 'crlf' | 'trailer' = 'head';
    let left = 0;
    let line = '';
    let status = 0;
    let sentAt = 0;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve();
    };
    const send = (): void => {
      if (performance.now() >= end) {
        finish();
        return;
      }
      sentAt = performance.now();
      socket.write(request);
    };
    const answered = (rest: number): void => {
      if (rest > 0) throw new Error('bytes after the answer (a pipelining peer?)');
      times.push(performance.now() - sentAt);
      if (status !== 200) failures.errors++;
      state = 'head';
      send();
    };
    /** Reads a CRLF-terminated line from `buf` at `at` into `line`; returns the new offset, or -1 if the line goes on in the next read. */
    const readLine = (buf: Buffer, at: number): number => {
      const nl = buf.indexOf(0x0a, at);
      line += buf.toString('latin1', at, nl === -1 ? buf.length : nl);
      if (line.length > MAX_HEAD_BYTES) throw new Error('line too long');
      return nl === -1 ? -1 : nl + 1;
    };
    const onBytes = (buf: Buffer): void => {
      let at = 0;
      while (at < buf.length) {
        switch (state) {
          case 'head': {
            let headText: string;
            let consumed: number;
            if (head === '') {
              const e = buf.indexOf(BLANK_LINE, at);
              if (e === -1) {
                head = buf.toString('latin1', at);
                if (head.length > MAX_HEAD_BYTES) throw new Error('answer head too long');
                return;
              }
              headText = buf.toString('latin1', at, e);
              consumed = e + 4 - at;
            } else {
              // The head straddles reads (rare): join its start with this read's first bytes.
              const text = head + buf.toString('latin1', at, Math.min(buf.length, at + MAX_HEAD_BYTES));
              const e = text.indexOf('\r\n\r\n');
              if (e === -1) {
                if (text.length > MAX_HEAD_BYTES) throw new Error('answer head too long');
                head = text;
                return;
              }
              headText = text.slice(0, e);
              consumed = e + 4 - head.length;
            }
            at += consumed;
            head = '';
            const lines = headText.split('\r\n');
            status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
            const length = lines.find((l) => /^content-length:/i.test(l));
            if (lines.some((l) => /^transfer-encoding:.*chunked/i.test(l))) {
              state = 'size';
              line = '';
            } else if (length !== undefined) {
              left = Number(length.slice(length.indexOf(':') + 1).trim());
              state = 'length';
              if (left === 0) answered(buf.length - at);
            } else throw new Error(`an answer of unknown length (${lines[0] ?? ''})`);
            break;
          }
          case 'length':
          case 'data':
          case 'crlf': {
            const take = Math.min(left, buf.length - at);
            at += take;
            left -= take;
            if (left > 0) break;
            if (state === 'length') answered(buf.length - at);
            else if (state === 'data') {
              state = 'crlf';
              left = 2;
            } else {
              state = 'size';
              line = '';
            }
            break;
          }
          case 'size':
          case 'trailer': {
            const next = readLine(buf, at);
            if (next === -1) return;
            at = next;
            const text = line.replace(/\r$/, '');
            line = '';
            if (state === 'trailer') {
              if (text === '') answered(buf.length - at);
              break;
            }
            const size = Number.parseInt(text.split(';')[0]!.trim(), 16);
            if (!Number.isSafeInteger(size) || size < 0) throw new Error('bad chunk size line');
            if (size === 0) state = 'trailer';
            else {
              state = 'data';
              left = size;
            }
            break;
          }
        }
      }
    };
    const socket = connectReading('127.0.0.1', port, READ_BYTES, onBytes, () => {
      failures.errors++;
      finish();
    });
    socket.setNoDelay(true);
    socket.on('connect', send);
    socket.on('error', () => {
      failures.errors++;
      finish();
    });
    socket.on('close', finish);
  });
}

/** `connections` keep-alive connections issuing GET `path` back to back for `seconds`. */
export async function leanLoadFor(port: number, path: string, connections: number, seconds: number): Promise<Latency & { rps: number; errors: number; answers: number }> {
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: */*\r\n\r\n`, 'latin1');
  const times: number[] = [];
  const failures = { errors: 0 };
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, () => connectionLoop(port, request, end, times, failures)));
  const elapsed = (performance.now() - started) / 1000;
  return { ...latency(times), rps: Math.round(times.length / elapsed), errors: failures.errors, answers: times.length };
}
