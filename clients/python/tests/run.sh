#!/bin/sh
# The Python client's checks (clients/python): a venv (build/client-venv) with the pinned numpy and
# vermin (pip runs only when the pins changed); vermin --target=3.9- on the package and its tests; a
# wheel must build from clients/python and, installed into a second, empty venv, pull in numpy and
# nothing else; then every unittest suite in clients/python/tests (units, the parity suite: client -> gateway -> bridge ->
# the MetaTrader5 stand-in against the stand-in itself, the simulator, the README's "From Python",
# mypy --strict over the package and the README's examples: test_typing.py),
# the optional extras' tests with pyarrow and pandas where a venv has them (below).
# Needs node and the built gateway (npm run build:ts). Prints "N passed, N failed".
#
# PYTHON=/path/to/python3.9 sh clients/python/tests/run.sh runs it on that interpreter.
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
PY=${PYTHON:-python3}
TAG=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
VENV="$ROOT/build/client-venv-$TAG"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
# pip only when the pinned requirements (or the interpreter) changed since it last filled the venv.
STAMP="$VENV/.tradeapi-requirements"
WANT="$(cat "$ROOT/clients/python/tests/requirements.txt") $("$VENV/bin/python" --version)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/clients/python/tests/requirements.txt"
  printf '%s' "$WANT" > "$STAMP"
fi
# Under CI, the [polars] extra (its pinned polars; the package itself uninstalled again: the tests
# import it from the source tree), so that test_polars.py runs; elsewhere it skips without polars.
if [ -n "${CI:-}" ]; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "$ROOT/clients/python[polars]"
  "$VENV/bin/python" -m pip uninstall -q -y tradeapi-client
fi
"$VENV/bin/python" -c 'import sys; print("client tests on Python %s (%s)" % (sys.version.split()[0], sys.executable))'
"$VENV/bin/vermin" --target=3.9- --no-tips --violations --eval-annotations \
  "$ROOT/clients/python/tradeapi_client" "$ROOT/clients/python/tests"

# Installable: `pip install ./clients/python` is a wheel built from the source tree (PEP 517), then
# installed: built here once, that wheel then goes into an empty venv (no pip of its own: the test
# venv's pip installs into it), where numpy must be the only dependency it pulls in.
INSTALL="$ROOT/build/client-install-venv-$TAG"
rm -rf "$INSTALL" "$ROOT/build/client-wheel"
"$VENV/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps -w "$ROOT/build/client-wheel" "$ROOT/clients/python"
WHEEL=$(ls "$ROOT/build/client-wheel"/tradeapi_client-*.whl)
echo "$WHEEL"
"$VENV/bin/python" -c 'import sys, zipfile; names = zipfile.ZipFile(sys.argv[1]).namelist(); assert "tradeapi_client/py.typed" in names, "the wheel lacks py.typed"' "$WHEEL"
"$PY" -m venv --without-pip "$INSTALL"
"$VENV/bin/python" -m pip --python "$INSTALL/bin/python" install -q --disable-pip-version-check "$WHEEL"
"$INSTALL/bin/python" - <<'PY'
import importlib.metadata as md
names = sorted(d.metadata["Name"].lower() for d in md.distributions())
extra = [n for n in names if n not in ("numpy", "tradeapi-client", "pip", "setuptools", "wheel")]
assert not extra, "pip install ./clients/python pulled in more than numpy: %s" % extra
import tradeapi_client.mt5 as mt5
assert len(mt5.FUNCTIONS) == 32
print("pip install ./clients/python: %s" % ", ".join(names))
PY
rm -rf "$INSTALL"

cd "$ROOT/clients/python/tests"
# The optional extras (compression='zstd' reads Parquet through pyarrow; to_pandas needs pandas) are
# skipped in the numpy-only venv: they run here with the interop venv's pinned pyarrow and pandas
# (build/pyenv, examples/requirements.txt) when it exists, or with EXTRAS_PYTHON=/path/to/python.
EXTRAS=${EXTRAS_PYTHON:-$ROOT/build/pyenv/bin/python}
if [ -x "$EXTRAS" ] && "$EXTRAS" -c 'import numpy, pyarrow, pandas' 2>/dev/null; then
  "$EXTRAS" -m unittest test_sim.Sim.test_zstd_parquet_gives_the_same_arrays test_sim.Sim.test_to_pandas
else
  echo "optional extras (pyarrow, pandas) not installed: the zstd and to_pandas tests are skipped"
fi
"$VENV/bin/python" run_tests.py
