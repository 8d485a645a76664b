#!/bin/sh
# Runs each fuzz target once over every committed seed and regression (no
# fuzzing): each input must pass without a crash, sanitizer report, leak or
# hang (30 s).  Every failing input is listed.  Skipped (77) without clang.
srcdir=${FUZZ_SRCDIR:-.}
if [ -z "$HAVE_CLANG" ]; then
	echo "SKIP: clang not found; fuzz targets not built"
	exit 77
fi
status=0
for t in ${FUZZ_NAMES:-recording decoder server}; do
	n=0
	for f in "$srcdir"/seeds-$t/* "$srcdir"/regressions/$t-*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		if ! ./fuzz-$t -timeout=30 -rss_limit_mb=2048 "$f" >fuzz-$t.out 2>&1; then
			echo "FAIL: fuzz-$t $f:"
			grep -E "SUMMARY|broken promise|runtime error" fuzz-$t.out |
				head -n 2 | sed 's/^/    /'
			status=1
		fi
	done
	echo "fuzz-$t: $n inputs"
done
exit $status
