"""tradeapi with polars: ticks per hour and mean spread over a day of EURUSD.

polars.read_parquet(url) needs HTTP range requests, which the gateway does not serve (a series is
streamed while it is encoded): fetch the bytes, then read them.

    TRADEAPI_URL      the gateway, prefix included (default http://127.0.0.1:8000; read-only: …/api/v1)
    TRADEAPI_API_KEY  sent as X-API-Key when set
"""
import io
import os

import polars as pl
import requests

URL = os.environ.get("TRADEAPI_URL", "http://127.0.0.1:8000")
HEADERS = {"X-API-Key": os.environ["TRADEAPI_API_KEY"]} if os.environ.get("TRADEAPI_API_KEY") else {}

r = requests.get(f"{URL}/ticks/range", headers=HEADERS, timeout=60, params={
    "symbol": "EURUSD", "date_from": "2024-01-08T00:00:00Z", "date_to": "2024-01-09T00:00:00Z", "format": "parquet"})
r.raise_for_status()
ticks = pl.read_parquet(io.BytesIO(r.content))
hourly = ticks.group_by(pl.col("time_msc").dt.truncate("1h").alias("hour")).agg(
    pl.len().alias("ticks"), (pl.col("ask") - pl.col("bid")).mean().alias("spread")).sort("hour")
with pl.Config(tbl_rows=30):
    print(hourly)
print(f"{hourly.height} hours, {hourly['ticks'].sum()} ticks")
