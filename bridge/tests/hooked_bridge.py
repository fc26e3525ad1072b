"""Runs the real bridge (tradeapi_bridge.__main__.main) in this process after starting a control
thread that reads JSON lines from stdin, {"hook": "_lose_terminal", "args": [-10001]} (and
"kwargs" for keyword-only hooks such as _configure), and calls
that test hook of the MetaTrader5 module first on sys.path (the stand-in: _lose_terminal,
_restore_terminal, _set_delay, _fail_next, _book_subscriptions, _calls, ... as its header
documents). Only names starting with "_" are hooks. Each call is acknowledged on stderr as
{"event": "hook_done", "hook": ..., "result": ...}. Tests need this to change the terminal's
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
        if not cmd["hook"].startswith("_"):
            raise ValueError("not a test hook: %r" % (cmd["hook"],))
        result = getattr(MetaTrader5, cmd["hook"])(*cmd.get("args", []), **cmd.get("kwargs", {}))
        log.event("hook_done", hook=cmd["hook"], result=result)


if __name__ == "__main__":
    threading.Thread(target=control, daemon=True).start()
    sys.exit(main(sys.argv[1:]))
