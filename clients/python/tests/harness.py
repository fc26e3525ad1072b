"""Real processes on loopback for the client's tests: gateways (node bin/tradeapi.js serve) in front
of the simulator or of a bridge over the MetaTrader5 stand-in (bridge/tests/harness.py)."""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_DIR = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(CLIENT_DIR))
BRIDGE_TESTS = os.path.join(ROOT, "bridge", "tests")
sys.path.insert(0, CLIENT_DIR)


def _load_bridge_harness():
    import importlib.util
    spec = importlib.util.spec_from_file_location("bridge_harness", os.path.join(BRIDGE_TESTS, "harness.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bridge_harness = _load_bridge_harness()  # bridge/tests/harness.py: bridge processes, the stand-in

# A weekday, market open: the simulator's clock starts here whatever the day (TRADEAPI_SIM_CLOCK).
SIM_CLOCK = "2026-11-25T14:00:00Z"


def _loaded_machine_slack():
    """The suite's one allowance for a loaded machine, in seconds: LOADED_MACHINE_SLACK_MS of
    test/helpers/patience.ts, read from there so that the Python tests and the tap suites share it."""
    path = os.path.join(ROOT, "test", "helpers", "patience.ts")
    with open(path, encoding="utf-8") as f:
        m = re.search(r"export const LOADED_MACHINE_SLACK_MS = ([0-9_]+);", f.read())
    if m is None:
        raise RuntimeError("LOADED_MACHINE_SLACK_MS not found in %s" % path)
    return int(m.group(1).replace("_", "")) / 1000.0


# What a loaded 2-core machine may add to a wait: the one guessed number in the client's tests.
LOADED_MACHINE_SLACK = _loaded_machine_slack()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Gateway(object):
    """node bin/tradeapi.js serve on a free loopback port, with the given environment."""

    def __init__(self, env=None, args=()):
        self.port = free_port()
        e = dict(os.environ)
        for k in list(e):
            if k.startswith("TRADEAPI_") and k not in ("TRADEAPI_ADDON",):
                del e[k]
        e.update({"TRADEAPI_PORT": str(self.port), "TRADEAPI_HOST": "127.0.0.1", "TRADEAPI_LOG_LEVEL": "WARNING"})
        e.update(env or {})
        self.log = tempfile.NamedTemporaryFile(prefix="tradeapi-gw-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(["node", os.path.join(ROOT, "bin", "tradeapi.js"), "serve"] + list(args),
                                     cwd=ROOT, env=e, stdout=self.log, stderr=subprocess.STDOUT)
        self.prefix = "/api/v1" if "--read-only" in args else (env or {}).get("TRADEAPI_ROUTER_PREFIX", "")
        self.url = "http://127.0.0.1:%d%s" % (self.port, self.prefix)
        self._wait()

    def _wait(self, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                text = self.log_text()
                self.stop()  # nothing runs; the log file is removed
                raise AssertionError("the gateway exited: %s" % text[-2000:])
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except Exception:
                pass
            time.sleep(0.1)
        text = self.log_text()  # before stop(), which removes the log
        self.stop()
        raise AssertionError("the gateway did not answer /health: %s" % text[-2000:])

    def get_json(self, path, key=None):
        req = urllib.request.Request(self.url + path, headers={"X-API-Key": key} if key else {})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read().decode())

    def log_text(self):
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()
        os.unlink(self.log.name)


class SimSession(unittest.TestCase):
    """A gateway on the simulator for the whole class; every test starts with mt5.initialize on it."""

    @classmethod
    def setUpClass(cls):
        cls.gw = sim_gateway()

    @classmethod
    def tearDownClass(cls):
        import tradeapi_client.mt5 as mt5
        mt5.shutdown()
        cls.gw.stop()

    def setUp(self):
        import tradeapi_client.mt5 as mt5
        self.assertTrue(mt5.initialize(url=self.gw.url), mt5.last_error())


def readme_python_blocks(heading=None, until="\n## "):
    """The ```python blocks of the client's README, or of its section under `heading` (a whole
    heading line, e.g. "### Title") up to the next line starting `until`."""
    with open(os.path.join(CLIENT_DIR, "README.md"), encoding="utf-8") as f:
        text = f.read()
    if heading is not None:
        text = text.split("\n%s\n" % heading, 1)[1].split(until, 1)[0]
    return re.findall(r"```python\n(.*?)```", text, re.S)


def sim_gateway(**env):
    e = {"TRADEAPI_TERMINAL": "sim", "TRADEAPI_SIM_CLOCK": SIM_CLOCK}
    e.update(env)
    return Gateway(e)


class BridgedGateway(object):
    """A hooked bridge over the stand-in (optionally at a server zone) and a gateway in front of it."""

    def __init__(self, stand_in_tz=None, gateway_tz=None):
        self.bridge = bridge_harness.Bridge("--probe-interval", "0.2", "--reconnect-min", "0.1", "--reconnect-max", "0.3",
                                            hooked=True)
        try:
            if stand_in_tz:
                self.bridge.hook("_configure", server_tz=stand_in_tz)
            env = {"TRADEAPI_TERMINAL": "tcp://127.0.0.1:%d" % self.bridge.port,
                   "TRADEAPI_BRIDGE_SECRET": bridge_harness.SECRET}
            if gateway_tz:
                env["TRADEAPI_SERVER_TZ"] = gateway_tz
            self.gateway = Gateway(env)
            deadline = time.monotonic() + 15
            while True:
                try:
                    self.gateway.get_json("/account")
                    break
                except Exception:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
        except BaseException:
            self.bridge.stop()
            raise
        self.url = self.gateway.url

    def stop(self):
        self.gateway.stop()
        self.bridge.stop()


def reference_module(server_tz=None):
    """The stand-in in this process, set up as the bridge's is (bridge/tests/harness.module())."""
    mt5 = bridge_harness.module()
    if server_tz:
        mt5._configure(server_tz=server_tz)
        if not mt5.initialize():
            raise RuntimeError("stand-in initialize failed: %r" % (mt5.last_error(),))
    return mt5
