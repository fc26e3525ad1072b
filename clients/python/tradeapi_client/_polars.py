"""to_polars: a series array or records as a polars DataFrame, times as UTC Datetime columns.

As ``to_pandas``: the values are whatever the call returned (server time by default, true UTC after
``initialize(utc=True)``), only typed as instants. Needs polars (``pip install tradeapi-client[polars]``)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List

import numpy as np

from ._pandas import _SECONDS

if TYPE_CHECKING:
    import polars as pl


def _row(record: Any) -> Dict[str, Any]:
    """A record as a dict; a nested record (OrderCheckResult.request) as a dict too (a struct column)."""
    return dict((k, _row(v) if hasattr(v, "_asdict") else v) for k, v in record._asdict().items())


def to_polars(result: Any, times: bool = True) -> pl.DataFrame:
    """A DataFrame of a copy_* array, a tuple of records (symbols_get, positions_get, ...) or one
    record. ``time*`` (seconds) become ``Datetime('ms', 'UTC')`` columns, ``*_msc`` (milliseconds)
    too; 0 ("not set") becomes null. ``times=False`` keeps the integers."""
    import polars as pl
    if result is None:
        raise ValueError("no result (the call failed: see last_error())")
    if isinstance(result, np.ndarray):
        frame = pl.DataFrame(dict((name, result[name]) for name in result.dtype.names or ()))
    elif isinstance(result, tuple) and hasattr(result, "_asdict"):
        frame = pl.DataFrame([_row(result)])
    else:
        rows: List[Dict[str, Any]] = [_row(r) for r in result]
        frame = pl.DataFrame(rows)
    if not times:
        return frame
    stamps = []
    for name in frame.columns:
        if name.endswith("_msc"):
            ms = pl.col(name).cast(pl.Int64)
        elif name in _SECONDS:
            ms = pl.col(name).cast(pl.Int64) * 1000
        else:
            continue
        stamps.append(pl.when(pl.col(name) == 0).then(None).otherwise(ms).cast(pl.Datetime("ms"))
                      .dt.replace_time_zone("UTC").alias(name))
    return frame.with_columns(stamps) if stamps else frame
