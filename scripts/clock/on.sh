#!/usr/bin/env bash
# Runs a command with node's wall clock moved to a given instant (it keeps running from there):
#
#   scripts/clock/on.sh 2026-11-28T12:00:00Z npm test      # the suite on a Saturday
#   scripts/clock/on.sh saturday npm test                   # the next Saturday, 12:00 UTC
#
# Needs Debian's faketime package (libfaketime). Only node is moved (and the addon inside it: the
# simulator's wall clock), not Python, openssl or redis-server: preloaded into them, libfaketime
# breaks their poll timeouts and jemalloc's clock_gettime. So a `node` put first on PATH preloads
# it, and every node it starts drops the preload from its environment again, while process.execPath
# names that wrapper, so that the node processes it spawns keep the moved clock. The wrapper has
# everything written into it (no environment of its own), because tests spawn node with an
# environment of their choosing.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 <ISO instant | saturday | sunday> <command...>" >&2; exit 2; }
when=$1; shift
lib=${TRADEAPI_FAKETIME_LIB:-/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1}
[ -e "$lib" ] || { echo "libfaketime not found at $lib (apt-get install faketime)" >&2; exit 3; }
case "$when" in
  saturday) target=$(date -u -d 'next saturday 12:00' +%s) ;;
  sunday) target=$(date -u -d 'next sunday 12:00' +%s) ;;
  *) target=$(date -u -d "$when" +%s) ;;
esac
real=$(command -v node)
offset="+$((target - $(date -u +%s)))"
dir=$(mktemp -d "${TMPDIR:-/tmp}/tradeapi-clock.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cat >"$dir/unpreload.cjs" <<JS
// Written by scripts/clock/on.sh: no child of this node inherits libfaketime, and node children
// started through process.execPath go through the wrapper again.
'use strict';
delete process.env.LD_PRELOAD;
process.execPath = '$dir/node';
JS
cat >"$dir/node" <<SH
#!/bin/sh
# Written by scripts/clock/on.sh: node with its wall clock moved by $offset s (libfaketime).
LD_PRELOAD='$lib' FAKETIME='$offset' FAKETIME_DONT_FAKE_MONOTONIC=1 exec '$real' --require '$dir/unpreload.cjs' "\$@"
SH
chmod +x "$dir/node"
export PATH="$dir:$PATH"
echo "clock: node runs from $(date -u -d "@$target" +%Y-%m-%dT%H:%M:%SZ) (FAKETIME=$offset)" >&2
"$@"
