#!/bin/sh
# bench-record.sh BUILDDIR: `hwtrec record` against native, valgrind --tool=none
# and GDB `record full` on three CPU-bound programs, side by side.
# Figures, not a pass/fail test.  Times are wall seconds and, in brackets, CPU
# seconds (user+sys of the whole process tree): on a busy machine the CPU
# figure is the steadier one.  GDB `record full` is run for a capped number of
# instructions and its time extrapolated to the program's instruction count
# (from our recording's index, hwtrec info).  Trace bits per instruction is
# the recording's trace size over that instruction count.
set -eu
build=$(cd "${1:-../..}" && pwd)
hwtrec=$build/tools/hwtrec
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-record.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
GDB_STEPS=${GDB_STEPS:-20000}

cat > sort.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b)
{ int x = *(const int *)a, y = *(const int *)b; return (x > y) - (x < y); }
int main(void)
{
	int n = 300000, *v = malloc(n * sizeof(*v)); unsigned s = 1; long sum = 0;
	for (int r = 0; r < 3; r++) {
		for (int i = 0; i < n; i++) { s = s * 1103515245 + 12345; v[i] = s >> 8; }
		qsort(v, n, sizeof(*v), cmp); sum += v[n / 2];
	}
	printf("%ld\n", sum); return 0;
}
C
cat > fib.c <<'C'
#include <stdio.h>
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) { printf("%d\n", fib(27)); return 0; }
C
cc -O2 -g sort.c -o sort
cc -O1 -g fib.c -o fib
# a few MB of compressible input for gzip
awk 'BEGIN { for (i = 0; i < 100000; i++) print "line", i, "of some text", i * 7919 % 1000 }' > input
gz=$(command -v gzip)

measure() {	# measure OUT CMD...: wall and cpu seconds of CMD
	out=$1; shift
	/usr/bin/time -f "%e %U %S" -o "$out.time" "$@" > /dev/null 2>"$out.err" || true
	tail -1 "$out.time" | awk '{ printf "%.2f [%.2f]", $1, $2 + $3 }'
}

printf '%-8s %14s %14s %14s %16s %12s %8s %9s\n' program native "tool=none" \
	"hwtrec record" "record full (est)" insns "x none" "bits/insn"
for prog in sort fib gzip; do
	case $prog in
	gzip) cmd="$gz -c -6 $work/input" ;;
	*) cmd="./$prog" ;;
	esac
	n=$(measure native $cmd)
	v=$(measure none valgrind -q --tool=none $cmd)
	rm -rf rec.hwtrec
	h=$(measure rec "$hwtrec" record -q -o rec.hwtrec -- $cmd)
	# The library's index counts instructions at block-decoder speed.
	insns=$("$hwtrec" info --json rec.hwtrec |
		python3 -c 'import json,sys; print(sum(t["instructions"] for t in json.load(sys.stdin)["threads"]))')
	bytes=$(cat rec.hwtrec/trace/*.pt | wc -c)
	# GDB record full: GDB_STEPS instructions from the first, extrapolated.
	# (gzip has no symbols: GDB starts recording at its first instruction.)
	/usr/bin/time -f "%e" -o gdb.time gdb -nx -batch -ex 'starti' \
		-ex 'record full' -ex 'set record full insn-number-max unlimited' \
		-ex "stepi $GDB_STEPS" --args $cmd > /dev/null 2>&1 || true
	g=$(tail -1 gdb.time)
	est=$(awk -v t="$g" -v n="$insns" -v s="$GDB_STEPS" 'BEGIN { printf "%.0f", t / s * n }')
	ratio=$(echo "$v $h" | awk '{ printf "%.1f (cpu %.1f)", $3 / $1, substr($4, 2) / substr($2, 2) }')
	bits=$(awk -v b="$bytes" -v n="$insns" 'BEGIN { printf "%.2f", b * 8 / n }')
	printf '%-8s %14s %14s %14s %15ss %12s %8s %9s\n' "$prog" "$n" "$v" "$h" \
		"$est" "$insns" "$ratio" "$bits"
done
echo "times: wall seconds [cpu seconds]; record full: ${GDB_STEPS} stepped instructions extrapolated"
