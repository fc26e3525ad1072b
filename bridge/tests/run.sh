#!/bin/sh
# The bridge's checks: a venv with the pinned numpy (build/bridge-venv), vermin --target=3.9 on the
# package, then the unittest suite. Prints "N passed, N failed"; exits non-zero on any failure.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV="$ROOT/build/bridge-venv"
PY=${PYTHON:-python3}
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q -r "$ROOT/bridge/tests/requirements.txt"
"$VENV/bin/vermin" --target=3.9- --no-tips --violations --eval-annotations "$ROOT/bridge/tradeapi_bridge"
cd "$ROOT/bridge"
"$VENV/bin/python" tests/run_tests.py
