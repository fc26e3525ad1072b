// Preloaded (NODE_OPTIONS=--import) into Windows node.exe under Wine only, never on Linux or real
// Windows. Wine 8.0 fails setsockopt(SO_KEEPALIVE...) on a TCP socket whose connect is still in
// progress, and libuv reports it as a failed connect (errno -4094, UNKNOWN). undici, i.e. fetch(),
// calls socket.setKeepAlive(true, …) right after net.connect(), so every fetch() from Wine node
// fails; http.get (no keep-alive) and keep-alive set once connected work. On real Windows the same
// call succeeds. The shim defers setKeepAlive on a connecting socket until 'connect': the clients
// of the tests keep their keep-alive, and the server code under test is untouched (it never calls
// setKeepAlive; its accepted sockets are connected).
import net from 'node:net';

const setKeepAlive = net.Socket.prototype.setKeepAlive;
net.Socket.prototype.setKeepAlive = function deferredSetKeepAlive(...args) {
  if (this.connecting) {
    this.once('connect', () => setKeepAlive.apply(this, args));
    return this;
  }
  return setKeepAlive.apply(this, args);
};
