"""Starts mt5api (the peer of bench/bigpull.ts) on a loopback port, fed by the stand-in MetaTrader5.

  bench/peer/.venv/bin/python bench/peer/serve.py --port 8200 --ticks EURUSD=bench/.cache/eurusd.npy

mt5api 1.0.6 has no rate limiter (nothing to disable) and no auth unless MT5API_SECRET_KEY is set
(it is removed here). Its log level defaults to WARNING here (mt5api's own default is INFO, which
logs every MetaTrader5 call); pass --log-level info to run it exactly as shipped.
The process runs uvicorn in-process (no reload, one worker), so its pid is the server's pid.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

STUB = Path(__file__).resolve().parent / "stub"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8200)
    parser.add_argument("--ticks", required=True, help="SYMBOL=path.npy[,SYMBOL=path.npy...]")
    parser.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"])
    args = parser.parse_args()

    # The stand-in MetaTrader5 goes first, for this process and any child it might start.
    sys.path.insert(0, str(STUB))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(STUB), os.environ.get("PYTHONPATH", "")]))
    os.environ["MT5_STUB_TICKS"] = args.ticks
    os.environ["MT5API_LOG_LEVEL"] = args.log_level  # read by mt5api at import
    os.environ.pop("MT5API_SECRET_KEY", None)
    os.environ.pop("MT5API_ROUTER_PREFIX", None)

    import MetaTrader5  # noqa: F401  (fail here, clearly, if the stub is not the one found)
    if not str(Path(MetaTrader5.__file__).resolve()).startswith(str(STUB)):
        raise SystemExit(f"a real MetaTrader5 package shadows the stub: {MetaTrader5.__file__}")

    import uvicorn

    uvicorn.run("mt5api.main:app", host=args.host, port=args.port, log_level=args.log_level, access_log=False)


if __name__ == "__main__":
    main()
