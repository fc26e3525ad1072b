"""Tick and bar series: the real package's packed dtypes, read from the gateway's packed-record
answer (``format=packed``: the rows exactly as numpy lays them out, viewed without parsing), or
from Parquet (``compression='zstd'``, needs pyarrow) or JSON (a gateway without the packed form)."""
from __future__ import annotations

import io
import json
from typing import Any

import numpy as np
import numpy.typing as npt

from ._errors import Fail

TICK_DTYPE = np.dtype([("time", "<i8"), ("bid", "<f8"), ("ask", "<f8"), ("last", "<f8"),
                       ("volume", "<u8"), ("time_msc", "<i8"), ("flags", "<u4"), ("volume_real", "<f8")])
RATE_DTYPE = np.dtype([("time", "<i8"), ("open", "<f8"), ("high", "<f8"), ("low", "<f8"),
                       ("close", "<f8"), ("tick_volume", "<u8"), ("spread", "<i4"), ("real_volume", "<u8")])
assert TICK_DTYPE.itemsize == 60 and RATE_DTYPE.itemsize == 60

DTYPES = {"ticks": TICK_DTYPE, "rates": RATE_DTYPE}
PACKED = "application/vnd.tradeapi.packed"
PARQUET = "application/parquet"


def from_json_rows(raw: bytes, dtype: np.dtype[Any]) -> npt.NDArray[np.void]:
    rows = json.loads(raw.decode("utf-8")) if raw else []
    out = np.zeros(len(rows), dtype)
    for name in dtype.names or ():
        kind = dtype[name].kind
        column = [r.get(name, 0) for r in rows]
        out[name] = np.array(column, dtype=np.float64 if kind == "f" else object).astype(dtype[name])
    return out


def from_parquet(raw: bytes, dtype: np.dtype[Any]) -> npt.NDArray[np.void]:
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - the client only asks for Parquet when pyarrow imports
        raise Fail(-1, "pyarrow is needed to read compressed series (pip install tradeapi-client[pyarrow])")
    table = pq.read_table(io.BytesIO(raw))
    out = np.empty(table.num_rows, dtype)
    for name in dtype.names or ():
        column = table.column(name)
        if str(column.type).startswith("timestamp"):
            unit = column.type.unit
            values = column.cast("int64").to_numpy()  # the instant, in the column's own unit
            scale = {"s": 1, "ms": 1000, "us": 1000000, "ns": 1000000000}[unit]
            want = 1000 if name.endswith("_msc") else 1
            values = values * want // scale if scale != want else values
            out[name] = values
        else:
            out[name] = column.to_numpy()
    return out
