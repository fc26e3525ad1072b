"""to_pandas: a series array or a tuple of records as a DataFrame, times as UTC datetime64[ns].

The values are whatever the call returned: server time by default (the broker's wall clock
written as if it were UTC, as the real package gives it), true UTC after initialize(utc=True)."""
from __future__ import annotations

from typing import Any

import numpy as np

_SECONDS = ("time", "time_setup", "time_done", "time_update", "time_expiration", "start_time", "expiration_time",
            "expiration")


def to_pandas(result: Any, times: bool = True) -> Any:
    """A DataFrame of a copy_* array, a tuple of records (symbols_get, positions_get, ...) or one
    record. ``time*`` (seconds) and ``*_msc`` (milliseconds) become ``datetime64[ns, UTC]``
    columns (0, "not set", becomes NaT) unless ``times=False``."""
    import pandas as pd
    if result is None:
        raise ValueError("no result (the call failed: see last_error())")
    if isinstance(result, np.ndarray):
        frame = pd.DataFrame(result)
    elif isinstance(result, tuple) and hasattr(result, "_asdict"):
        frame = pd.DataFrame([result._asdict()])
    else:
        rows = [r._asdict() for r in result]
        frame = pd.DataFrame(rows)
    if times:
        for name in frame.columns:
            if name.endswith("_msc"):
                scale = 1000000
            elif name in _SECONDS:
                scale = 1000000000
            else:
                continue
            # Built as datetime64[ns] in numpy, then marked UTC: pd.to_datetime(unit=...) gives
            # microseconds from pandas 3 on, and the resolution promised here is nanoseconds.
            values = frame[name].to_numpy().astype(np.int64)
            stamps = (values * scale).view("datetime64[ns]")
            stamps[values == 0] = np.datetime64("NaT")
            frame[name] = pd.Series(stamps, index=frame.index).dt.tz_localize("UTC")
    return frame
