#!/bin/sh
# Build hwtrecord from a clean clone into ./build (out of tree).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
autoreconf -fi >/dev/null
mkdir -p build
cd build
[ -f Makefile ] || ../configure --quiet
make -s -j"$(nproc)"
