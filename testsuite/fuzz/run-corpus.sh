#!/bin/sh
# Runs each fuzz target once over its committed seeds and regressions (no
# fuzzing): every input must pass without a crash, sanitizer report or leak.
# Skipped (77) when clang is missing.
srcdir=${FUZZ_SRCDIR:-.}
if [ -z "$HAVE_CLANG" ]; then
	echo "SKIP: clang not found; fuzz targets not built"
	exit 77
fi
status=0
for t in recording decoder; do
	set --
	for f in "$srcdir"/seeds-$t/* "$srcdir"/regressions/$t-*; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
	echo "fuzz-$t: $# inputs"
	if ! ./fuzz-$t -timeout=30 -rss_limit_mb=2048 "$@" >fuzz-$t.out 2>&1; then
		echo "FAIL: fuzz-$t on one of its inputs:"
		grep -E "^Running:|ERROR|SUMMARY|broken promise|runtime error" \
			fuzz-$t.out | tail -n 6
		status=1
	fi
done
exit $status
