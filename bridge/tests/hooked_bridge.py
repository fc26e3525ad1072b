"""Runs the real bridge (tradeapi_bridge.__main__.main) in this process after starting a control
thread that reads JSON lines from stdin, {"hook": "_test_drop_terminal", "args": []}, and calls that
hook on the MetaTrader5 module first on sys.path (the fixture or the stand-in). Each call is
acknowledged on stderr as {"event": "hook_done", ...}. Tests need this to change the terminal's
behaviour from outside the bridge process."""
import json
import sys
import threading

import MetaTrader5

from tradeapi_bridge import log
from tradeapi_bridge.__main__ import main


def control():
    for line in sys.stdin:
        if not line.strip():
            continue
        cmd = json.loads(line)
        result = getattr(MetaTrader5, cmd["hook"])(*cmd.get("args", []))
        log.event("hook_done", hook=cmd["hook"], result=result)


if __name__ == "__main__":
    threading.Thread(target=control, daemon=True).start()
    sys.exit(main(sys.argv[1:]))
