"""Test harness: real bridge processes on loopback, the MetaTrader5 module they import, and the
data it serves. The module is the stand-in (bridge/tests/stand_in); TRADEAPI_TEST_MT5_DIR points
at another directory holding a MetaTrader5 module with the same test hooks (see the stand-in's
header: _reset, _configure, _lose_terminal, _fail_next, _book_subscriptions, _calls, ...)."""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BRIDGE_DIR = os.path.dirname(HERE)
sys.path.insert(0, BRIDGE_DIR)


def mt5_dir():
    return os.environ.get("TRADEAPI_TEST_MT5_DIR") or os.path.join(HERE, "stand_in")


SECRET = "test-secret-3f9a7c1e5b2d4086"  # what the bridge and the good client share
PASSWORD = "hunter2-password-never-logged"
BASE_MSC = 1704189600000  # 2024-01-02 10:00:00 server time


def make_ticks(n=4000):
    """Ticks with many equal time_msc: groups of 3 per millisecond, and one run of 40 ticks in one
    millisecond (longer than the tests' window), so window edges fall inside equal stamps."""
    step = np.arange(n) // 3 * 7
    if n > 1040:
        step[1000:1040] = step[1000]
        step[1040:] += 1
    t = np.zeros(n, dtype=[("time", "<i8"), ("bid", "<f8"), ("ask", "<f8"), ("last", "<f8"), ("volume", "<u8"),
                           ("time_msc", "<i8"), ("flags", "<u4"), ("volume_real", "<f8")])
    t["time_msc"] = BASE_MSC + step
    t["time"] = t["time_msc"] // 1000
    t["bid"] = 1.1 + np.arange(n) * 1e-6
    t["ask"] = t["bid"] + 1e-4
    t["flags"] = np.where(np.arange(n) % 4 == 0, 6, 2)
    return t


# TICK_SYMBOL's ticks come from a .npy file (the stand-in's MT5_STUB_TICKS, given to the bridge
# processes only: the stand-in's own tests in this process keep its generated data); every other
# symbol, the bars and the account are the stand-in's seeded data.
TICK_SYMBOL = "EURUSD"
_data_dir = tempfile.mkdtemp(prefix="tradeapi-bridge-test-")
TICKS = make_ticks()
TICK_FILES = {TICK_SYMBOL: os.path.join(_data_dir, TICK_SYMBOL + ".npy")}
np.save(TICK_FILES[TICK_SYMBOL], TICKS)
TICKS_ENV = ",".join("%s=%s" % pair for pair in sorted(TICK_FILES.items()))


def module():
    """The MetaTrader5 module in the test process, reset and configured as every bridge process's
    module is at start (same settings, seed and tick files), and initialized: the reference
    answers. Call it again before comparing if another test may have changed its state."""
    if mt5_dir() not in sys.path:
        sys.path.insert(0, mt5_dir())
    import MetaTrader5
    MetaTrader5._reset()
    MetaTrader5._configure(ticks=dict(TICK_FILES))
    if not MetaTrader5.initialize():
        raise RuntimeError("MetaTrader5.initialize() failed: %r" % (MetaTrader5.last_error(),))
    return MetaTrader5


_account = []


def account():
    """(login, server) of the module's account: what the bridge is given to initialize with."""
    if not _account:
        info = module().account_info()
        _account.append((info.login, info.server))
    return _account[0]


def env(secret=SECRET, **extra):
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([BRIDGE_DIR, mt5_dir()])
    e["MT5_STUB_TICKS"] = TICKS_ENV
    e["MT5_PASSWORD"] = PASSWORD
    e["MT5_LOGIN"] = str(account()[0])
    e["MT5_SERVER"] = account()[1]
    if secret is None:
        e.pop("TRADEAPI_BRIDGE_SECRET", None)
    else:
        e["TRADEAPI_BRIDGE_SECRET"] = secret
    e.update(extra)
    return e


class Bridge(object):
    """A bridge process: `python -m tradeapi_bridge` (hooked=False) or the hooked launcher."""

    def __init__(self, *args, hooked=True, secret=SECRET):
        cmd = [sys.executable]
        cmd += [os.path.join(HERE, "hooked_bridge.py")] if hooked else ["-m", "tradeapi_bridge"]
        cmd += ["--listen", "127.0.0.1:0"] + list(args)
        # stdout to /dev/null: a bridge left behind can never hold the test runner's output open.
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, env=env(secret), cwd=BRIDGE_DIR, text=True,
                                     bufsize=1)
        self.lines = []
        self.events = []
        self._cond = threading.Condition()
        self._pumping = threading.Thread(target=self._pump, daemon=True)
        self._pumping.start()
        try:
            self.port = self.wait_event("listening", timeout=15)["port"]
        except BaseException:
            self.stop()
            raise

    def _pump(self):
        for line in self.proc.stderr:
            with self._cond:
                self.lines.append(line)
                try:
                    self.events.append(json.loads(line))
                except ValueError:
                    pass
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_event(self, name, pred=lambda e: True, timeout=10.0, start=0):
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for e in self.events[start:]:
                    if e.get("event") == name and pred(e):
                        return e
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None and not self._more():
                    raise AssertionError("no %r event; log:\n%s" % (name, "".join(self.lines[-30:])))
                self._cond.wait(min(left, 0.2))

    def _more(self):
        return False

    def hook(self, name, *args, **kwargs):
        mark = len(self.events)
        self.proc.stdin.write(json.dumps({"hook": name, "args": list(args), "kwargs": kwargs}) + "\n")
        self.proc.stdin.flush()
        return self.wait_event("hook_done", lambda e: e["hook"] == name, start=mark)["result"]

    def log_text(self):
        with self._cond:
            return "".join(self.lines)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        # The pump reads stderr to its EOF (the process is gone): closing the pipe under it would
        # raise in that thread.
        self._pumping.join(5)
        for f in (self.proc.stdin, self.proc.stderr):
            try:
                f.close()
            except Exception:
                pass


def connect(bridge, secret=SECRET, timeout=30.0, compression="zstd"):
    from tradeapi_bridge.client import Client
    return Client.connect("127.0.0.1", bridge.port, secret.encode(), timeout=timeout, compression_choice=compression)


def wait_until(fn, timeout=10.0, interval=0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met within %gs (last: %r)" % (timeout, value))
        time.sleep(interval)
