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
# Two jobs a CPU: a GDB scenario (most of the tests) waits on its GDB,
# gdbserver and hwtrec-server about a third of the time (values-deep and
# nav-cxx one at a time: 26 s of CPU in 39 s; eight scenarios on 2 CPUs
# took 48-50 s with -j2, 35 s with -j4).
make -s check -j"$(( $(nproc) * 2 ))" || { find . -name 'test-suite.log' -exec cat {} + ; exit 1; }
# The fast tests (unit, server) again in a tree built with ASan and UBSan.
rm -rf "$top/build-sanitizers"
"$top/scripts/check-sanitizers.sh" "$top/build-sanitizers"
# The Debian packages: built, linted, compared with make install, tried as if
# installed (a few minutes).
"$top/scripts/deb-check.sh"
