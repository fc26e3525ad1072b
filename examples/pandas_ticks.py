"""tradeapi with requests + pandas: a day of EURUSD ticks as Parquet, a day of H1 bars as JSON.

    TRADEAPI_URL      the gateway, prefix included (default http://127.0.0.1:8000; read-only: …/api/v1)
    TRADEAPI_API_KEY  sent as X-API-Key when set
"""
import io
import os

import pandas as pd
import requests

URL = os.environ.get("TRADEAPI_URL", "http://127.0.0.1:8000")
HEADERS = {"X-API-Key": os.environ["TRADEAPI_API_KEY"]} if os.environ.get("TRADEAPI_API_KEY") else {}

r = requests.get(f"{URL}/ticks/range", headers=HEADERS, timeout=60, params={
    "symbol": "EURUSD", "date_from": "2024-01-08T00:00:00Z", "date_to": "2024-01-09T00:00:00Z", "format": "parquet"})
r.raise_for_status()
ticks = pd.read_parquet(io.BytesIO(r.content))  # time and time_msc are datetime64[ms, UTC] columns
print(ticks.tail())

r = requests.get(f"{URL}/rates/from", headers=HEADERS, timeout=60, params={
    "symbol": "EURUSD", "timeframe": "TIMEFRAME_H1", "date_from": "2024-01-10T00:00:00Z", "count": 24})
r.raise_for_status()
bars = pd.DataFrame(r.json())
bars["time"] = pd.to_datetime(bars["time"], unit="s", utc=True)  # JSON keeps MT5's seconds
print(bars[["time", "open", "high", "low", "close", "tick_volume"]].tail())

print(f"{len(ticks)} ticks, {len(bars)} bars, mean spread {(ticks['ask'] - ticks['bid']).mean():.6f}")
