#!/bin/sh
# The README's test command: install what is needed, build from scratch, run
# every test (make check).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
rm -rf "$top/build"
"$top/scripts/build.sh"
cd "$top/build"
make -s check -j"$(nproc)" || { find . -name 'test-suite.log' -exec cat {} + ; exit 1; }
