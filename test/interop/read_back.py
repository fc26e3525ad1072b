#!/usr/bin/env python3
"""Reads a running tradeapi server's answers the way Python clients do, and checks them.

    python read_back.py http://127.0.0.1:PORT [--doc docs/clients.md]

The server must be the test server of test/helpers/server.ts (simulated terminal, clock fixed at
2024-01-10 12:00 UTC, account history up to 2024-01-10). Every Parquet and Arrow answer is read
with a real reader (pandas, pyarrow, DuckDB, polars) and compared with the JSON answer to the same
request: row counts, column types, every value. The pandas, polars and DuckDB snippets of
docs/clients.md (Python, the CLI on a downloaded file, and the SQL straight from the URL) are taken
from that page
and run as they are written there (with the server's address swapped in).

Prints one JSON summary on stdout ({"ok": bool, "checks": [...], "skipped": [...], "versions":
{...}}) and exits 1 if any check failed, 2 if the server could not be read at all.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
import urllib.parse
import urllib.request
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

# The page whose snippets run here as written (test/examples/docs-links.test.ts checks that they are there).
DOC = "docs/clients.md"
DOC_HOST = "http://127.0.0.1:8000"

TICKS = "/ticks/range?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&date_to=2024-01-09T00:00:00Z&flags=COPY_TICKS_ALL"
RATES = "/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2024-01-10T00:00:00Z&count=24"
RATES_M1 = "/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_M1&date_from=2024-01-08T00:00:00Z&date_to=2024-01-09T00:00:00Z"
DEALS = "/history/deals?date_from=2023-01-01T00:00:00Z&date_to=2024-01-10T00:00:00Z"
ORDERS = "/history/orders?date_from=2023-01-01T00:00:00Z&date_to=2024-01-10T00:00:00Z"
ACCOUNT = "/account"
POSITIONS = "/positions"
# Many symbols in one pull (docs/api.md): merged in time order, a `symbol` column first.
MULTI = "/ticks/range?symbols=GBPUSD,EURUSD,USDJPY&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T11:00:00Z"
MULTI_SYMBOLS = ["GBPUSD", "EURUSD", "USDJPY"]

UTC_MS = pa.timestamp("ms", tz="UTC")
UTC_S = pa.timestamp("s", tz="UTC")
# Series columns exactly as docs/api.md describes them (Parquet: every time a ms UTC timestamp).
TICK_TYPES = {
    "time": UTC_MS, "bid": pa.float64(), "ask": pa.float64(), "last": pa.float64(),
    "volume": pa.uint64(), "time_msc": UTC_MS, "flags": pa.uint32(), "volume_real": pa.float64(),
}
RATE_TYPES = {
    "time": UTC_MS, "open": pa.float64(), "high": pa.float64(), "low": pa.float64(), "close": pa.float64(),
    "tick_volume": pa.uint64(), "spread": pa.int32(), "real_volume": pa.uint64(),
}
# Arrow IPC: the columns as they leave the terminal, `time` in seconds.
ARROW_TICK_TYPES = {**TICK_TYPES, "time": UTC_S}
ARROW_RATE_TYPES = {**RATE_TYPES, "time": UTC_S}
SECOND_FIELDS = {"time", "time_setup", "time_done", "time_update", "time_expiration"}


class Report:
    def __init__(self) -> None:
        self.checks: list[dict] = []
        self.skipped: list[dict] = []

    def check(self, name: str, ok: bool, detail: object = None) -> bool:
        entry = {"name": name, "ok": bool(ok)}
        if detail is not None:
            entry["detail"] = detail
        self.checks.append(entry)
        return bool(ok)

    def equal(self, name: str, got: object, want: object) -> bool:
        return self.check(name, got == want, None if got == want else {"got": str(got), "want": str(want)})

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append({"name": name, "reason": reason})

    def guarded(self, name: str, fn) -> None:
        """Runs one group of checks; an exception is a failed check, not the end of the run."""
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the others
            self.check(name, False, {"exception": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=4)[-1500:]})


class Server:
    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")

    def url(self, path: str, fmt: str | None = None, **extra: str) -> str:
        params = {**({"format": fmt} if fmt else {}), **extra}
        if not params:
            return self.base + path
        return self.base + path + ("&" if "?" in path else "?") + urllib.parse.urlencode(params)

    def get(self, path: str, fmt: str | None = None, **extra: str) -> tuple[bytes, str]:
        with urllib.request.urlopen(self.url(path, fmt, **extra), timeout=60) as res:
            if res.status != 200:
                raise RuntimeError(f"{path}: HTTP {res.status}")
            return res.read(), res.headers.get("content-type", "")

    def json(self, path: str) -> list[dict]:
        body, _ = self.get(path)
        data = json.loads(body)
        return data if isinstance(data, list) else [data]


def doc_block(doc: str, lang: str, must_contain: str) -> str:
    for m in re.finditer(r"```" + lang + r"\n(.*?)```", doc, re.S):
        if must_contain in m.group(1):
            return m.group(1)
    raise LookupError(f"no ```{lang} block with {must_contain!r} in {DOC}")


def expected_type(field: str, sample: object) -> pa.DataType | None:
    """The Parquet column type a JSON field must come back as (None: anything numeric is fine)."""
    if field in SECOND_FIELDS or field.endswith("_msc"):
        return UTC_MS
    if isinstance(sample, bool):
        return pa.bool_()
    if isinstance(sample, str):
        return pa.string()
    return None


def as_epoch_ms(values: pa.Array | pa.ChunkedArray) -> list[int]:
    return pc.cast(values, pa.int64()).to_pylist()  # timestamps: their ms since the epoch


def json_time_ms(field: str, value: int) -> int:
    return value * 1000 if field in SECOND_FIELDS else value


def compare_table(r: Report, label: str, table: pa.Table, rows: list[dict], types: dict[str, pa.DataType] | None) -> None:
    """Row count, column names and order, types, and every value of `table` against the JSON rows."""
    r.equal(f"{label}: rows", table.num_rows, len(rows))
    if not rows:
        return
    names = list(rows[0].keys())
    r.equal(f"{label}: columns (names and order)", table.column_names, names)
    type_problems = {}
    value_problems = {}
    for field in names:
        if field not in table.column_names:
            continue
        column = table.column(field)
        want_type = types[field] if types else expected_type(field, rows[0][field])
        if want_type is not None and column.type != want_type:
            type_problems[field] = f"{column.type}, want {want_type}"
        if want_type is None and not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
            type_problems[field] = f"{column.type}, want a number"
        want = [row[field] for row in rows]
        if pa.types.is_timestamp(column.type):
            unit_ms = 1000 if column.type.unit == "s" else 1
            got = [v * unit_ms for v in as_epoch_ms(column)]
            want = [json_time_ms(field, v) if column.type.unit == "ms" else v * 1000 for v in want]
        else:
            got = column.to_pylist()
        bad = [i for i, (a, b) in enumerate(zip(got, want)) if not same_value(a, b)]
        if bad:
            i = bad[0]
            value_problems[field] = f"{len(bad)} rows differ, first at {i}: {got[i]!r} vs JSON {want[i]!r}"
    r.check(f"{label}: column types", not type_problems, type_problems or None)
    r.check(f"{label}: every value equals the JSON answer", not value_problems, value_problems or None)


def same_value(a: object, b: object) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    return a == b


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("base", help="server base URL, e.g. http://127.0.0.1:8000")
    ap.add_argument("--doc", help=f"default: the {DOC} of the repository holding this script")
    args = ap.parse_args()
    s = Server(args.base)
    r = Report()
    doc = Path(args.doc or Path(__file__).resolve().parents[2] / DOC).read_text(encoding="utf-8")
    tmp = tempfile.mkdtemp(prefix="tradeapi-interop-")

    try:
        json_rows = {p: s.json(p) for p in (TICKS, RATES, RATES_M1, DEALS, ORDERS, ACCOUNT, POSITIONS)}
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"ok": False, "error": f"cannot read the JSON answers: {e}"}))
        return 2
    ticks_json = json_rows[TICKS]
    r.check("the ticks range is not empty", len(ticks_json) > 1000, len(ticks_json))
    r.check("the deals range is not empty", len(json_rows[DEALS]) > 10, len(json_rows[DEALS]))

    # 1. The docs' pandas snippet, as written (requests + pd.read_parquet), pointed at this server.
    def doc_pandas() -> None:
        code = doc_block(doc, "python", "pd.read_parquet").replace(DOC_HOST, s.base)
        scope: dict = {}
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(compile(code, "docs/clients.md (pandas)", "exec"), scope)  # noqa: S102 - the page's own example
        ticks = scope["ticks"]
        r.check("docs pandas snippet: ran and printed the tail", isinstance(ticks, pd.DataFrame) and len(out.getvalue()) > 0)
        r.equal("docs pandas snippet: rows", len(ticks), len(ticks_json))
        # Its comment: "time_msc is a datetime64[ms, UTC] column".
        r.equal("docs pandas snippet: time_msc dtype", str(ticks["time_msc"].dtype), "datetime64[ms, UTC]")
        r.equal("pandas: time dtype (seconds stored as ms)", str(ticks["time"].dtype), "datetime64[ms, UTC]")
        r.equal("pandas: volume dtype", str(ticks["volume"].dtype), "uint64")
        r.equal("pandas: flags dtype", str(ticks["flags"].dtype), "uint32")
        want_msc = np.array([row["time_msc"] for row in ticks_json], dtype=np.int64)
        want_s = np.array([row["time"] for row in ticks_json], dtype=np.int64)
        r.check("pandas: time_msc values", np.array_equal(ticks["time_msc"].dt.as_unit("ms").astype("int64").to_numpy(), want_msc))
        r.check("pandas: time values (same instant as JSON seconds)", np.array_equal(ticks["time"].dt.as_unit("ms").astype("int64").to_numpy(), want_s * 1000))
        for field in ("bid", "ask", "flags"):
            r.check(f"pandas: {field} values", np.array_equal(ticks[field].to_numpy(), np.array([row[field] for row in ticks_json])))
        first = ticks["time_msc"].iloc[0]
        r.equal("pandas: first time_msc as a Timestamp", first, pd.Timestamp(ticks_json[0]["time_msc"], unit="ms", tz="UTC"))

    r.guarded("docs pandas snippet", doc_pandas)

    # 2. pandas.read_parquet of the other answers (records and bars), and every codec of a series.
    def pandas_others() -> None:
        for path in (RATES, DEALS, ACCOUNT):
            body, ctype = s.get(path, "parquet")
            r.equal(f"pandas {path}: content type", ctype, "application/parquet")
            df = pd.read_parquet(io.BytesIO(body))
            rows = json_rows[path]
            r.equal(f"pandas {path}: rows", len(df), len(rows))
            r.equal(f"pandas {path}: columns", list(df.columns), list(rows[0].keys()))
            times = [c for c in df.columns if c in SECOND_FIELDS or c.endswith("_msc")]
            bad = {c: str(df[c].dtype) for c in times if str(df[c].dtype) != "datetime64[ms, UTC]"}
            r.check(f"pandas {path}: time columns are datetime64[ms, UTC]", not bad, bad or None)
        for codec in ("zstd", "lz4", "snappy", "none"):
            body, _ = s.get(TICKS, "parquet", compression=codec)
            df = pd.read_parquet(io.BytesIO(body))
            r.check(f"pandas: compression={codec} reads back", len(df) == len(ticks_json) and float(df["bid"].iloc[-1]) == ticks_json[-1]["bid"])

    r.guarded("pandas read_parquet", pandas_others)

    # 3. pyarrow: exact schemas and every value, Parquet and Arrow IPC.
    def pyarrow_checks() -> None:
        for path, types in ((TICKS, TICK_TYPES), (RATES, RATE_TYPES), (RATES_M1, RATE_TYPES), (DEALS, None), (ORDERS, None), (ACCOUNT, None), (POSITIONS, None)):
            body, _ = s.get(path, "parquet")
            table = pq.read_table(io.BytesIO(body))
            compare_table(r, f"pyarrow parquet {path}", table, json_rows[path], types)
            if path == TICKS:
                meta = pq.ParquetFile(io.BytesIO(body)).metadata
                r.check("pyarrow parquet ticks: row groups of at most 128 K rows", all(meta.row_group(i).num_rows <= 131072 for i in range(meta.num_row_groups)))
                stats = meta.row_group(0).column(table.column_names.index("time_msc")).statistics
                r.check("pyarrow parquet ticks: time_msc has min/max statistics", stats is not None and stats.has_min_max)
        for path, types in ((TICKS, ARROW_TICK_TYPES), (RATES, ARROW_RATE_TYPES)):
            body, ctype = s.get(path, "arrow")
            r.equal(f"pyarrow ipc {path}: content type", ctype, "application/vnd.apache.arrow.stream")
            reader = ipc.open_stream(pa.BufferReader(body))
            batches = list(reader)
            table = pa.Table.from_batches(batches, schema=reader.schema)
            compare_table(r, f"pyarrow ipc {path}", table, json_rows[path], types)

    r.guarded("pyarrow", pyarrow_checks)

    # 4. DuckDB: read_parquet of a downloaded file, with the docs' query; then from the URL.
    doc_sql = doc_block(doc, "sql", "read_parquet")
    doc_url = re.search(r"read_parquet\('([^']+)'\)", doc_sql).group(1)
    ticks_file = os.path.join(tmp, "ticks.parquet")
    deals_file = os.path.join(tmp, "deals.parquet")

    def duckdb_file() -> None:
        body, _ = s.get(urllib.parse.urlsplit(doc_url).path + "?" + urllib.parse.urlsplit(doc_url).query)
        Path(ticks_file).write_bytes(body)
        Path(deals_file).write_bytes(s.get(DEALS, "parquet")[0])
        con = duckdb.connect()
        hourly = con.sql(doc_sql.replace(doc_url, ticks_file)).arrow()
        hourly = hourly if isinstance(hourly, pa.Table) else hourly.read_all()
        r.equal("duckdb file: docs query, ticks summed over the hours", sum(hourly.column("ticks").to_pylist()), len(ticks_json))
        r.equal("duckdb file: docs query, one row per hour of the day", hourly.num_rows, 24)
        r.check("duckdb file: docs query, spreads positive", all(x > 0 for x in hourly.column("spread").to_pylist()))
        types = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('{ticks_file}'))").fetchall())
        r.equal("duckdb file: ticks column types", types, {
            "time": "TIMESTAMP WITH TIME ZONE", "bid": "DOUBLE", "ask": "DOUBLE", "last": "DOUBLE", "volume": "UBIGINT",
            "time_msc": "TIMESTAMP WITH TIME ZONE", "flags": "UINTEGER", "volume_real": "DOUBLE"})
        got = con.execute(f"SELECT count(*), min(epoch_ms(time_msc)), max(epoch_ms(time_msc)), sum(flags) FROM read_parquet('{ticks_file}')").fetchone()
        want = (len(ticks_json), ticks_json[0]["time_msc"], ticks_json[-1]["time_msc"], sum(row["flags"] for row in ticks_json))
        r.equal("duckdb file: ticks count, first/last time_msc, sum of flags", tuple(int(x) for x in got), want)
        deals = json_rows[DEALS]
        got = con.execute(f"SELECT count(*), sum(profit), min(epoch_ms(time)), typeof(any_value(time)) FROM read_parquet('{deals_file}')").fetchone()
        r.equal("duckdb file: deals count", int(got[0]), len(deals))
        r.check("duckdb file: deals profit sum", math.isclose(float(got[1]), sum(d["profit"] for d in deals), rel_tol=1e-12, abs_tol=1e-9), [got[1], sum(d["profit"] for d in deals)])
        r.equal("duckdb file: deals time is a timestamp, same instant", (int(got[2]), got[3]), (min(d["time"] for d in deals) * 1000, "TIMESTAMP WITH TIME ZONE"))

    r.guarded("duckdb file", duckdb_file)

    def duckdb_url() -> None:
        # DuckDB reads http(s) URLs through its httpfs extension, which it downloads on first use:
        # impossible offline. duckdb-extension-httpfs ships the (DuckDB-signed) extension on PyPI,
        # for its own DuckDB version only.
        con = duckdb.connect()
        loaded = con.execute("SELECT loaded FROM duckdb_extensions() WHERE extension_name = 'httpfs'").fetchone()
        if not (loaded and loaded[0]):
            try:
                import duckdb_extension_httpfs  # type: ignore[import-not-found]
            except ImportError:
                r.skip("duckdb URL (docs query verbatim)", "httpfs is not installed and cannot be downloaded offline; pip install duckdb-extension-httpfs of the same version as duckdb")
                return
            ext = Path(duckdb_extension_httpfs.__file__).parent / "extensions" / f"v{duckdb.__version__}" / "httpfs.duckdb_extension"
            if not ext.exists():
                r.skip("duckdb URL (docs query verbatim)", f"duckdb-extension-httpfs has no build for duckdb {duckdb.__version__}")
                return
            con.execute(f"LOAD '{ext}'")
        sql = doc_sql.replace(DOC_HOST, s.base)
        from_url = con.sql(sql).arrow()
        from_url = from_url if isinstance(from_url, pa.Table) else from_url.read_all()
        from_file = con.sql(doc_sql.replace(doc_url, ticks_file)).arrow()
        from_file = from_file if isinstance(from_file, pa.Table) else from_file.read_all()
        r.check("duckdb URL: docs query verbatim answers as from the downloaded file", from_url.equals(from_file),
                None if from_url.equals(from_file) else {"url_rows": from_url.num_rows, "file_rows": from_file.num_rows})
        r.equal("duckdb URL: ticks summed over the hours", sum(from_url.column("ticks").to_pylist()), len(ticks_json))

    r.guarded("duckdb URL", duckdb_url)

    # 5. polars.
    def polars_checks() -> None:
        df = pl.read_parquet(io.BytesIO(s.get(TICKS, "parquet")[0]))
        r.equal("polars ticks: rows", df.height, len(ticks_json))
        r.equal("polars ticks: dtypes", {k: str(v) for k, v in df.schema.items()}, {
            "time": "Datetime(time_unit='ms', time_zone='UTC')", "bid": "Float64", "ask": "Float64", "last": "Float64",
            "volume": "UInt64", "time_msc": "Datetime(time_unit='ms', time_zone='UTC')", "flags": "UInt32", "volume_real": "Float64"})
        r.check("polars ticks: time_msc values", df["time_msc"].dt.epoch("ms").to_list() == [row["time_msc"] for row in ticks_json])
        r.check("polars ticks: ask values", df["ask"].to_list() == [row["ask"] for row in ticks_json])
        deals = pl.read_parquet(deals_file if os.path.exists(deals_file) else io.BytesIO(s.get(DEALS, "parquet")[0]))
        r.equal("polars deals: rows", deals.height, len(json_rows[DEALS]))
        r.check("polars deals: tickets and symbols", deals["ticket"].to_list() == [d["ticket"] for d in json_rows[DEALS]]
                and deals["symbol"].to_list() == [d["symbol"] for d in json_rows[DEALS]])
        r.equal("polars deals: time dtype", str(deals.schema["time"]), "Datetime(time_unit='ms', time_zone='UTC')")
        account = pl.read_parquet(io.BytesIO(s.get(ACCOUNT, "parquet")[0]))
        r.equal("polars account: one row with the JSON values", account.to_dicts(), json_rows[ACCOUNT])

    r.guarded("polars", polars_checks)

    # 6. The docs' polars and DuckDB examples, as written: polars and DuckDB (Python and CLI) on
    # the fetched bytes, since neither reads our URLs directly without range requests / httpfs.
    def hourly_checks(label: str, hours: list, counts: list) -> None:
        r.equal(f"{label}: one row per hour of the day", len(hours), 24)
        r.equal(f"{label}: ticks summed over the hours", sum(int(c) for c in counts), len(ticks_json))

    def doc_polars() -> None:
        code = doc_block(doc, "python", "pl.read_parquet(io.BytesIO").replace(DOC_HOST, s.base)
        scope: dict = {}
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(compile(code, "docs/clients.md (polars)", "exec"), scope)  # noqa: S102 - the page's own example
        r.check("docs polars snippet: printed the hourly table", len(out.getvalue()) > 0)
        r.equal("docs polars snippet: rows", scope["ticks"].height, len(ticks_json))
        hourly_checks("docs polars snippet", scope["hourly"]["hour"].to_list(), scope["hourly"]["ticks"].to_list())

    r.guarded("docs polars snippet", doc_polars)

    def doc_duckdb_python() -> None:
        code = doc_block(doc, "python", "duckdb.sql").replace(DOC_HOST, s.base)
        scope: dict = {}
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(compile(code, "docs/clients.md (duckdb)", "exec"), scope)  # noqa: S102 - the page's own example
        r.check("docs DuckDB (Python) snippet: printed the hourly table", len(out.getvalue()) > 0)
        hourly = scope["hourly"].arrow()
        hourly = hourly if isinstance(hourly, pa.Table) else hourly.read_all()
        hourly_checks("docs DuckDB (Python) snippet", hourly.column("hour").to_pylist(), hourly.column("ticks").to_pylist())

    r.guarded("docs DuckDB (Python) snippet", doc_duckdb_python)

    def doc_duckdb_cli() -> None:
        # The CLI comes from duckdb-cli in requirements.txt, installed beside this Python.
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        if not shutil.which("duckdb", path=path):
            reason = "no duckdb CLI beside this Python or on PATH (pip install duckdb-cli)"
            if os.environ.get("TRADEAPI_TEST_PYTHON"):
                r.check("docs DuckDB CLI snippet: the duckdb CLI is installed", False, reason)
            else:
                r.skip("docs DuckDB CLI snippet", reason)
            return
        code = doc_block(doc, "sh", "duckdb -c").replace(DOC_HOST, s.base)
        cwd = os.path.join(tmp, "cli")  # its own ticks.parquet, apart from the files above
        os.makedirs(cwd, exist_ok=True)
        done = subprocess.run(["bash", "-e", "-c", code], cwd=cwd, env={**os.environ, "PATH": path},
                              capture_output=True, text=True, timeout=60)
        r.check("docs DuckDB CLI snippet: ran", done.returncode == 0, done.stderr[-2000:])
        r.check("docs DuckDB CLI snippet: downloaded the file", os.path.getsize(os.path.join(cwd, "ticks.parquet")) > 0)
        hours = re.findall(r"2024-01-0[89] \d\d:00:00", done.stdout)
        counts = re.findall(r"2024-01-0[89] \d\d:00:00\S*\s*│\s*(\d+)", done.stdout)
        hourly_checks("docs DuckDB CLI snippet", hours, counts)

    r.guarded("docs DuckDB CLI snippet", doc_duckdb_cli)

    def polars_url() -> None:
        # What docs/clients.md says of pl.read_parquet(url). Should this change (polars without range
        # requests, or a gateway that serves them), docs/clients.md must change with it.
        try:
            pl.read_parquet(s.url(TICKS, "parquet"))
            r.check("polars straight from the URL fails as docs/clients.md says (Range request not supported)", False, "it worked: update docs/clients.md")
        except Exception as e:  # noqa: BLE001
            r.check("polars straight from the URL fails as docs/clients.md says (Range request not supported)", "Range request not supported" in str(e), str(e)[:300])

    r.guarded("polars URL", polars_url)

    # 7. A multi-symbol pull read as a one-symbol pull is: pyarrow, polars and DuckDB on its Parquet,
    # each with a string `symbol` column (dictionary-encoded in the file), the rows of the JSON answer.
    def multi_symbol() -> None:
        rows = s.json(MULTI)
        r.check("multi-symbol: JSON rows carry their symbol first", len(rows) > 1000 and list(rows[0])[0] == "symbol")
        body, _ = s.get(MULTI, "parquet")
        table = pq.read_table(io.BytesIO(body))
        r.equal("multi-symbol pyarrow: columns", table.column_names, ["symbol", *TICK_TYPES])
        r.check("multi-symbol pyarrow: symbol is a string column (a dictionary of strings read as is)",
                pa.types.is_string(table.schema.field("symbol").type) or (pa.types.is_dictionary(table.schema.field("symbol").type) and pa.types.is_string(table.schema.field("symbol").type.value_type)),
                str(table.schema.field("symbol").type))
        r.equal("multi-symbol pyarrow: symbols in order", table.column("symbol").cast(pa.string()).to_pylist(), [x["symbol"] for x in rows])
        compare_table(r, "multi-symbol pyarrow (ticks columns)", table.drop(["symbol"]), [{k: v for k, v in x.items() if k != "symbol"} for x in rows], TICK_TYPES)
        frame = pl.read_parquet(io.BytesIO(body))
        r.equal("multi-symbol polars: symbol dtype", str(frame.schema["symbol"]), "String")
        r.equal("multi-symbol polars: rows per symbol", dict(frame.group_by("symbol").len().iter_rows()), {n: sum(1 for x in rows if x["symbol"] == n) for n in MULTI_SYMBOLS})
        r.equal("multi-symbol polars: time_msc in merged order", frame["time_msc"].dt.epoch("ms").to_list(), [x["time_msc"] for x in rows])
        path = os.path.join(tmp, "multi.parquet")
        Path(path).write_bytes(body)
        con = duckdb.connect()
        types = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('{path}'))").fetchall())
        r.equal("multi-symbol duckdb: symbol is VARCHAR", types.get("symbol"), "VARCHAR")
        got = con.execute(f"SELECT symbol, count(*), sum(flags) FROM read_parquet('{path}') WHERE symbol <> 'EURUSD' GROUP BY symbol ORDER BY symbol").fetchall()
        want = sorted((n, sum(1 for x in rows if x["symbol"] == n), sum(x["flags"] for x in rows if x["symbol"] == n)) for n in MULTI_SYMBOLS if n != "EURUSD")
        r.equal("multi-symbol duckdb: a filter on symbol, counts and sums per symbol", [tuple(int(v) if not isinstance(v, str) else v for v in g) for g in got], want)

    r.guarded("multi-symbol Parquet", multi_symbol)

    ok = all(c["ok"] for c in r.checks)
    summary = {
        "ok": ok,
        "passed": sum(c["ok"] for c in r.checks),
        "failed": sum(not c["ok"] for c in r.checks),
        "failures": [c for c in r.checks if not c["ok"]],
        "skipped": r.skipped,
        "checks": r.checks,
        "versions": {"python": sys.version.split()[0], "pandas": pd.__version__, "pyarrow": pa.__version__,
                     "duckdb": duckdb.__version__, "polars": pl.__version__, "numpy": np.__version__},
    }
    print(json.dumps(summary, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
