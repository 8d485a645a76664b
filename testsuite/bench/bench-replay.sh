#!/bin/sh
# bench-replay.sh BUILDDIR: replaying a recording of a crash of about 70 million
# instructions, `hwtrec replay` (GDB + plugin + hwtrec-server) beside GDB's own
# `record btrace pt` reading the same Intel PT through the server's btrace mode.
# Both run the same GDB script (bench-replay.py) at the crash: reverse-stepi,
# reverse-step, a reverse-continue to a breakpoint at the first call of the
# program (across the whole history), info record, and the whole
# function-call-history; then each side's peak memory (GDB and the server).
# Figures with the issue's goals beside them, not a pass/fail test: it fails
# only when the two sides disagree on where a command stopped or on the
# instruction count.  WORK_ITERATIONS scales the program (2,800 insns each).
set -eu
build=$(cd "${1:-../..}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
hwtrec=$build/tools/hwtrec
server=$build/gdb-plugin/server/hwtrec-server
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

cat > crash-late.c <<'C'
#include <stdlib.h>
volatile long sink;
int *volatile target;	/* NULL: the crash at the end */
__attribute__((noinline)) void mark_start(void) { sink = 1; }
__attribute__((noinline)) long work(long i)
{
	long s = 0;
	for (int k = 0; k < 400; k++)
		s += (i ^ k) * 3;
	return s;
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 25000, total = 0;
	mark_start();
	for (long i = 0; i < n; i++)
		total += work(i);
	sink = total;
	*target = (int)total;
	return 0;
}
C
cc -O1 -g crash-late.c -o crash-late
(ulimit -c unlimited; "$hwtrec" record -q -o rec.hwtrec -- ./crash-late \
	"${WORK_ITERATIONS:-25000}" >/dev/null 2>record.err) || true
[ -f rec.hwtrec/core ] || { cat record.err; echo "bench-replay: no recording of the crash"; exit 1; }

run() {	# run MODE GDB-ARGS...: the script under one side; figures in MODE.txt
	mode=$1; shift
	BENCH_MODE=$mode BENCH_T0=$(date +%s.%N) BENCH_OUT=$work/$mode.txt \
		timeout 1800 "$@" -batch -x "$here/bench-replay.py" > "$mode.out" 2>&1 || true
	[ -s "$mode.txt" ] || { tail -20 "$mode.out"; echo "bench-replay: $mode run failed"; exit 1; }
}
run hwtrec "$hwtrec" replay rec.hwtrec --
run btrace gdb -nx -q -ex "set remotetimeout 1800" -ex "target remote | $server rec.hwtrec"

get() { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$1.txt"; }
ms() { awk -v s="$(get "$1" "$2")" 'BEGIN { printf "%.1f ms", s * 1000 }'; }
mb() { awk -v a="$(get "$1" gdb_peak_kb)" -v b="$(get "$1" server_peak_kb)" \
	'BEGIN { printf "%.0f MB (GDB %.0f + server %.0f)", (a + b) / 1024, a / 1024, b / 1024 }'; }
since() { awk -v a="$(get "$1" ready)" -v b="$(get "$1" first_reverse_stepi)" \
	'BEGIN { printf "%.2f s", a + b }'; }

echo "recording: $(get hwtrec instructions) instructions, $(get hwtrec functions) function segments, $(du -k rec.hwtrec/trace | cut -f1) KB of trace"
printf '%-44s %22s %22s   %s\n' "" "hwtrec replay" "GDB record btrace pt" goal
row() { printf '%-44s %22s %22s   %s\n' "$@"; }
row "launch to prompt at the crash" "$(awk -v s="$(get hwtrec ready)" 'BEGIN { printf "%.2f s", s }')" \
	"$(awk -v s="$(get btrace ready)" 'BEGIN { printf "%.2f s", s }')" "< 1 s"
row "first reverse-stepi" "$(ms hwtrec first_reverse_stepi)" "$(ms btrace first_reverse_stepi)" "< 50 ms"
row "launch to first reverse-stepi done" "$(since hwtrec)" "$(since btrace)" ""
row "reverse-stepi (median of 20)" "$(ms hwtrec reverse_stepi_median)" "$(ms btrace reverse_stepi_median)" "< 50 ms"
row "reverse-step (median of 5)" "$(ms hwtrec reverse_step_median)" "$(ms btrace reverse_step_median)" "< 50 ms"
row "reverse-continue across the history" "$(ms hwtrec reverse_continue)" "$(ms btrace reverse_continue)" "< 2 s"
row "record function-call-history, all" "$(ms hwtrec call_history)" "$(ms btrace call_history)" ""
row "  lines listed" "$(get hwtrec call_history_lines)" "$(get btrace call_history_lines)" ""
row "peak memory" "$(mb hwtrec)" "$(mb btrace)" ""
awk -v a="$(get hwtrec gdb_peak_kb)" -v b="$(get hwtrec server_peak_kb)" \
	-v c="$(get btrace gdb_peak_kb)" -v d="$(get btrace server_peak_kb)" \
	'BEGIN { printf "memory: GDB btrace uses %.1fx what hwtrec replay uses (goal: >= 10x)\n", (c + d) / (a + b) }'

# Both sides must have done the same thing, or the times compare nothing.
status=0
for key in crash_at after_first_reverse_stepi after_reverse_steps reverse_continue_at \
	instructions functions call_history_lines; do
	a=$(get hwtrec $key); b=$(get btrace $key)
	if [ "$a" != "$b" ]; then
		echo "bench-replay: the two sides differ on $key: hwtrec '$a', btrace '$b'"
		status=1
	fi
done
exit $status
