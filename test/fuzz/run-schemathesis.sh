#!/usr/bin/env bash
# Fuzzes the HTTP API against its own OpenAPI document with schemathesis (pinned in
# requirements.txt), once per deployment shape:
#   full       the full variant, no key, no prefix
#   prefixed   the full variant with TRADEAPI_SECRET_KEY and TRADEAPI_ROUTER_PREFIX=/api/v1
#   read-only  serve --read-only (/api/v1, TRADE_API_KEY, a rate limit high enough not to trip)
# Each server gets a free loopback port; the three runs go in parallel. Every check runs
# (--checks all): no 5xx, responses/status codes/content types/headers as documented, problem
# documents, schema-invalid requests refused, schema-valid ones accepted, no request slower than
# 10 s (schemathesis' max_response_time; 30 s for the bars routes, see schemathesis.toml: the first
# D1/W1/MN1 request that reaches back to 2020 builds its bars from ~7 years of simulated ticks, ~10 s
# on one core) and none past --request-timeout (30 s). schemathesis.toml lists the few documented
# exceptions, hooks.py keeps the
# series requests small enough for schemathesis to hold in memory.
#
# Exit status: 0 when all three runs are clean, 1 otherwise (2 for a setup failure).
#
# Environment:
#   ST_MAX_EXAMPLES  examples per operation (default 200: ~2 min on 2 cores)
#   ST_PHASES        schemathesis phases (default examples,coverage,fuzzing; the quick test tier
#                    leaves out coverage, which generates thousands of boundary cases whatever
#                    ST_MAX_EXAMPLES says)
#   ST_SEED          hypothesis seed (default 1, reproducible; "random" for a fresh one)
#   ST_VENV          virtualenv holding schemathesis (default $TMPDIR/tradeapi-schemathesis-venv,
#                    created and filled from requirements.txt when missing)
#   ST_REPORT_DIR    where JUnit reports and logs go (default: a new temporary directory)
#   SKIP_BUILD=1     do not run `npm run build:ts` first
#   TRADEAPI_HTTP    node | uws: the HTTP adapter of the servers (default: automatic)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

max_examples="${ST_MAX_EXAMPLES:-200}"
phases="${ST_PHASES:-examples,coverage,fuzzing}"
seed="${ST_SEED:-1}"
venv="${ST_VENV:-${TMPDIR:-/tmp}/tradeapi-schemathesis-venv}"
out="${ST_REPORT_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/tradeapi-fuzz.XXXXXX")}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
key="fuzz-$RANDOM$RANDOM"
started=$SECONDS

# --- schemathesis -------------------------------------------------------------------------------
wanted="$(sed -n 's/^schemathesis==//p' "$here/requirements.txt")"
if [[ "$("$venv/bin/schemathesis" --version 2>/dev/null || true)" != *"$wanted"* ]]; then
  echo "fuzz: installing schemathesis $wanted into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
fi
st="$venv/bin/schemathesis"

# --- servers ------------------------------------------------------------------------------------
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then npm run --silent build:ts; fi

free_port() {
  # Reserved for this script's life, so that parallel test files never take it first.
  node dist/bench/ports.js $$
}

pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # A server whose event loop is stuck cannot run its shutdown: give them 5 s, then SIGKILL.
  for _ in $(seq 50); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ $alive == 0 ]] && return
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM

# start NAME PORT [env...] -- [serve args...]
start() {
  local name="$1" port="$2"
  shift 2
  local env=()
  while [[ "$1" != -- ]]; do env+=("$1"); shift; done
  shift
  env -u TRADEAPI_SECRET_KEY -u TRADEAPI_ROUTER_PREFIX -u TRADE_API_KEY -u API_RATE_LIMIT -u API_CORS_ORIGINS \
    TRADEAPI_LOG_LEVEL=ERROR API_LOG_LEVEL=ERROR "${env[@]}" \
    node bin/tradeapi.js serve --host 127.0.0.1 --port "$port" "$@" >"$out/server-$name.log" 2>&1 &
  pids+=("$!")
}

wait_healthy() {
  local url="$1" log="$2"
  node -e '
    const [url, log] = process.argv.slice(1);
    // A start takes ~2 s idle; the bound is that times the allowance for a loaded machine
    // (test/helpers/patience.ts: TRADEAPI_TEST_LOAD_ALLOWANCE, default 10).
    const allowance = Number(process.env.TRADEAPI_TEST_LOAD_ALLOWANCE);
    const deadline = Date.now() + 2000 * (Number.isFinite(allowance) && allowance >= 1 ? allowance : 10);
    (async () => {
      for (;;) {
        try { if ((await fetch(url)).status === 200) return; } catch {}
        if (Date.now() > deadline) { console.error(`fuzz: no healthy server at ${url} (see ${log})`); process.exit(2); }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();' "$url" "$log"
}

full_port="$(free_port)"
prefixed_port="$(free_port)"
readonly_port="$(free_port)"
start full "$full_port" --
start prefixed "$prefixed_port" TRADEAPI_SECRET_KEY="$key" TRADEAPI_ROUTER_PREFIX=/api/v1 --
start read-only "$readonly_port" TRADE_API_KEY="$key" API_RATE_LIMIT=100000000 -- --read-only
wait_healthy "http://127.0.0.1:$full_port/health" "$out/server-full.log" || exit 2
wait_healthy "http://127.0.0.1:$prefixed_port/api/v1/health" "$out/server-prefixed.log" || exit 2
wait_healthy "http://127.0.0.1:$readonly_port/api/v1/health" "$out/server-read-only.log" || exit 2

# --- fuzzing ------------------------------------------------------------------------------------
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" SCHEMATHESIS_HOOKS=hooks PYTHONDONTWRITEBYTECODE=1
seed_args=()
[[ "$seed" != random ]] && seed_args=(--seed "$seed")

# run NAME SCHEMA_URL [schemathesis args...]
# GET /events is left out: a valid request is an event stream that never ends, which no request
# timeout can tell from a hang (its problems are tested in test/events/); so is GET /ws, a
# WebSocket endpoint that answers a plain request only 426 (test/events/ws.test.ts).
run_ids=()
run_pids=()
run() {
  local name="$1" url="$2"
  shift 2
  # From $out, so that schemathesis' cache (.schemathesis/) stays out of the repository.
  (cd "$out" && exec "$st" --config-file "$here/schemathesis.toml" --no-color run "$url" \
    --checks all \
    --phases "$phases" \
    --max-examples "$max_examples" \
    --workers 1 \
    --request-timeout 30 \
    --exclude-path-regex '/(events|ws)$' \
    "${seed_args[@]}" \
    --report junit --report-junit-path "$out/junit-$name.xml" \
    "$@") >"$out/schemathesis-$name.log" 2>&1 &
  run_ids+=("$name")
  run_pids+=("$!")
}

echo "fuzz: schemathesis $wanted, $max_examples examples per operation, seed $seed; logs in $out"
run full "http://127.0.0.1:$full_port/openapi.json"
run prefixed "http://127.0.0.1:$prefixed_port/api/v1/openapi.json" -H "X-API-Key: $key"
run read-only "http://127.0.0.1:$readonly_port/api/v1/openapi.json" -H "X-API-Key: $key"

status=0
summary=()
for i in "${!run_pids[@]}"; do
  name="${run_ids[$i]}"
  if wait "${run_pids[$i]}"; then rc=0; else rc=$?; fi
  echo
  echo "==================== $name (exit $rc) ===================="
  cat "$out/schemathesis-$name.log"
  summary+=("$name: $(tail -n 1 "$out/schemathesis-$name.log" | tr -d '=' | sed 's/^ *//;s/ *$//') (exit $rc)")
  if [[ $rc != 0 ]]; then
    status=1
    echo "--- server log ($name) ---"
    tail -n 50 "$out/server-$name.log" || true
  fi
done

# A server that died or stopped answering during the run is a failure even if schemathesis
# happened not to notice.
for name in full prefixed read-only; do
  case "$name" in
    full) url="http://127.0.0.1:$full_port/health" ;;
    prefixed) url="http://127.0.0.1:$prefixed_port/api/v1/health" ;;
    read-only) url="http://127.0.0.1:$readonly_port/api/v1/health" ;;
  esac
  if ! node -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(5000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))' "$url"; then
    summary+=("$name: server not healthy after the run")
    status=1
  fi
done

echo
echo "==================== summary ($((SECONDS - started)) s) ===================="
printf '%s\n' "${summary[@]}"
exit $status
