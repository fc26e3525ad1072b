"""last_error() codes and texts of the real package, and how the gateway's answers map onto them."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

MESSAGES: Dict[int, str] = {
    1: "Success",
    -1: "Terminal: Call failed",
    -2: "Terminal: Invalid params",
    -3: "Terminal: Out of memory",
    -4: "Terminal: Not found",
    -5: "Terminal: Incompatible versions, please install the latest version of Terminal and Python module",
    -6: "Terminal: Authorization failed",
    -7: "Terminal: Unsupported function",
    -8: "Auto-Trading using Python API disabled in Terminal",
    -10000: "IPC call failed",
    -10001: "IPC send failed",
    -10002: "IPC recv failed",
    -10003: "IPC initialize failed, MetaTrader 5 x64 not found",
    -10004: "No IPC connection",
    -10005: "IPC timeout",
}

OK = (1, "Success")


class Fail(Exception):
    """A call fails with (code, message): the function returns None/False and last_error() says why."""

    def __init__(self, code: int, message: Optional[str] = None) -> None:
        Exception.__init__(self, code, message)
        self.code = code
        self.message = MESSAGES.get(code, "Terminal: Call failed") if message is None else message


class Problem(Exception):
    """An RFC 7807 answer of the gateway."""

    def __init__(self, status: int, body: Any, headers: Optional[Mapping[str, str]] = None) -> None:
        self.status = status
        self.body: Dict[str, Any] = body if isinstance(body, dict) else {}
        kind, detail = self.body.get("type"), self.body.get("detail")
        self.type = kind if isinstance(kind, str) else ""  # a body of another shape: a bare status
        self.detail = detail if isinstance(detail, str) else ""
        self.headers: Mapping[str, str] = headers or {}
        Exception.__init__(self, "%s %s: %s" % (status, self.type, self.detail))


# problem type (without any prefix) -> last_error code
_BY_TYPE = {
    "validation-error": -2,
    "symbol-not-found": -4,
    "not-found": -4,
    "subscription-not-found": -1,
    "not-subscribed": -1,
    "symbol-not-selected": -1,
    "symbol-in-use": -1,
    "subscription-limit": -1,
    "terminal-error": -1,
    "unauthorized": -6,
    "terminal-unavailable": -10004,
    "too-many-streams": -10005,
    "too-many-event-clients": -10005,
    "rate-limit-exceeded": -10005,
    "connection-limit": -10005,
    "method-not-allowed": -7,
}


def problem_to_fail(p: Problem) -> Fail:
    """The (code, message) a call answered with problem ``p`` fails with."""
    kind = p.type.rsplit("/", 1)[-1]
    code = _BY_TYPE.get(kind)
    if code is None:
        code = -2 if p.status == 400 else -10004 if p.status == 503 else -1
    if kind == "not-found" and p.detail.startswith("no resource at"):
        code = -7  # a route this gateway does not serve (the read-only variant): unsupported
    if kind == "terminal-unavailable" and "timeout" in p.detail:
        code = -10005
    return Fail(code)
