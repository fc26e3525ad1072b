"""Series (ticks and bars) fetched from the terminal in bounded windows, so that neither the
bridge nor the terminal holds a whole long range at once. Each generator yields numpy structured
arrays in ascending time; together they hold exactly the rows one big package call would return.

`fetch` callables run one package call on the worker (through Session.call) and return an array.
Package quirks handled here (issue 10, mt5-reference §3):
  * dates reach the package as whole seconds (ops.package_date_msc), so a reply starts at the
    cursor's second, before the cursor itself: those rows are dropped, and the next request asks
    for as many more rows as the last reply held between that second and the cursor, so that each
    window costs one package call;
  * rows before date_from in a reply: dropped;
  * window edges: the next window starts AT the last time_msc sent, because several ticks can
    share one millisecond; the rows of that millisecond already sent are skipped;
  * partial replies (fewer rows than asked while the terminal synchronises): not taken as the
    end; the end is a short reply with nothing new, or a row past date_to. A full reply with
    nothing new (all before date_from or already sent) is retried with a larger count.
"""
import numpy as np

# Canonical dtypes (mt5-reference §3.1, §3.2): used to describe an empty series.
RATE_DTYPE = np.dtype([("time", "<i8"), ("open", "<f8"), ("high", "<f8"), ("low", "<f8"),
                       ("close", "<f8"), ("tick_volume", "<u8"), ("spread", "<i4"),
                       ("real_volume", "<u8")])
TICK_DTYPE = np.dtype([("time", "<i8"), ("bid", "<f8"), ("ask", "<f8"), ("last", "<f8"),
                       ("volume", "<u8"), ("time_msc", "<i8"), ("flags", "<u4"),
                       ("volume_real", "<f8")])

INT64_MAX = 2 ** 63 - 1

# Seconds per bar for time-windowed rates; MN1 is given its longest month so that a window of
# N bars always covers at most N bars.
TIMEFRAME_SECONDS = {
    1: 60, 2: 120, 3: 180, 4: 240, 5: 300, 6: 360, 10: 600, 12: 720, 15: 900, 20: 1200, 30: 1800,
    16385: 3600, 16386: 7200, 16387: 10800, 16388: 14400, 16390: 21600, 16392: 28800,
    16396: 43200, 16408: 86400, 32769: 604800, 49153: 31 * 86400,
}


def _ticks_windows(fetch, date_from_msc, date_to_msc, limit, window_rows, resolution_ms):
    cursor = date_from_msc
    sent_at_cursor = 0  # rows with time_msc == cursor already yielded
    lead = 0  # rows the package will return before the cursor (from its whole second), if known
    remaining = limit
    extra = 0  # grows only while full replies hold nothing new (early rows, a long edge)
    while remaining > 0:
        step = min(window_rows, remaining)
        want = step + lead + sent_at_cursor + extra
        arr = fetch(cursor, want)
        # One contiguous copy of the time column per window: np.searchsorted on the strided field of
        # a structured array copies the whole column on every call (six calls a window).
        t = np.ascontiguousarray(arr["time_msc"])
        first = int(np.searchsorted(t, cursor, side="left"))           # quirk: rows before date_from
        at_cursor = int(np.searchsorted(t, cursor, side="right")) - first
        start = first + min(sent_at_cursor, at_cursor)                  # skip the edge already sent
        end = int(np.searchsorted(t, date_to_msc, side="right"))
        end = min(end, start + step)
        new = arr[start:end]
        if len(new) == 0:
            if len(arr) < want or (end < len(arr) and int(t[end]) > date_to_msc):
                return  # a short reply with nothing new: the end of the data
            extra = max(2 * extra, window_rows)  # a full reply of old rows: ask for more
            continue
        extra = 0
        yield new
        remaining -= len(new)
        new_t = t[start:end]
        last = int(new_t[-1])
        n_last = len(new) - int(np.searchsorted(new_t, last, side="left"))
        sent_at_cursor = sent_at_cursor + n_last if last == cursor else n_last
        cursor = last
        # The next reply starts at the cursor's whole second (resolution_ms); this reply, which
        # started there or earlier, holds every row between that instant and the cursor.
        lead = int(np.searchsorted(t, cursor, side="left")
                   - np.searchsorted(t, cursor - cursor % resolution_ms, side="left"))
        if end < len(arr) and int(t[end]) > date_to_msc:
            return  # the reply went past date_to: nothing more in range


def ticks_range(fetch, date_from_msc, date_to_msc, window_rows, resolution_ms=1):
    """copy_ticks_range: from <= time_msc <= to. fetch(cursor_msc, count) wraps copy_ticks_from
    and returns rows from the cursor rounded down to resolution_ms (1000 for the real package)."""
    if date_to_msc < date_from_msc:
        return iter(())
    return _ticks_windows(fetch, date_from_msc, date_to_msc, INT64_MAX, window_rows, resolution_ms)


def ticks_from(fetch, date_from_msc, count, window_rows, resolution_ms=1):
    """copy_ticks_from: up to count ticks at or after date_from."""
    return _ticks_windows(fetch, date_from_msc, INT64_MAX, count, window_rows, resolution_ms)


def rates_range(fetch, timeframe, date_from, date_to, window_rows):
    """copy_rates_range in time windows of at most window_rows bars: [a, b] inclusive, then
    b + 1 ...; bars have unique open times, so windows neither overlap nor miss one.
    fetch(a, b) wraps copy_rates_range and returns None for a window with no history (the package
    fails a range wholly outside history; for one window of a longer range that is just empty)."""
    span = TIMEFRAME_SECONDS[timeframe] * window_rows
    a = date_from
    while a <= date_to:
        b = min(a + span - 1, date_to)
        arr = fetch(a, b)
        if arr is not None and len(arr):
            t = np.ascontiguousarray(arr["time"])
            new = arr[int(np.searchsorted(t, a, side="left")):int(np.searchsorted(t, b, side="right"))]
            if len(new):
                yield new
        a = b + 1


def one_call(fetch):
    """copy_rates_from / copy_rates_from_pos: one package call. Their size is bounded by the
    terminal's maxbars (larger counts fail in the package itself), so one array is bounded too;
    it is still sent in chunks."""
    yield fetch()
