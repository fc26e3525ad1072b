"""The one thread that calls the MetaTrader5 package. The package has one global connection and
one global last_error(), so calls are strictly serial; each caller waits with a timeout and, if it
expires, answers `timeout` while the worker finishes the call (a native call cannot be
interrupted). The queue is bounded so that a slow terminal cannot make waiting calls pile up.

Interactive calls go first: a series' window (`bulk`) waits in a queue of its own, taken only when
no interactive call is waiting, so a symbol_info_tick that comes during two big pulls waits for at
most the one package call already running, not for every window queued before it (issue 34; the
gateway's worker follows the same rule between its pages). A running call is never pre-empted.

The hand-off is the cheapest the standard library has, as it costs on every request (a
symbol_info_tick round trip is a few hundred microseconds): C SimpleQueues to the worker and a
semaphore counting the jobs in them, a plain lock released by the worker to wake the caller (no
Condition, no Event per call), and a bounded semaphore for the bound."""
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
        self._interactive = queue.SimpleQueue()
        self._bulk = queue.SimpleQueue()
        self._queued = threading.Semaphore(0)  # jobs in the two queues, released after each put
        self._waiting = threading.BoundedSemaphore(queue_limit)  # a place per job not yet started
        self._thread = threading.Thread(target=self._run, name="mt5-worker", daemon=True)
        self._thread.start()

    def call(self, fn, timeout: float, bulk: bool = False):
        """fn() on the worker thread; its result, or its exception re-raised here. A bulk call
        (a series' window) runs only when no interactive call is waiting."""
        job = _Job(fn)
        if not self._waiting.acquire(blocking=False):
            raise errors.BridgeError(errors.UNAVAILABLE, errors.RES_E_INTERNAL_FAIL,
                                     "bridge busy: %d terminal calls already waiting" % self.queue_limit)
        (self._bulk if bulk else self._interactive).put(job)
        self._queued.release()
        # Lock.acquire refuses a negative timeout and one past TIMEOUT_MAX (Event.wait took both).
        if not job.done.acquire(timeout=min(max(timeout, 0.0), threading.TIMEOUT_MAX)):
            # If the worker has not started it yet it will skip it; if it is running it finishes.
            job.abandoned = True
            raise errors.BridgeError(errors.TIMEOUT, errors.RES_E_INTERNAL_FAIL_TIMEOUT,
                                     "bridge: terminal call did not answer within %gs" % timeout)
        if job.error is not None:
            raise job.error
        return job.result

    def _next(self):
        # Every put is followed by a release, so after acquire() one of the queues holds a job;
        # the interactive one is looked at first.
        self._queued.acquire()
        try:
            return self._interactive.get_nowait()
        except queue.Empty:
            return self._bulk.get_nowait()

    def _run(self):
        while True:
            job = self._next()
            self._waiting.release()
            if job.abandoned:
                continue
            try:
                job.result = job.fn()
            except BaseException as e:  # noqa: B902 - anything the package raises goes to the caller
                job.error = e if isinstance(e, Exception) else RuntimeError(repr(e))
            job.done.release()
