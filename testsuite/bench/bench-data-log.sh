#!/bin/sh
# bench-data-log.sh BUILDDIR: what the data log (registers and memory at
# every position, issue 18 section 1) costs: `hwtrec record` with it (the
# default) and with --no-data, side by side, on gzip, python3 -c (a small
# script), a call-heavy and a loop-heavy C program.  Figures, not a
# pass/fail test: wall seconds and, in brackets, CPU seconds (user+sys of
# the process tree; the steadier figure on a busy machine); the recording's
# size (trace, sideband, core, log) and the log's bytes per instruction
# (instructions from `hwtrec info --json`).  Goal: at most 2x the time
# without the log.
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

measure() {	# measure OUT CMD...: wall and cpu seconds of CMD
	out=$1; shift
	/usr/bin/time -f "%e %U %S" -o "$out.time" "$@" > /dev/null 2>"$out.err" || true
	tail -1 "$out.time" | awk '{ printf "%.2f [%.2f]", $1, $2 + $3 }'
}

size_mb() { du -sk "$1" | awk '{ printf "%.1f", $1 / 1024 }'; }

printf '%-8s %10s %16s %16s %7s %9s %9s %8s\n' program insns "--no-data" \
	"with data" "x time" "MB none" "MB data" "B/insn"
for prog in gzip python3 calls loops; do
	case $prog in
	gzip) cmd="$gz -c -6 $work/input" ;;
	python3)
		[ -n "$py" ] || continue
		cmd="$py small.py" ;;
	*) cmd="./$prog" ;;
	esac
	rm -rf none.hwtrec data.hwtrec
	# shellcheck disable=SC2086
	t0=$(measure none "$hwtrec" record -q --no-data -o none.hwtrec -- $cmd)
	# shellcheck disable=SC2086
	t1=$(measure data "$hwtrec" record -q -o data.hwtrec -- $cmd)
	insns=$("$hwtrec" info --json data.hwtrec 2>/dev/null |
		python3 -c 'import json,sys; print(sum(t.get("instructions",0) for t in json.load(sys.stdin).get("threads",[])))' 2>/dev/null || echo 0)
	log=$(wc -c < data.hwtrec/values 2>/dev/null || echo 0)
	printf '%-8s %10s %16s %16s %7s %9s %9s %8s\n' "$prog" "$insns" "$t0" "$t1" \
		"$(echo "$t0 $t1" | awk '{ gsub(/[][]/, ""); printf "%.2f", ($2 > 0 ? $4 / $2 : 0) }')" \
		"$(size_mb none.hwtrec)" "$(size_mb data.hwtrec)" \
		"$(awk -v l="$log" -v n="$insns" 'BEGIN { printf "%.1f", n ? l / n : 0 }')"
done
echo "(x time: CPU seconds with the log over CPU seconds without)"
