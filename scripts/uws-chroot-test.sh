#!/usr/bin/env bash
# Runs the HTTP suites against uWebSockets.js on a machine whose glibc is too old for it (uWS
# 20.57 needs glibc >= 2.38; Debian 12 has 2.36): a Debian 13 (trixie) root, the host's node and
# the repository bind-mounted at the same path, so node_modules and build/Release are used as they
# are. Needs root, debootstrap and a Debian mirror. Idempotent: the root is built once and kept.
#
#   sudo scripts/uws-chroot-test.sh                 # test/http and test/readonly, node and uws
#   sudo scripts/uws-chroot-test.sh test/http/core.test.ts
#   sudo TRADEAPI_TEST_ADAPTERS=uws scripts/uws-chroot-test.sh --reporter=tap test/http   # uWS only
#   ROOT=/srv/trixie KEEP_MOUNTS=1 sudo scripts/uws-chroot-test.sh   # leave the mounts in place
set -euo pipefail
# Exit codes: 0 the suites passed, 1 a suite failed, 3 the root could not be set up here (no
# mirror, no permission to mount...): the caller may treat 3 as "not run" rather than "failed".
phase=setup
trap 'status=$?; if [ "$phase" = setup ] && [ $status -ne 0 ]; then echo "uws chroot: setup failed (exit $status)" >&2; exit 3; fi' EXIT

ROOT=${ROOT:-/srv/trixie}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
REPO=$(cd "$(dirname "$0")/.." && pwd)
NODE=$(command -v node)

[ "$(id -u)" = 0 ] || { echo "run as root (debootstrap, chroot, mount)" >&2; exit 3; }

if [ ! -x "$ROOT/usr/bin/env" ]; then
  command -v debootstrap >/dev/null || apt-get install -y -q debootstrap || { apt-get update -q && apt-get install -y -q debootstrap; }
  # libstdc++6: the addon's one shared-library dependency beyond libc (zstd and lz4 are linked in).
  debootstrap --variant=minbase --include=libstdc++6,ca-certificates,procps \
    trixie "$ROOT" "$MIRROR"
fi

# node: the host's binary (built for an older glibc, it runs on trixie's), and its npm for npx.
cp -u "$NODE" "$ROOT/usr/bin/node"
NPM_DIR=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
if [ -d "$NPM_DIR" ] && [ ! -d "$ROOT/usr/lib/node_modules/npm" ]; then
  mkdir -p "$ROOT/usr/lib/node_modules"
  cp -a "$NPM_DIR" "$ROOT/usr/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/bin/npx"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

mounted=()
mount_once() { # <mountpoint> <mount args...>
  local at=$1; shift
  mkdir -p "$at"
  if ! mountpoint -q "$at"; then mount "$@" "$at"; mounted=("$at" "${mounted[@]}"); fi
}
cleanup() {
  [ "${KEEP_MOUNTS:-0}" = 1 ] && return
  for at in "${mounted[@]}"; do umount -R "$at" 2>/dev/null || umount -l "$at"; done
}
trap 'status=$?; cleanup; if [ "$phase" = setup ] && [ $status -ne 0 ]; then echo "uws chroot: setup failed (exit $status)" >&2; exit 3; fi' EXIT
mount_once "$ROOT$REPO" --bind "$REPO"
mount_once "$ROOT/proc" -t proc proc
mount_once "$ROOT/sys" -t sysfs sys
mount_once "$ROOT/dev" --rbind /dev

# The test runner's choices travel in: which addon (the prebuild or a fresh build) and which adapters.
ADDON=${TRADEAPI_ADDON:-$REPO/build/Release/tradeapi.node}
in_root() {
  chroot "$ROOT" /usr/bin/env HOME=/tmp PATH=/usr/local/bin:/usr/bin:/bin \
    TRADEAPI_ADDON="$ADDON" ${TRADEAPI_TEST_ADAPTERS:+TRADEAPI_TEST_ADAPTERS="$TRADEAPI_TEST_ADAPTERS"} \
    /bin/bash -c "cd '$REPO' && $1"
}

echo "== glibc in the root: $(chroot "$ROOT" ldd --version | head -1)"
in_root "node -e \"require('uWebSockets.js'); require(process.env.TRADEAPI_ADDON); console.log('uWebSockets.js and the addon load')\""
in_root "node --import=@tapjs/typescript/import -e \"import('./src/http/adapters/index.ts').then((m) => console.log('adapters:', m.availableAdapters().map((a) => a.name).join(', ')))\"" || true

if [ $# -eq 0 ]; then set -- test/http test/readonly; fi
phase=tests
in_root "npx tap $(printf '%q ' "$@")"
