"""The listener: a thread per connection, a cap on connections, nothing shared between them but
the Session (whose worker serialises the package calls)."""
import socket
import threading

from . import log
from .connection import Connection


def serve(host: str, port: int, session, settings, max_connections: int):
    listener = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET,
                                    reuse_port=False)
    bound = listener.getsockname()
    log.event("listening", host=bound[0], port=bound[1])
    slots = threading.BoundedSemaphore(max_connections)
    while True:
        sock, peer = listener.accept()
        if not slots.acquire(blocking=False):
            log.event("connection_refused", peer="%s:%s" % peer[:2], reason="%d connections open" % max_connections)
            sock.close()
            continue
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)  # notice half-dead peers
        threading.Thread(target=_serve_one, args=(sock, peer, session, settings, slots),
                         name="conn-%s:%s" % peer[:2], daemon=True).start()


def _serve_one(sock, peer, session, settings, slots):
    try:
        log.event("connection_opened", peer="%s:%s" % peer[:2])
        Connection(sock, peer, session, settings).serve()
    finally:
        slots.release()
