"""The real bridge (tradeapi_bridge.__main__.main) over the MetaTrader5 stand-in made as slow as a
real terminal is in bench/store.ts's model: every call takes at least SLOW_CALL_S (default 0.002 s)
and a series comes at most SLOW_ROWS_PER_S rows a second (default 2 000 000), i.e. a call returning
n rows takes max(SLOW_CALL_S, SLOW_CALL_S + n / SLOW_ROWS_PER_S) in all. The stand-in's own
_set_delay hook only adds a fixed delay; this adds the per-row cost too.

    PYTHONPATH=bridge:bridge/tests/stand_in python bench/slow_bridge.py --listen 127.0.0.1:PORT
"""
import os
import sys
import time

import MetaTrader5

PER_CALL_S = float(os.environ.get("SLOW_CALL_S", "0.002"))
ROWS_PER_S = float(os.environ.get("SLOW_ROWS_PER_S", "2000000"))


def _slow(fn):
    def call(*args, **kwargs):
        t0 = time.perf_counter()
        result = fn(*args, **kwargs)
        rows = len(result) if result is not None and hasattr(result, "dtype") and hasattr(result, "__len__") else 0
        wait = PER_CALL_S + rows / ROWS_PER_S - (time.perf_counter() - t0)
        if wait > 0:
            time.sleep(wait)
        return result

    call.__name__ = fn.__name__
    return call


for _name in dir(MetaTrader5):
    _fn = getattr(MetaTrader5, _name)
    if not _name.startswith("_") and callable(_fn) and _name != "last_error" and not isinstance(_fn, type):
        setattr(MetaTrader5, _name, _slow(_fn))

from tradeapi_bridge.__main__ import main  # noqa: E402  (after the module is slowed down)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
