// Requests that node:http hands to the 'upgrade' listener although they are not WebSocket
// handshakes for us (issue 22). Once anyone listens for 'upgrade', node 20 hands over every request
// carrying `Upgrade` (h2c from `curl --http2`, a handshake at a path without WebSockets…) with its
// parser already torn down: the body is never parsed, node's own 'error' listener is off the socket
// (so a reset became an uncaught exception), and the connection may still be writing an earlier
// response (pipelining), which a response of ours must not cut into. (node 24.9 added
// shouldUpgradeCallback for this; node 20 is supported, so it is done here.)
//
// Such a request is given back to node's parser: its head, rebuilt without the Upgrade header (so
// that node does not hand it over again), goes back in front of whatever followed it on the socket,
// and the socket is emitted as a 'connection' again, which node documents for injecting
// connections. node then serves it as any request: body, timeouts, keep-alive, pipelining, error
// answers and the connection's 'error' handling included.
import type http from 'node:http';
import type { Socket } from 'node:net';

/** The one internal of a socket used here: the response node is writing on it (null when none). */
interface SocketInternals {
  _httpMessage?: http.ServerResponse | null;
}

/** The response node is writing on the socket, or null. */
function responseOn(socket: Socket): http.ServerResponse | null {
  return (socket as unknown as SocketInternals)._httpMessage ?? null;
}

/**
 * Calls `then` once the connection has written every response to the requests before this one
 * (at once when there are none); never when the connection closes or ends first. node assigns a
 * queued response to the socket when the one before it finishes, so this waits until none is.
 */
export function afterEarlierResponses(socket: Socket, then: () => void): void {
  if (!responseOn(socket)) {
    if (!socket.destroyed && !socket.writableEnded) then();
    return;
  }
  // node took its 'drain' listener off with the others, and that listener is what tells the
  // response on the socket that it may write again: without it a streamed response stalls for good.
  const relay = (): void => {
    const response = responseOn(socket);
    if (response?.writableNeedDrain) response.emit('drain');
  };
  socket.on('drain', relay);
  const check = (): void => {
    const current = responseOn(socket);
    if (!current || socket.destroyed) {
      socket.off('drain', relay);
      // A response that ended the connection (Connection: close) leaves this request unanswered.
      if (!socket.destroyed && !socket.writableEnded) then();
      return;
    }
    let waited = false;
    const next = (): void => {
      if (waited) return;
      waited = true;
      current.off('finish', next);
      current.off('close', next);
      // After node's own 'finish' listener has handed the socket to the next queued response.
      setImmediate(check);
    };
    current.once('finish', next);
    current.once('close', next);
  };
  check();
}

/**
 * The request's head as the client sent it, less the Upgrade header. Never longer than the
 * original (no space after the colon; node trimmed the values), so it fits the same head limit.
 * Names and values are latin1, as node decoded them.
 */
export function headWithoutUpgrade(req: http.IncomingMessage): Buffer {
  let head = `${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}\r\n`;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.toLowerCase() !== 'upgrade') head += `${name}:${raw[i + 1] as string}\r\n`;
  }
  return Buffer.from(`${head}\r\n`, 'latin1');
}

/**
 * Hands the request back to `server`'s parser (see the top of this file). `regiven` marks the
 * socket for the 'connection' listeners that must not count it as a new connection.
 */
export function serveAsPlainRequest(server: http.Server, req: http.IncomingMessage, socket: Socket, head: Buffer, regiven: Set<Socket>): void {
  // An earlier response on this connection left node's keep-alive timer set; its 'timeout'
  // listener will destroy an idle socket, and this request may be idle longer (a slow body, SSE).
  socket.setTimeout(0);
  // Bytes read after the head (the body, pipelined requests) are `head` and then the socket's buffer.
  socket.unshift(Buffer.concat([headWithoutUpgrade(req), head]));
  regiven.add(socket);
  server.emit('connection', socket);
}
