#!/usr/bin/env bash
# Runs a command with node's wall clock moved to a given instant (it keeps running from there):
#
#   scripts/clock/on.sh 2026-11-28T12:00:00Z npm test      # the suite on a Saturday
#   scripts/clock/on.sh saturday npm test                   # the next Saturday, 12:00 UTC
#
# Needs Debian's faketime package (libfaketime). Moves node and the addon inside it (the
# simulator's wall clock), not Python or other programs: see scripts/clock/node.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
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
[ "$real" != "$here/node" ] || { echo "scripts/clock/node is already first on PATH" >&2; exit 2; }
export TRADEAPI_REAL_NODE=$real
export FAKETIME="+$((target - $(date -u +%s)))"
export PATH="$here:$PATH"
echo "clock: node runs from $(date -u -d "@$target" +%Y-%m-%dT%H:%M:%SZ) (FAKETIME=$FAKETIME)" >&2
exec "$@"
