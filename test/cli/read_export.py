"""Reads files written by `tradeapi export` with pyarrow and prints, per file, its row count, the
schema and its first and last rows as JSON, times as the integers the JSON format carries (`time`
in seconds, `time_msc` in milliseconds), whatever the timestamp unit in the file.

Usage: read_export.py FILE... (format from the extension: .parquet, .arrow, .json)
"""
import json
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc
import pyarrow.parquet as pq


def table_of(path):
    if path.endswith(".parquet"):
        return pq.read_table(path)
    if path.endswith(".arrow"):
        with pa.OSFile(path, "rb") as f:
            return pa.ipc.open_stream(f).read_all()
    raise ValueError(path)


PER_SECOND = {"s": 1, "ms": 1000, "us": 1000000, "ns": 1000000000}


def plain(table):
    cols = {}
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_timestamp(col.type):
            per_second = PER_SECOND[col.type.unit]
            want = 1000 if name.endswith("_msc") else 1
            col = pc.divide(pc.cast(col, pa.int64()), per_second // want)
        cols[name] = col
    return pa.table(cols)


out = {}
for path in sys.argv[1:]:
    if path.endswith(".json"):
        with open(path, "rb") as f:
            rows = json.load(f)
        out[path] = {"rows": len(rows), "first": rows[0] if rows else None, "last": rows[-1] if rows else None}
        continue
    table = table_of(path)
    schema = {f.name: str(f.type) for f in table.schema}
    t = plain(table)
    n = t.num_rows
    out[path] = {
        "rows": n,
        "schema": schema,
        "first": t.slice(0, 1).to_pylist()[0] if n else None,
        "last": t.slice(n - 1, 1).to_pylist()[0] if n else None,
    }
print(json.dumps(out))
