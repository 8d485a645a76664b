#!/bin/sh
# The fast tests under AddressSanitizer and UndefinedBehaviorSanitizer: a
# second build tree (default build-sanitizers/ beside build/) configured
# with --enable-sanitizers, so that any report fails its test.  Runs the
# library's unit tests and the server's tests (testsuite/gdb), not the
# Valgrind-based ones: programs built with ASan cannot run under Valgrind,
# and in this tree memcheck.sh runs the unit tests plainly.
#
#   scripts/check-sanitizers.sh [BUILDDIR]      (or: make check-sanitizers)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build-sanitizers}
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >/dev/null)
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" --quiet --enable-sanitizers
# Only what the fast tests run: the library, the server, the CLI.
for d in libhwtrecord kernel kernel/valgrind/host kernel/freebsd kernel/linux formats tools \
	gdb-plugin/server; do
	make -s -j"$jobs" -C "$d"
done
# LSan too: a leak ends the program with an error.  The server's tests spawn
# hwtrec-server, which inherits these.
# OpenCSD's own leaks are suppressed (testsuite/unit/lsan.supp, as
# opencsd.supp for memcheck).
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top/testsuite/unit/lsan.supp:print_suppressions=0}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
# test-plain-gdb-connect.py's recording, shorter: its point (an answer
# before the history is built) is the plain tree's; here ASan watches.
LONG_ITERATIONS=${LONG_ITERATIONS:-30000000}
export LONG_ITERATIONS
status=0
make -s -j"$jobs" -C testsuite/unit check || status=1
make -s -j"$jobs" -C testsuite/gdb check TESTS='test-rsp test-server-core.sh
	test-protocol.py test-server-history test-plain-gdb-connect.py
	test-server-files.py test-listen-access.py test-listing-stream.py' || status=1
if [ $status -ne 0 ]; then
	find testsuite/unit testsuite/gdb -name 'test-suite.log' -exec cat {} +
fi
echo "check-sanitizers: $(( $(date +%s) - start )) s"
exit $status
