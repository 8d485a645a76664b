#!/bin/sh
# Runs each fuzz target once over every committed seed and regression (no
# fuzzing): each input must pass without a crash, sanitizer report, leak or
# hang (30 s).  Every failing input is listed.  Skipped (77) without clang.
srcdir=${FUZZ_SRCDIR:-.}
# OpenCSD's one leak of its own (lsan.supp) is not ours to report; the
# suppression needs whole stacks (through libstdc++'s operator new).
LSAN_OPTIONS="suppressions=$srcdir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS ASAN_OPTIONS
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
