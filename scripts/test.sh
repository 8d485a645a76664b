#!/bin/sh
# The README's test command: install what is needed, build from scratch, run
# every test (make check), the sanitizer tree's fast tests and the Debian
# packages' check.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
rm -rf "$top/build"
"$top/scripts/build.sh"
cd "$top/build"
make -s check -j"$(nproc)" || { find . -name 'test-suite.log' -exec cat {} + ; exit 1; }
# The fast tests (unit, server) again in a tree built with ASan and UBSan.
rm -rf "$top/build-sanitizers"
"$top/scripts/check-sanitizers.sh" "$top/build-sanitizers"
# The Debian packages: built, linted, compared with make install, tried as if
# installed (a few minutes).
"$top/scripts/deb-check.sh"
