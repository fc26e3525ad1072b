// An HttpResponse that counts the body bytes handed to the transport (GET /metrics: bytes sent).
import type { Headers, HttpResponse } from './adapter.js';

export interface CountingResponse extends HttpResponse {
  readonly bytes: number;
}

/** `head`: the answer to a HEAD, whose body the adapter does not send (nothing is counted). */
export function countingResponse(res: HttpResponse, head = false): CountingResponse {
  let bytes = 0;
  const counted: CountingResponse = {
    get aborted() {
      return res.aborted;
    },
    get headersSent() {
      return res.headersSent;
    },
    get bytes() {
      return bytes;
    },
    send(status: number, headers: Headers, body: Uint8Array) {
      res.send(status, headers, body);
      if (!head) bytes += body.byteLength;
    },
    writeHead: (status, headers) => res.writeHead(status, headers),
    write(chunk: Uint8Array) {
      bytes += chunk.byteLength;
      return res.write(chunk);
    },
    get releasesWrites() {
      return res.releasesWrites === true;
    },
    ...(res.afterWritten ? { afterWritten: res.afterWritten.bind(res) } : {}),
    end: () => res.end(),
    abort: () => res.abort(),
    onAborted: (listener) => res.onAborted(listener),
  };
  // Only an upgrade request has upgrade(): the dispatcher tells them apart by its presence.
  if (res.upgrade) {
    const upgrade = res.upgrade.bind(res);
    return Object.assign(counted, { upgrade });
  }
  return counted;
}
