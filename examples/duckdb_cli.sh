#!/usr/bin/env bash
# tradeapi with DuckDB's CLI (pip install duckdb-cli, or the binary from duckdb.org): download a day
# of EURUSD ticks as Parquet, then ticks per hour and mean spread in SQL. (Straight from the URL
# DuckDB needs its httpfs extension, which it downloads on first use: not offline.)
#   TRADEAPI_URL      the gateway, prefix included (default http://127.0.0.1:8000; read-only: …/api/v1)
#   TRADEAPI_API_KEY  sent as X-API-Key when set
set -euo pipefail
url="${TRADEAPI_URL:-http://127.0.0.1:8000}"
key=()
if [ -n "${TRADEAPI_API_KEY:-}" ]; then key=(-H "X-API-Key: $TRADEAPI_API_KEY"); fi

curl -sSf "${key[@]}" -o ticks.parquet \
  "$url/ticks/range?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&date_to=2024-01-09T00:00:00Z&format=parquet"
duckdb -c "SET TimeZone = 'UTC';
SELECT date_trunc('hour', time_msc) AS hour, count(*) AS ticks, avg(ask - bid) AS spread
FROM read_parquet('ticks.parquet') GROUP BY 1 ORDER BY 1;"
