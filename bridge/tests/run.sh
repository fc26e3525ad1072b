#!/bin/sh
# The bridge's checks: a venv with the pinned numpy and vermin, vermin --target=3.9 on the package,
# its tests and the MetaTrader5 stand-in, then every unittest suite in bridge/tests (test_units,
# test_bridge and test_admission: real bridge processes over the stand-in, test_stand_in). Prints
# "N passed, N failed"; exits non-zero on any failure.
#
# PYTHON=/path/to/python3.9 sh bridge/tests/run.sh runs it all on that interpreter, in its own venv
# (build/bridge-venv-<major.minor>); by default python3 and build/bridge-venv.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${PYTHON:-}" ]; then
  PY=$PYTHON
  VENV="$ROOT/build/bridge-venv-$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
else
  PY=python3
  VENV="$ROOT/build/bridge-venv"
fi
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
# pip only when the pinned requirements (or the interpreter) changed since it last filled the venv.
STAMP="$VENV/.tradeapi-requirements"
WANT="$(cat "$ROOT/bridge/tests/requirements.txt") $("$VENV/bin/python" --version)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  "$VENV/bin/python" -m pip install -q -r "$ROOT/bridge/tests/requirements.txt"
  printf '%s' "$WANT" > "$STAMP"
fi
"$VENV/bin/python" -c 'import sys; print("bridge tests on Python %s (%s)" % (sys.version.split()[0], sys.executable))'
"$VENV/bin/vermin" --target=3.9- --no-tips --violations --eval-annotations \
  "$ROOT/bridge/tradeapi_bridge" "$ROOT/bridge/tests"
cd "$ROOT/bridge"
"$VENV/bin/python" tests/run_tests.py
