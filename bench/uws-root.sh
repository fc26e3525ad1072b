#!/bin/sh
# Runs one command inside the Debian 13 root (default /srv/trixie, built by
# scripts/uws-chroot-test.sh), where uWebSockets.js loads, with the given directories bind-mounted
# at the same paths. Meant to be started under `unshare --mount --propagation private`, so that its
# mounts are private to this process tree (nothing to unmount, nothing seen by other users of the
# root) and every step execs: the pid the caller sees is the command's.
#
#   unshare --mount --propagation private bench/uws-root.sh /work/main /work/baseline -- node …
set -e
ROOT=${UWS_ROOT:-/srv/trixie}
[ -x "$ROOT/usr/bin/env" ] || { echo "uws-root: no Debian 13 root at $ROOT (build it once: scripts/uws-chroot-test.sh)" >&2; exit 3; }
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  mkdir -p "$ROOT$1"
  mount --bind "$1" "$ROOT$1"
  shift
done
[ "$1" = "--" ] && shift
mount -t proc proc "$ROOT/proc"
mount --rbind /dev "$ROOT/dev"
mount -t sysfs sys "$ROOT/sys" 2>/dev/null || true
# `cd` to the first directory given is the caller's business (env -C).
exec chroot "$ROOT" /usr/bin/env HOME=/tmp PATH=/usr/local/bin:/usr/bin:/bin "$@"
