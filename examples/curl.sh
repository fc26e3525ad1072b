#!/usr/bin/env bash
# tradeapi with curl: the latest EURUSD tick, a day of H1 bars as JSON, a day of ticks as Parquet.
#   TRADEAPI_URL      the gateway, prefix included (default http://127.0.0.1:8000; read-only: …/api/v1)
#   TRADEAPI_API_KEY  sent as X-API-Key when set
set -euo pipefail
url="${TRADEAPI_URL:-http://127.0.0.1:8000}"
key=()
if [ -n "${TRADEAPI_API_KEY:-}" ]; then key=(-H "X-API-Key: $TRADEAPI_API_KEY"); fi

curl -sSf "${key[@]}" "$url/symbols/EURUSD/tick"
echo
curl -sSf "${key[@]}" "$url/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2024-01-10T00:00:00Z&count=24"
echo
curl -sSf "${key[@]}" -H 'Accept: application/parquet' -o ticks.parquet \
  "$url/ticks/range?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&date_to=2024-01-09T00:00:00Z"
echo "ticks.parquet: $(wc -c < ticks.parquet) bytes"
