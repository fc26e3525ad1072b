"""Configuration from the command line and the environment. Invalid configuration stops the
bridge at start with a message that says what to fix. The secret and the password are kept in
fields no repr or log line ever shows."""
import argparse
import os

from . import auth, compression
from .frames import MAX_PAYLOAD


class ConfigError(Exception):
    pass


class Config(object):
    def __init__(self):
        self.host = "127.0.0.1"
        self.port = 18812
        self.secret = b""
        self.init_kwargs = {}
        self.call_timeout = 30.0
        self.window_rows = 100000
        self.window_bars = 50000
        self.chunk_bytes = 1 << 20
        self.max_payload = MAX_PAYLOAD
        self.max_connections = 64
        self.max_unauthenticated = 16
        self.queue_limit = 32
        self.probe_interval = 5.0
        self.backoff_min = 0.5
        self.backoff_max = 30.0
        self.handshake_timeout = 10.0
        self.auth_fail_delay = 1.0
        self.credit_timeout = 60.0
        # What the bridge offers at the handshake (§4): zstd at this level when the zstandard
        # package is there (compression.py), and always none; the client chooses.
        self.compression = "auto"
        self.zstd_level = compression.DEFAULT_ZSTD_LEVEL

    def __repr__(self):
        return "Config(host=%r, port=%r, <secret hidden>)" % (self.host, self.port)

    def describe(self) -> dict:
        """What the start-up log line may show: never the secret or the password."""
        shown = {k: v for k, v in self.init_kwargs.items() if k != "password"}
        if "password" in self.init_kwargs:
            shown["password"] = "<set>"
        return {"listen": "%s:%d" % (self.host, self.port), "initialize": shown,
                "call_timeout": self.call_timeout, "window_rows": self.window_rows, "window_bars": self.window_bars,
                "chunk_bytes": self.chunk_bytes, "max_connections": self.max_connections,
                "max_unauthenticated": self.max_unauthenticated, "handshake_timeout": self.handshake_timeout,
                "compression": compression.offered(self.compression, self.zstd_level)}


def _positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a number" % text)
        if value <= 0:
            raise argparse.ArgumentTypeError("must be > 0")
        return value
    return parse


def parser():
    p = argparse.ArgumentParser(prog="python -m tradeapi_bridge",
                                description="Serve a MetaTrader 5 terminal to tradeapi (docs/bridge-protocol.md).",
                                epilog="Environment: TRADEAPI_BRIDGE_SECRET (required, >= 16 bytes), "
                                       "MT5_PATH, MT5_LOGIN, MT5_PASSWORD, MT5_SERVER, TRADEAPI_BRIDGE_COMPRESSION.")
    p.add_argument("--listen", default="127.0.0.1:18812", metavar="HOST:PORT",
                   help="address to listen on (default 127.0.0.1:18812; port 0 picks a free one)")
    p.add_argument("--portable", action="store_true", help="start the terminal in portable mode")
    p.add_argument("--call-timeout", type=_positive(float), default=30.0, metavar="S",
                   help="seconds a terminal call may take before its client gets a timeout error")
    p.add_argument("--window-rows", type=_positive(int), default=100000, metavar="N",
                   help="rows per terminal call when paging a series")
    p.add_argument("--window-bars", type=_positive(int), default=50000, metavar="N",
                   help="bars per terminal call when paging copy_rates_range (lowered to the terminal's maxbars - 1 when larger)")
    p.add_argument("--chunk-bytes", type=_positive(int), default=1 << 20, metavar="B",
                   help="largest SERIES_CHUNK payload (whole rows)")
    p.add_argument("--max-connections", type=_positive(int), default=64, metavar="N",
                   help="authenticated connections served at once; one more is refused after its handshake")
    # Apart from --max-connections so that peers without the secret cannot keep the gateway out
    # (admission.py): when all are taken, a new connection displaces the oldest handshake.
    p.add_argument("--max-unauthenticated", type=_positive(int), default=16, metavar="N",
                   help="connections that may be handshaking at once (default 16); a new one closes the oldest")
    p.add_argument("--handshake-timeout", type=_positive(float), default=10.0, metavar="S",
                   help="seconds a new connection has to complete the handshake (default 10)")
    p.add_argument("--queue-limit", type=_positive(int), default=32,
                   help="terminal calls that may wait for the worker before new ones are refused")
    p.add_argument("--probe-interval", type=_positive(float), default=5.0, metavar="S",
                   help="seconds between terminal_info() liveness probes")
    p.add_argument("--reconnect-min", type=_positive(float), default=0.5, metavar="S")
    p.add_argument("--reconnect-max", type=_positive(float), default=30.0, metavar="S")
    p.add_argument("--auth-fail-delay", type=float, default=1.0, metavar="S", help=argparse.SUPPRESS)
    p.add_argument("--compression", default=None, metavar="auto|zstd[:LEVEL]|none",
                   help="series compression offered to clients (default: TRADEAPI_BRIDGE_COMPRESSION, else auto: "
                        "zstd level %d when the zstandard package is installed, and none; the client chooses; "
                        "zstd[:LEVEL] insists on the package, LEVEL -7..22; none offers none)" % compression.DEFAULT_ZSTD_LEVEL)
    p.add_argument("--credit-timeout", type=_positive(float), default=60.0, metavar="S",
                   help="seconds a series waits for SERIES_NEXT before it is abandoned")
    return p


def load(argv, environ=None) -> Config:
    environ = os.environ if environ is None else environ
    ns = parser().parse_args(argv)
    c = Config()
    host, sep, port = ns.listen.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ConfigError("--listen %r: expected HOST:PORT, e.g. 127.0.0.1:18812" % ns.listen)
    c.host, c.port = host.strip("[]"), int(port)

    secret = environ.get("TRADEAPI_BRIDGE_SECRET", "")
    if not secret:
        raise ConfigError("TRADEAPI_BRIDGE_SECRET is not set: the bridge authenticates every client with "
                          "this shared secret and will not start without it")
    c.secret = secret.encode("utf-8")
    if len(c.secret) < auth.MIN_SECRET_BYTES:
        raise ConfigError("TRADEAPI_BRIDGE_SECRET is too short: use at least %d bytes (e.g. `openssl rand -hex 32`)"
                          % auth.MIN_SECRET_BYTES)

    kw = {}
    if environ.get("MT5_PATH"):
        kw["path"] = environ["MT5_PATH"]
    if environ.get("MT5_LOGIN"):
        if not environ["MT5_LOGIN"].strip().isdigit():
            raise ConfigError("MT5_LOGIN must be the account number (digits only)")
        kw["login"] = int(environ["MT5_LOGIN"])
    if environ.get("MT5_PASSWORD"):
        kw["password"] = environ["MT5_PASSWORD"]
    if environ.get("MT5_SERVER"):
        kw["server"] = environ["MT5_SERVER"]
    if ns.portable:
        kw["portable"] = True
    c.init_kwargs = kw

    c.call_timeout = ns.call_timeout
    c.window_rows = ns.window_rows
    c.window_bars = ns.window_bars
    c.chunk_bytes = ns.chunk_bytes
    if c.chunk_bytes > c.max_payload:
        raise ConfigError("--chunk-bytes may not exceed the %d-byte frame limit" % c.max_payload)
    c.max_connections = ns.max_connections
    c.max_unauthenticated = ns.max_unauthenticated
    c.handshake_timeout = ns.handshake_timeout
    c.queue_limit = ns.queue_limit
    c.probe_interval = ns.probe_interval
    c.backoff_min, c.backoff_max = ns.reconnect_min, max(ns.reconnect_min, ns.reconnect_max)
    c.auth_fail_delay = max(0.0, ns.auth_fail_delay)
    c.credit_timeout = ns.credit_timeout
    setting = ns.compression if ns.compression is not None else environ.get("TRADEAPI_BRIDGE_COMPRESSION", "auto")
    source = "--compression" if ns.compression is not None else "TRADEAPI_BRIDGE_COMPRESSION"
    try:
        c.compression, c.zstd_level = compression.parse(setting)
    except ValueError as e:
        raise ConfigError("%s=%r: %s" % (source, setting, e))
    return c
