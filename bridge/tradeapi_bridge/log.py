"""One JSON line per event on stderr. Callers pass only what may be read by anyone: the secret and
the password never reach this module (config.py keeps them out of every repr)."""
import json
import sys
import threading
import time

_lock = threading.Lock()


def event(name: str, **fields) -> None:
    record = {"t": round(time.time(), 3), "event": name}
    record.update(fields)
    line = json.dumps(record, default=str, separators=(",", ":"))
    with _lock:  # one line per event even with many connection threads
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
