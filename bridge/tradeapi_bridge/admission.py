"""Which connections the bridge keeps, counted apart before and after authentication
(docs/bridge-protocol.md §1, §4).

Why two pools: a peer without the secret must never keep the gateway out. With one cap, 70 silent
connections filled --max-connections and the gateway could not connect (issue 22 item 9). Now:

- At most --max-unauthenticated connections may be handshaking. A new connection that finds them
  all taken closes the oldest one instead of being refused: that one has had the longest to send
  its AUTH (the gateway needs one round trip), so a pool full of silent or trickling impostors
  makes room for the gateway's next connection rather than keeping it out.
- --max-connections counts authenticated connections only, which an impostor cannot become. One
  over it is answered after its AUTH with ERROR `unavailable`, saying why, and closed.
"""
import socket
import threading
from collections import OrderedDict

PENDING, AUTHENTICATED, EVICTED, CLOSED = "pending", "authenticated", "evicted", "closed"

# Answers of Ticket.promote().
PROMOTED, FULL = "promoted", "full"


class Ticket(object):
    """One connection's place. `evicted` is set when a newer connection displaced it; the
    connection's thread waits on it instead of sleeping, so an evicted handshake ends at once."""

    def __init__(self, admission, sock, peer: str):
        self._admission = admission
        self.sock = sock
        self.peer = peer
        self.state = PENDING
        self.evicted = threading.Event()

    @property
    def max_authenticated(self) -> int:
        return self._admission.max_authenticated

    def promote(self) -> str:
        """PROMOTED (now counted as authenticated), FULL (--max-connections reached) or EVICTED."""
        return self._admission._promote(self)

    def release(self) -> None:
        """Give the place back. Call before closing the socket: eviction shuts the socket down
        under the same lock, so it can never touch a descriptor the OS has already reused."""
        self._admission._release(self)


class Admission(object):
    def __init__(self, max_authenticated: int, max_unauthenticated: int):
        self.max_authenticated = max_authenticated
        self.max_unauthenticated = max_unauthenticated
        self._lock = threading.Lock()
        self._pending = OrderedDict()  # Ticket -> None, oldest first
        self._authenticated = 0

    def admit(self, sock, peer: str):
        """(ticket for the new connection, the ticket it displaced or None). Never refuses."""
        ticket = Ticket(self, sock, peer)
        displaced = None
        with self._lock:
            if len(self._pending) >= self.max_unauthenticated:
                displaced, _ = self._pending.popitem(last=False)
                displaced.state = EVICTED
                displaced.evicted.set()
                try:
                    # Wakes its thread's recv() with EOF; the thread closes the socket itself.
                    displaced.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self._pending[ticket] = None
        return ticket, displaced

    def counts(self):
        """(authenticated, handshaking) right now."""
        with self._lock:
            return self._authenticated, len(self._pending)

    def _promote(self, ticket) -> str:
        with self._lock:
            if ticket.state != PENDING:
                return ticket.state
            if self._authenticated >= self.max_authenticated:
                return FULL
            del self._pending[ticket]
            ticket.state = AUTHENTICATED
            self._authenticated += 1
            return PROMOTED

    def _release(self, ticket) -> None:
        with self._lock:
            if ticket.state == PENDING:
                del self._pending[ticket]
            elif ticket.state == AUTHENTICATED:
                self._authenticated -= 1
            ticket.state = CLOSED
