// The native accept loop for the node adapter (binding/net/acceptor.h says why it exists: libuv in
// node 20 accepts one connection per event-loop iteration, so a burst of connects against a busy
// server drains at a few dozen a second). A thread takes every queued connection at once; here each
// descriptor becomes a net.Socket that the http.Server receives exactly as node's own accept path
// hands it one (net.js onconnection): same options, same count, same cap, then 'connection'.
// node's own listening handle keeps accepting alongside: whichever wakes first takes a connection.
import { closeSync } from 'node:fs';
import net from 'node:net';

import { addon } from '../../../terminal/native.js';

/**
 * The parts of node's net.Server that its accept path uses and no public API exposes: the libuv
 * handle (whose fd is the listening socket; -1 or absent where it has none, e.g. on Windows) and the
 * connection count that maxConnections and close() go by. Read through this one view, so that a
 * node without them leaves the native path off instead of failing.
 */
interface ServerInternals {
  _handle?: { fd?: unknown } | null;
  _connections?: unknown;
  /** Options net.Server keeps for the sockets it accepts (http.Server sets both to true). */
  allowHalfOpen?: boolean;
  noDelay?: boolean;
}

/** And of net.Socket: the server it counts against (node decrements the count when it closes). */
interface SocketInternals {
  server?: net.Server;
  _server?: net.Server | null;
}

function internals(server: net.Server): ServerInternals {
  return server as unknown as ServerInternals;
}

/** The listening socket's descriptor, or undefined where node does not expose one. */
function listeningFd(server: net.Server): number | undefined {
  const fd = internals(server)._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

export interface NativeAcceptor {
  /** Stops the thread (joined); connections it took but had not handed over are closed. */
  stop(): void;
}

function closeFd(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already gone: nothing to release
  }
}

/**
 * Starts the native accept loop on a listening http.Server, or returns undefined where there is
 * none (no addon support, no descriptor, or a node whose internals differ): node's own accept path
 * then serves alone, as before.
 */
export function startNativeAccept(server: net.Server): NativeAcceptor | undefined {
  const fd = listeningFd(server);
  const state = internals(server);
  if (fd === undefined || typeof state._connections !== 'number' || typeof addon.startAcceptor !== 'function') return undefined;
  const acceptor = addon.startAcceptor(fd, (fds) => {
    for (const clientFd of fds) adopt(server, state, clientFd);
  });
  return acceptor ?? undefined;
}

function adopt(server: net.Server, state: ServerInternals, fd: number): void {
  // node's own accept path drops a connection beyond maxConnections without a word ('drop'): the same here.
  const count = typeof state._connections === 'number' ? state._connections : 0;
  if (server.maxConnections && count >= server.maxConnections) {
    closeFd(fd);
    server.emit('drop');
    return;
  }
  let socket: net.Socket;
  try {
    // The server's own choices for the sockets it accepts (http.Server's: half-open allowed, so a
    // client may shut its side after the request and still read the answer; Nagle off).
    socket = new net.Socket({ fd, allowHalfOpen: state.allowHalfOpen === true, readable: true, writable: true });
  } catch {
    // Not a TCP socket any more (the peer vanished in between is still a socket): nothing to serve.
    closeFd(fd);
    return;
  }
  if (state.noDelay === true) socket.setNoDelay(true);
  // Counted as node counts its own: maxConnections, getConnections() and close() see it, and node
  // decrements the count when the socket is destroyed.
  state._connections = count + 1;
  const view = socket as unknown as SocketInternals;
  view.server = server;
  view._server = server;
  server.emit('connection', socket);
}
