"""The terminal session: the package, its single worker, the connection state and the depth
subscriptions. Notices terminal loss (IPC codes, terminal_info() None) and re-initializes with
backoff on its own thread, re-adding the depth subscriptions once the terminal is back."""
import threading
import time

from . import errors, log


class Session(object):
    def __init__(self, mt5, init_kwargs: dict, worker, call_timeout: float, probe_interval: float,
                 backoff_min: float, backoff_max: float):
        self.mt5 = mt5
        self._init_kwargs = init_kwargs  # holds the password: never logged, never in a repr
        self.worker = worker
        self.call_timeout = call_timeout
        self._probe_interval = probe_interval
        self._backoff_min = backoff_min
        self._backoff_max = backoff_max
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self.connected = False
        self.since = time.time()
        self.last_error = None  # {code, message} of the failure that explains the state
        self.reconnects = 0
        self._ever_connected = False
        self._books = set()  # symbols with market_book_add in force, re-added after a reconnect
        self.maxbars = None  # terminal_info().maxbars: the package refuses rates requests of that many bars
        # symbol -> {field: point-grid candidates} for series columns (ops._symbol_scales); used and
        # changed on the worker only, emptied at every (re)initialize.
        self.scales_cache = {}
        # last_error() as it stood after the latest client call: the package has one global
        # last_error(), which the bridge's own liveness probe (terminal_info()) would reset to
        # "Success" between a client's failed call and its question "what went wrong?".
        self._client_last_error = None

    # ------------------------------------------------------------------ calls

    def within(self, timeout: float):
        """This session with a shorter call timeout (a client's REQUEST `timeout_ms`, §5): a call
        whose client has given up is then skipped by the worker instead of run for nobody."""
        return _Bounded(self, min(self.call_timeout, timeout))

    def call(self, fn, timeout: float = None, bulk: bool = False):
        """fn(mt5) on the worker, with the call timeout. fn raises BridgeError (usually via
        fail()) on a package failure; IPC failures also mark the terminal down. `bulk`: a series'
        window, which lets waiting interactive calls go first (worker.py)."""
        if not self.connected:
            raise errors.BridgeError(errors.UNAVAILABLE, errors.RES_E_INTERNAL_FAIL_CONNECT,
                                     "terminal not connected: %s" % self._last_error_text())

        def job():
            restated = None
            try:
                return fn(self.mt5)
            except errors.BridgeError as e:
                if e.code in errors.IPC_CODES:
                    self._mark_down(e.code, e.message)
                if e.last_error is not None:
                    restated = tuple(e.last_error)
                raise
            finally:
                if restated is not None:
                    self._client_last_error = restated
                else:
                    self._remember_last_error()

        return self.worker.call(job, self.call_timeout if timeout is None else timeout, bulk)

    def _remember_last_error(self):
        try:
            self._client_last_error = tuple(self.mt5.last_error())
        except Exception:  # a package that cannot answer keeps the previous value
            pass

    def client_last_error(self, timeout: float = None):
        """last_error() of the latest client call (not of the bridge's probes); the package's own
        before any client call. Answers while the terminal is down, as the package does."""
        remembered = self._client_last_error
        if remembered is not None:
            return remembered
        return self.worker.call(lambda: tuple(self.mt5.last_error()),
                                self.call_timeout if timeout is None else timeout)

    def fail(self, what: str = ""):
        """Raise the package's last_error() as a BridgeError (called on the worker thread)."""
        raise errors.from_last_error(self.mt5.last_error())

    def status(self) -> dict:
        with self._lock:
            return {"terminal_connected": self.connected, "since": round(self.since, 3),
                    "last_error": self.last_error, "reconnects": self.reconnects}

    # ------------------------------------------------------------------ depth subscriptions

    def book_added(self, symbol: str):
        with self._lock:
            self._books.add(symbol)

    def book_released(self, symbol: str):
        with self._lock:
            self._books.discard(symbol)

    def book_subscribed(self, symbol: str) -> bool:
        with self._lock:
            return symbol in self._books

    # ------------------------------------------------------------------ state

    def _last_error_text(self) -> str:
        le = self.last_error
        return "(%d, %r)" % (le["code"], le["message"]) if le else "not initialized yet"

    def _mark_down(self, code: int, message: str):
        with self._lock:
            if not self.connected:
                self.last_error = {"code": code, "message": message}
                return
            self.connected = False
            self.since = time.time()
            self.last_error = {"code": code, "message": message}
        log.event("terminal_lost", code=code, message=message)
        self._wake.set()

    def _mark_up(self):
        with self._lock:
            self.connected = True
            self.since = time.time()
            if self._ever_connected:
                self.reconnects += 1
            self._ever_connected = True
            books = sorted(self._books)
            reconnects = self.reconnects
        log.event("terminal_connected", reconnects=reconnects, books=books)

    # ------------------------------------------------------------------ supervisor

    def start(self):
        threading.Thread(target=self._supervise, name="mt5-supervisor", daemon=True).start()

    def _initialize_job(self):
        """On the worker: (re)initialize and re-add the depth subscriptions. True if up."""
        mt5 = self.mt5
        try:
            mt5.shutdown()  # harmless when not connected; frees a half-dead IPC channel
        except Exception:
            pass
        # No `initialize(**{})` when nothing is configured: the real extension is known to refuse
        # an empty keyword mapping (order_send(req, **{})); a plain call is what it documents.
        ok = mt5.initialize(**self._init_kwargs) if self._init_kwargs else mt5.initialize()
        if not ok:
            le = errors.from_last_error(mt5.last_error())
            return False, le.code, le.message
        self.scales_cache = {}
        info = mt5.terminal_info()
        self.maxbars = int(info.maxbars) if info is not None and info.maxbars > 0 else None
        with self._lock:
            books = sorted(self._books)
        for symbol in books:
            if not mt5.market_book_add(symbol):
                # Keep the symbol: a later market_book_get reports the package's own error.
                log.event("book_readd_failed", symbol=symbol, code=mt5.last_error()[0],
                          message=str(mt5.last_error()[1]))
        return True, 1, "Success"

    def _probe_job(self):
        info = self.mt5.terminal_info()
        if info is None:
            le = errors.from_last_error(self.mt5.last_error())
            return False, le.code, le.message
        return True, 1, "Success"

    def _supervise(self):
        backoff = self._backoff_min
        while True:
            if self.connected:
                self._wake.wait(self._probe_interval)
                self._wake.clear()
                if not self.connected:
                    continue
                try:
                    ok, code, message = self.worker.call(self._probe_job, self.call_timeout)
                except errors.BridgeError:
                    continue  # worker busy or slow: that is not terminal loss
                if not ok:
                    self._mark_down(code, message)
                continue
            try:
                ok, code, message = self.worker.call(self._initialize_job, max(self.call_timeout, 60.0))
            except errors.BridgeError as e:
                ok, code, message = False, e.code, e.message
            except Exception as e:  # the package raised: report and keep trying
                ok, code, message = False, errors.RES_E_FAIL, "initialize raised %s" % type(e).__name__
            if ok:
                backoff = self._backoff_min
                self._mark_up()
                continue
            with self._lock:
                self.last_error = {"code": code, "message": message}
            log.event("initialize_failed", code=code, message=message, retry_in=round(backoff, 3))
            time.sleep(backoff)
            backoff = min(backoff * 2, self._backoff_max)


class _Bounded(object):
    """A session whose calls wait at most `timeout`; everything else is the session's."""

    def __init__(self, session: Session, timeout: float):
        self._session = session
        self.call_timeout = timeout

    def call(self, fn, bulk: bool = False):
        return self._session.call(fn, self.call_timeout, bulk)

    def client_last_error(self):
        return self._session.client_last_error(self.call_timeout)

    def __getattr__(self, name):
        return getattr(self._session, name)
