#!/usr/bin/env bash
# Cross-builds the addon for Windows x64 from Linux with mingw-w64 (Debian: apt-get install
# mingw-w64 cmake ninja-build), statically linked (no mingw DLLs needed on Windows), stripped, into
#   prebuilds/win32-x64/tradeapi.node
# where node-gyp-build finds it on win32-x64 (the install hook uses it when prebuilds/SOURCE_HASH
# matches). With --tests it also cross-builds the C++ core tests:
#   build/win32-x64/tradeapi_core_tests.exe
# The build tree is build/win32-x64 (not build/Release, which node-gyp-build would try first).
# Usage: bash scripts/build-win.sh [--tests]     (npm run build:win)
set -euo pipefail
cd "$(dirname "$0")/.."

TESTS=OFF
for arg in "$@"; do
  case "$arg" in
    --tests) TESTS=ON ;;
    *) echo "usage: $0 [--tests]" >&2; exit 2 ;;
  esac
done

PREFIX=x86_64-w64-mingw32
for tool in "$PREFIX-g++-posix" "$PREFIX-gcc-posix" "$PREFIX-dlltool" "$PREFIX-strip" cmake ninja; do
  command -v "$tool" >/dev/null || { echo "build-win: $tool not found (Debian: apt-get install mingw-w64 cmake ninja-build)" >&2; exit 3; }
done
HEADERS=node_modules/node-api-headers
[ -f "$HEADERS/def/node_api.def" ] || { echo "build-win: $HEADERS missing (run npm ci first)" >&2; exit 3; }

BUILD=build/win32-x64
OUT=prebuilds/win32-x64/tradeapi.node
mkdir -p "$BUILD" "$(dirname "$OUT")"
# The addon calls N-API functions exported by node.exe: an import library for them, made from the
# list node-api-headers ships (what cmake-js does with MSVC's lib.exe).
"$PREFIX-dlltool" -d "$HEADERS/def/node_api.def" -l "$BUILD/libnode_api.a"

cmake -S . -B "$BUILD" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake \
  -DCMAKE_BUILD_TYPE=Release \
  -DTRADEAPI_WERROR=ON \
  -DTRADEAPI_CORE_TESTS="$TESTS" \
  -DCMAKE_JS_INC="$PWD/$HEADERS/include" \
  -DCMAKE_JS_LIB="$PWD/$BUILD/libnode_api.a" >/dev/null
targets=(--target tradeapi_addon)
[ "$TESTS" = ON ] && targets+=(--target tradeapi_core_tests)
cmake --build "$BUILD" -j"${TRADEAPI_JOBS:-2}" "${targets[@]}"

"$PREFIX-strip" -o "$OUT" "$BUILD/tradeapi.node"
echo "build-win: $OUT ($(stat -c %s "$OUT") bytes)"
[ "$TESTS" = ON ] && echo "build-win: $BUILD/tradeapi_core_tests.exe"
exit 0
