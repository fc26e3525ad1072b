"""The one thread that calls the MetaTrader5 package. The package has one global connection and
one global last_error(), so calls are strictly serial; each caller waits with a timeout and, if it
expires, answers `timeout` while the worker finishes the call (a native call cannot be
interrupted). The queue is bounded so that a slow terminal cannot make waiting calls pile up.

The hand-off is the cheapest the standard library has, as it costs on every request (a
symbol_info_tick round trip is a few hundred microseconds): a C SimpleQueue to the worker, a plain
lock released by the worker to wake the caller (no Condition, no Event per call), and a bounded
semaphore for the bound."""
import queue
import threading

from . import errors


class _Job(object):
    __slots__ = ("fn", "done", "result", "error", "abandoned")

    def __init__(self, fn):
        self.fn = fn
        self.done = threading.Lock()
        self.done.acquire()  # released by the worker when the job has run (or been skipped)
        self.result = None
        self.error = None
        self.abandoned = False


class Worker(object):
    def __init__(self, queue_limit: int = 32):
        self.queue_limit = queue_limit
        self._queue = queue.SimpleQueue()
        self._waiting = threading.BoundedSemaphore(queue_limit)  # a place per job not yet started
        self._thread = threading.Thread(target=self._run, name="mt5-worker", daemon=True)
        self._thread.start()

    def call(self, fn, timeout: float):
        """fn() on the worker thread; its result, or its exception re-raised here."""
        job = _Job(fn)
        if not self._waiting.acquire(blocking=False):
            raise errors.BridgeError(errors.UNAVAILABLE, errors.RES_E_INTERNAL_FAIL,
                                     "bridge busy: %d terminal calls already waiting" % self.queue_limit)
        self._queue.put(job)
        # Lock.acquire refuses a negative timeout and one past TIMEOUT_MAX (Event.wait took both).
        if not job.done.acquire(timeout=min(max(timeout, 0.0), threading.TIMEOUT_MAX)):
            # If the worker has not started it yet it will skip it; if it is running it finishes.
            job.abandoned = True
            raise errors.BridgeError(errors.TIMEOUT, errors.RES_E_INTERNAL_FAIL_TIMEOUT,
                                     "bridge: terminal call did not answer within %gs" % timeout)
        if job.error is not None:
            raise job.error
        return job.result

    def _run(self):
        while True:
            job = self._queue.get()
            self._waiting.release()
            if job.abandoned:
                continue
            try:
                job.result = job.fn()
            except BaseException as e:  # noqa: B902 - anything the package raises goes to the caller
                job.error = e if isinstance(e, Exception) else RuntimeError(repr(e))
            job.done.release()
