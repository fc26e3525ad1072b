"""python -m tradeapi_bridge --listen 127.0.0.1:18812 [--portable]"""
import sys

from . import __version__, config, log


def main(argv=None) -> int:
    try:
        cfg = config.load(sys.argv[1:] if argv is None else argv)
    except config.ConfigError as e:
        sys.stderr.write("tradeapi-bridge: %s\n" % e)
        return 2
    try:
        import MetaTrader5 as mt5  # whichever comes first on sys.path: the real package or a stand-in
    except ImportError as e:
        sys.stderr.write("tradeapi-bridge: cannot import MetaTrader5 (%s); install it with "
                         "`pip install MetaTrader5` in this Python (Windows or Wine)\n" % e)
        return 2

    from .connection import Settings
    from .server import serve
    from .session import Session
    from .worker import Worker

    log.event("starting", bridge=__version__, package=getattr(mt5, "__version__", "?"),
              module=getattr(mt5, "__file__", "?"), **cfg.describe())
    worker = Worker(cfg.queue_limit)
    session = Session(mt5, cfg.init_kwargs, worker, cfg.call_timeout, cfg.probe_interval,
                      cfg.backoff_min, cfg.backoff_max)
    session.start()  # first initialize() runs there: the bridge listens even while it fails
    settings = Settings(cfg.secret, cfg.max_payload, cfg.chunk_bytes, cfg.window_rows, cfg.window_bars,
                        cfg.handshake_timeout, cfg.auth_fail_delay, cfg.credit_timeout, cfg.compression,
                        cfg.zstd_level)
    try:
        serve(cfg.host, cfg.port, session, settings, cfg.max_connections, cfg.max_unauthenticated)
    except OSError as e:
        sys.stderr.write("tradeapi-bridge: cannot listen on %s:%d: %s\n" % (cfg.host, cfg.port, e))
        return 1
    except KeyboardInterrupt:
        log.event("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
