"""Challenge-response authentication (docs/bridge-protocol.md §4). The secret never crosses the
wire: each side proves it with an HMAC-SHA256 over both nonces, labelled by direction so that one
side's proof can never be replayed as the other's."""
import hashlib
import hmac
import os

NONCE_BYTES = 32
MIN_SECRET_BYTES = 16
CLIENT_LABEL = b"tradeapi-bridge/1 client"
SERVER_LABEL = b"tradeapi-bridge/1 server"


def new_nonce() -> bytes:
    return os.urandom(NONCE_BYTES)


def client_proof(secret: bytes, server_nonce: bytes, client_nonce: bytes) -> bytes:
    return hmac.new(secret, CLIENT_LABEL + server_nonce + client_nonce, hashlib.sha256).digest()


def server_proof(secret: bytes, server_nonce: bytes, client_nonce: bytes) -> bytes:
    return hmac.new(secret, SERVER_LABEL + server_nonce + client_nonce, hashlib.sha256).digest()


def verify(expected: bytes, given: bytes) -> bool:
    return hmac.compare_digest(expected, given)


def parse_hex(value, nbytes: int):
    """Bytes from a hex string of exactly nbytes, or None."""
    if not isinstance(value, str) or len(value) != 2 * nbytes:
        return None
    try:
        return bytes.fromhex(value)
    except ValueError:
        return None
