"""The listener: a thread per connection, nothing shared between them but the Session (whose
worker serialises the package calls) and the Admission, which caps handshaking and authenticated
connections apart (admission.py says why)."""
import socket
import threading
import time

from . import log
from .admission import Admission
from .connection import Connection


def serve(host: str, port: int, session, settings, max_connections: int, max_unauthenticated: int):
    listener = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET,
                                    reuse_port=False)
    bound = listener.getsockname()
    log.event("listening", host=bound[0], port=bound[1])
    admission = Admission(max_connections, max_unauthenticated)
    while True:
        try:
            sock, peer = listener.accept()
        except OSError as e:
            # EMFILE/ENFILE under a flood, or a connection reset before accept: the listener
            # carries on (a moment later, so as not to spin) instead of ending the bridge.
            log.event("accept_failed", error="%s: %s" % (type(e).__name__, e))
            time.sleep(0.05)
            continue
        where = "%s:%s" % peer[:2]
        ticket, displaced = admission.admit(sock, where)
        if displaced is not None:
            log.event("handshake_evicted", peer=displaced.peer, by=where,
                      reason="%d handshakes pending (--max-unauthenticated)" % max_unauthenticated)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)  # notice half-dead peers
            threading.Thread(target=_serve_one, args=(sock, peer, session, settings, ticket),
                             name="conn-" + where, daemon=True).start()
        except (OSError, RuntimeError) as e:  # reset already, or no thread to be had: this one only
            log.event("connection_closed", peer=where, reason=type(e).__name__)
            ticket.release()
            sock.close()


def _serve_one(sock, peer, session, settings, ticket):
    log.event("connection_opened", peer="%s:%s" % peer[:2])
    Connection(sock, peer, session, settings, ticket).serve()  # releases the ticket, closes the socket
