"""tradeapi with DuckDB from Python: ticks per hour and mean spread over a day of EURUSD, in SQL.

DuckDB reads http URLs only through its httpfs extension, downloaded on first use (not offline):
fetch the bytes, read them with pyarrow, and query the table by its Python name. Runs on DuckDB
1.x and 2.x alike.

    TRADEAPI_URL      the gateway, prefix included (default http://127.0.0.1:8000; read-only: …/api/v1)
    TRADEAPI_API_KEY  sent as X-API-Key when set
"""
import io
import os

import duckdb
import pyarrow.parquet as pq
import requests

URL = os.environ.get("TRADEAPI_URL", "http://127.0.0.1:8000")
HEADERS = {"X-API-Key": os.environ["TRADEAPI_API_KEY"]} if os.environ.get("TRADEAPI_API_KEY") else {}
HOURLY = """
    SELECT date_trunc('hour', time_msc) AS hour, count(*) AS ticks, avg(ask - bid) AS spread
    FROM ticks GROUP BY 1 ORDER BY 1
"""

r = requests.get(f"{URL}/ticks/range", headers=HEADERS, timeout=60, params={
    "symbol": "EURUSD", "date_from": "2024-01-08T00:00:00Z", "date_to": "2024-01-09T00:00:00Z", "format": "parquet"})
r.raise_for_status()
ticks = pq.read_table(io.BytesIO(r.content))
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")  # hours of UTC, whatever the machine's zone
print(con.sql(HOURLY))  # DuckDB's own table
# The totals from the connection's execute(): fetchone() there works on DuckDB 1.x and 2.x alike
# (a DuckDB 2 relation has none), and plain integers need no time-zone module (pytz) in Python.
hours, total = con.execute(f"SELECT count(*), sum(ticks) FROM ({HOURLY})").fetchone()
print(f"{hours} hours, {total} ticks")
