"""Errors as they cross the wire: {kind, code, message} (docs/bridge-protocol.md §6).

`kind` is one of the addon's TerminalError kinds (binding/terminal/errors.h) or one of the few
protocol-level kinds; `code` is the package's last_error() code (mt5-reference §5.9)."""

# The addon's ErrorKind names.
CALL_FAILED = "call_failed"
INVALID_PARAMS = "invalid_params"
NOT_FOUND = "not_found"
NOT_SUBSCRIBED = "not_subscribed"
NOT_SELECTED = "not_selected"
UNAVAILABLE = "unavailable"
TIMEOUT = "timeout"
# Protocol-level kinds (the connection, not the terminal).
AUTH_FAILED = "auth_failed"
PROTOCOL = "protocol"
CANCELLED = "cancelled"

RES_S_OK = 1
RES_E_FAIL = -1
RES_E_INVALID_PARAMS = -2
RES_E_NOT_FOUND = -4
RES_E_AUTH_FAILED = -6
RES_E_INTERNAL_FAIL = -10000
RES_E_INTERNAL_FAIL_TIMEOUT = -10005
RES_E_INTERNAL_FAIL_CONNECT = -10004
# -10001..-10005 mean the terminal is gone, restarting or not logged in (mt5-reference §8).
IPC_CODES = frozenset(range(-10005, -10000))


class BridgeError(Exception):
    def __init__(self, kind: str, code: int, message: str, last_error=None):
        super().__init__(message)
        self.kind = kind
        self.code = int(code)
        self.message = message
        # The package's last_error() tuple at the failure, set when the op made further package
        # calls to explain it (which overwrote the package's one last_error()): the session then
        # remembers this as the client's last_error instead of asking the package.
        self.last_error = last_error

    def to_wire(self) -> dict:
        return {"kind": self.kind, "code": self.code, "message": self.message}


def invalid_params(message: str) -> BridgeError:
    return BridgeError(INVALID_PARAMS, RES_E_INVALID_PARAMS, message)


def kind_for_code(code: int) -> str:
    """The addon's kind for a last_error() code. not_subscribed and not_selected are decided by
    the caller (they need to know the subscriptions / Market Watch), everything else follows the
    code."""
    if code == RES_E_INVALID_PARAMS:
        return INVALID_PARAMS
    if code == RES_E_NOT_FOUND:
        return NOT_FOUND
    if code == RES_E_INTERNAL_FAIL_TIMEOUT:
        return TIMEOUT
    if code in IPC_CODES or code == RES_E_INTERNAL_FAIL:
        return UNAVAILABLE
    return CALL_FAILED


def from_last_error(last_error) -> BridgeError:
    """A BridgeError from a package last_error() tuple (code, description)."""
    try:
        code, message = int(last_error[0]), str(last_error[1])
    except (TypeError, ValueError, IndexError):
        code, message = RES_E_FAIL, "Terminal: Call failed (no last_error)"
    if code == RES_S_OK:
        # The package returned None yet says Success: report a generic failure, not "Success".
        code, message = RES_E_FAIL, "Terminal: Call failed"
    return BridgeError(kind_for_code(code), code, message)
