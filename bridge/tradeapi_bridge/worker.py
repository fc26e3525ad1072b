"""The one thread that calls the MetaTrader5 package. The package has one global connection and
one global last_error(), so calls are strictly serial; each caller waits with a timeout and, if it
expires, answers `timeout` while the worker finishes the call (a native call cannot be
interrupted). The queue is bounded so that a slow terminal cannot make waiting calls pile up."""
import queue
import threading

from . import errors


class _Job(object):
    __slots__ = ("fn", "done", "result", "error", "abandoned")

    def __init__(self, fn):
        self.fn = fn
        self.done = threading.Event()
        self.result = None
        self.error = None
        self.abandoned = False


class Worker(object):
    def __init__(self, queue_limit: int = 32):
        self._queue = queue.Queue(maxsize=queue_limit)
        self._thread = threading.Thread(target=self._run, name="mt5-worker", daemon=True)
        self._thread.start()

    def call(self, fn, timeout: float):
        """fn() on the worker thread; its result, or its exception re-raised here."""
        job = _Job(fn)
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            raise errors.BridgeError(errors.UNAVAILABLE, errors.RES_E_INTERNAL_FAIL,
                                     "bridge busy: %d terminal calls already waiting" % self._queue.maxsize)
        if not job.done.wait(timeout):
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
            if job.abandoned:
                continue
            try:
                job.result = job.fn()
            except BaseException as e:  # noqa: B902 - anything the package raises goes to the caller
                job.error = e if isinstance(e, Exception) else RuntimeError(repr(e))
            job.done.set()
