#!/bin/sh
# bench-data-log.sh BUILDDIR: what the data log (registers and memory at
# every position, issue 18 section 1) costs: `hwtrec record` with it (the
# default) and with --no-data, side by side, on gzip, python3 -c (a small
# script), a call-heavy and a loop-heavy C program.  Figures, not a
# pass/fail test: CPU seconds (user+sys of the process tree; wall time says
# little on a busy machine) and, in brackets, user seconds alone (the
# system part is mostly the kernel taking the log into the page cache,
# which varies with the VM's memory from run to run); the recording's size
# (trace, sideband, core, log) and the log's bytes per instruction
# (instructions from `hwtrec info --json`).  Goal: at most 2x the CPU
# without the log.
#
# BENCH_RUNS=N: N runs of each, interleaved (--no-data, with the log,
# ...), the median shown.  BENCH_BEFORE=DIR: also "before", the tool in DIR
# (a copy of a build's kernel/valgrind/lib, given to hwtrec as
# HWTREC_VALGRIND_LIB), interleaved with the others: a change measured
# against the same load.
set -eu
build=$(cd "${1:-../..}" && pwd)
hwtrec=$build/tools/hwtrec
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-data-log.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

cat > calls.c <<'C'
#include <stdio.h>
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) { printf("%d\n", fib(25)); return 0; }
C
cat > loops.c <<'C'
#include <stdio.h>
static unsigned a[4096];
int main(void)
{
	unsigned s = 1;
	for (int r = 0; r < 200; r++)
		for (int i = 0; i < 4096; i++) { s = s * 1103515245 + 12345; a[i] += s >> 7; }
	printf("%u\n", a[17]); return 0;
}
C
cat > small.py <<'PY'
import json
print(sum(len(json.dumps(list(range(i)))) for i in range(300)))
PY
cc -O1 -g calls.c -o calls
cc -O1 -g loops.c -o loops
awk 'BEGIN { for (i = 0; i < 30000; i++) print "line", i, "of some text", i * 7919 % 1000 }' > input
gz=$(command -v gzip)
# The interpreter itself, not a wrapper that execs it (a pyenv shim is a
# shell script: only the first image has a data log, so the figures would
# be the shell's).
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)

runs=${BENCH_RUNS:-1}
before=${BENCH_BEFORE:-}

measure() {	# measure OUT CMD...: append "cpu user" of CMD to OUT.times
	out=$1; shift
	/usr/bin/time -f "%U %S" -o "$out.time" "$@" > /dev/null 2>"$out.err" || true
	tail -1 "$out.time" | awk '{ printf "%.2f %.2f\n", $1 + $2, $1 }' >> "$out.times"
}

median() {	# median FILE: "cpu [user]", the run of median CPU
	sort -n "$1" | awk '{ l[NR] = $0 } END { split(l[int((NR + 1) / 2)], f, " ");
		printf "%.2f [%.2f]", f[1], f[2] }'
}

ratio() { echo "$1 $2" | awk '{ gsub(/[][]/, ""); printf "%.2f", ($1 > 0 ? $3 / $1 : 0) }'; }

size_mb() { du -sk "$1" | awk '{ printf "%.1f", $1 / 1024 }'; }

if [ -n "$before" ]; then
	printf '%-8s %10s %14s %14s %6s %14s %6s %8s %8s %7s\n' program insns \
		"--no-data" "before" "x cpu" "with data" "x cpu" "MB none" "MB data" "B/insn"
else
	printf '%-8s %10s %14s %14s %6s %8s %8s %7s\n' program insns "--no-data" \
		"with data" "x cpu" "MB none" "MB data" "B/insn"
fi
for prog in gzip python3 calls loops; do
	case $prog in
	gzip) cmd="$gz -c -6 $work/input" ;;
	python3)
		[ -n "$py" ] || continue
		cmd="$py small.py" ;;
	*) cmd="./$prog" ;;
	esac
	rm -f none.times data.times before.times
	i=0
	while [ "$i" -lt "$runs" ]; do
		rm -rf none.hwtrec data.hwtrec before.hwtrec
		# shellcheck disable=SC2086
		measure none "$hwtrec" record -q --no-data -o none.hwtrec -- $cmd
		if [ -n "$before" ]; then
			rm -rf before.hwtrec
			# shellcheck disable=SC2086
			measure before env HWTREC_VALGRIND_LIB="$before" "$hwtrec" \
				record -q -o before.hwtrec -- $cmd
			rm -rf before.hwtrec
		fi
		# shellcheck disable=SC2086
		measure data "$hwtrec" record -q -o data.hwtrec -- $cmd
		i=$((i + 1))
	done
	t0=$(median none.times)
	t1=$(median data.times)
	insns=$("$hwtrec" info --json data.hwtrec 2>/dev/null |
		python3 -c 'import json,sys; print(sum(t.get("instructions",0) for t in json.load(sys.stdin).get("threads",[])))' 2>/dev/null || echo 0)
	log=$(wc -c < data.hwtrec/values 2>/dev/null || echo 0)
	bpi=$(awk -v l="$log" -v n="$insns" 'BEGIN { printf "%.1f", n ? l / n : 0 }')
	if [ -n "$before" ]; then
		tb=$(median before.times)
		printf '%-8s %10s %14s %14s %6s %14s %6s %8s %8s %7s\n' "$prog" "$insns" \
			"$t0" "$tb" "$(ratio "$t0" "$tb")" "$t1" "$(ratio "$t0" "$t1")" \
			"$(size_mb none.hwtrec)" "$(size_mb data.hwtrec)" "$bpi"
	else
		printf '%-8s %10s %14s %14s %6s %8s %8s %7s\n' "$prog" "$insns" "$t0" \
			"$t1" "$(ratio "$t0" "$t1")" "$(size_mb none.hwtrec)" \
			"$(size_mb data.hwtrec)" "$bpi"
	fi
done
echo "(CPU seconds [user seconds], the median of $runs run(s); x cpu: with the log over --no-data)"
