#!/bin/sh
# bench-live.sh BUILDDIR: live mode (`hwtrec gdb`) on a CPU-bound program,
# beside GDB `record full` on the same work, in one run.  Figures, not a
# pass/fail test.
#
# - slowdown: wall seconds from `continue` at main to a breakpoint at the end
#   of the work: native (the program alone), under `hwtrec gdb` without
#   recording, under `hwtrec gdb` with `record hwt`, and under GDB's record
#   full;
# - latency: from the breakpoint stop to the answer of the first
#   `reverse-step`: for hwtrec it includes bringing the history up to the
#   stop (flush, rebuild: the server builds it when first needed; its share
#   is given, from hwtrec-server --timing); for record full the history is
#   built while running.  Then the first `x/2gx $sp` there (memory at a
#   past position: the data log, or unknown with --no-data).
# - the data log: `record hwt` with it (the default) and with --no-data.
# - latency at successive stops: a program that calls fib(N) STOPS times
#   and stops at a breakpoint after each call; at every stop GDB runs one
#   `reverse-step` (the stop-to-first-reverse-step latency, which includes
#   the flush and bringing the history up to the stop) and continues.  For
#   hwtrec as it is (the history extended at each stop: the cost follows the
#   trace since the last stop), for hwtrec building the history again at
#   every stop (HWTREC_LIVE_REBUILD, as before: the cost follows the whole
#   history), and for record full (small N only).
# WORK (default 22) is the fib argument; record full runs the same work.
# BIG (default 32) is a larger run for hwtrec alone (record full would take
# hours).  STOPS (default 8), STOP_WORK (default 18: record full too) and
# STOP_BIG (default 27: hwtrec only) size the stops.
set -eu
build=$(cd "${1:-../..}" && pwd)
hwtrec=$build/tools/hwtrec
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-live.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
WORK=${WORK:-22}
BIG=${BIG:-32}
STOPS=${STOPS:-8}
STOP_WORK=${STOP_WORK:-18}
STOP_BIG=${STOP_BIG:-27}
export HWTREC_PYTHONDIR="${HWTREC_PYTHONDIR:-$(cd "$build" && sed -n 's/^abs_top_srcdir = //p' Makefile)/gdb-plugin/python}"

cat > fib.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) void done(int v) { printf("%d\n", v); }
int main(int argc, char **argv)
{
	int v = fib(argc > 1 ? atoi(argv[1]) : 22);
	done(v);
	return 0;
}
C
cc -O0 -g -fno-pie -no-pie -static fib.c -o fib

cat > stops.c <<'C'
#include <stdlib.h>
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
volatile int sink;
__attribute__((noinline)) void mark(int k, int v) { sink = k + v; }
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), stops = atoi(argv[2]);

	for (int k = 0; k < stops; k++)
		mark(k, fib(n));
	return 0;
}
C
cc -O0 -g -fno-pie -no-pie -static stops.c -o stops

cat > timed.py <<'PY'
import re
import time
import gdb

def timed(command):
    t0 = time.time()
    try:
        gdb.execute(command, to_string=True)
    except gdb.error:
        pass    # memory unknown at a past position (--no-data)
    return time.time() - t0

def stops(count, hwtrec):
    """Continue to mark() COUNT times; at each stop time one reverse-step."""
    for k in range(1, count + 1):
        timed("continue")
        back = timed("reverse-step")
        insns = "-"
        if hwtrec:
            m = re.search(r"Recorded (\d+) instructions",
                          gdb.execute("info record", to_string=True))
            insns = m.group(1) if m else "?"
        print("STOP %d %s %.3f" % (k, insns, back))
        # Back to the end, or the next continue stops there again (the
        # breakpoint at the end of the history).
        gdb.execute("record goto end", to_string=True)
PY

# script PREFIX RECORD: break main, run, [record], time continue to done,
# time reverse-step.
script() {
	cat <<G
set pagination off
set confirm off
source $work/timed.py
break main
$1
delete
$2
break done
python t_run = timed("continue")
python t_back = timed("reverse-step") if "$2" else 0.0
python t_print = timed("x/2gx \$sp") if "$2" else 0.0
python print("TIMES %.3f %.3f %.4f" % (t_run, t_back, t_print))
kill
G
}

script continue "" > live.gdb
script continue "record hwt" > rec.gdb
sed -i 's/^kill$/info record\nkill/' rec.gdb
script run "record full" > full.gdb
sed -i 's/^record full$/record full\nset record full insn-number-max unlimited/' full.gdb

# hwtrec WORK: native, hwtrec gdb without and with recording, the latency.
hwtrec_rows() {
	t0=$(date +%s.%N)
	./fib "$1" > /dev/null
	t1=$(date +%s.%N)
	native=$(awk "BEGIN { print $t1 - $t0 }")
	plain=$("$hwtrec" gdb -nx -batch -x live.gdb -- ./fib "$1" 2>&1 | sed -n 's/^TIMES //p')
	rm -f timing; HWTREC_LIVE_TIMING=$work/timing "$hwtrec" gdb -nx -batch -x rec.gdb -- ./fib "$1" > rec.out 2>&1 || true
	rec=$(sed -n 's/^TIMES //p' rec.out)
	sync_time=$(sed -n "s/.*history brought up to the stop in \([0-9.]*\) s.*/\1/p" timing | tail -1)
	insns=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' rec.out | head -1)
	rm -f timing; HWTREC_LIVE_TIMING=$work/timing "$hwtrec" gdb --no-data -nx -batch -x rec.gdb -- ./fib "$1" > nodata.out 2>&1 || true
	nodata=$(sed -n 's/^TIMES //p' nodata.out)
	nodata_sync=$(sed -n "s/.*history brought up to the stop in \([0-9.]*\) s.*/\1/p" timing | tail -1)
	set -- $plain; t_plain=$1
	set -- $rec; t_rec=$1; t_rec_back=$2; t_rec_print=$3
	set -- $nodata; t_nodata=$1; t_nodata_back=$2; t_nodata_print=$3
	row "native" "$native"
	row "hwtrec gdb, not recording" "$t_plain"
	row "hwtrec gdb, record hwt" "$t_rec"
	row "hwtrec gdb --no-data, record hwt" "$t_nodata"
	printf '%-34s %10.3f   (of which the history brought up to the stop: %.3f; %s instructions)\n' \
		"stop -> first reverse-step: hwtrec" "$t_rec_back" "${sync_time:-0}" "${insns:-?}"
	printf '%-34s %10.3f   (of which the history brought up to the stop: %.3f)\n' \
		"  the same, --no-data" "$t_nodata_back" "${nodata_sync:-0}"
	printf '%-34s %10.4f   (--no-data: %.4f, memory unknown there)\n' \
		"then the first x/2gx \$sp" "$t_rec_print" "$t_nodata_print"
}
row() { printf '%-34s %10.3f %10.1f\n' "$1" "$2" "$(awk "BEGIN { print $2 / $native }")"; }

printf 'bench-live: %s\n' "$(uptime | sed 's/.*load/load/')"
printf '%-34s %10s %10s\n' "fib($WORK), the same work" "seconds" "x native"
hwtrec_rows "$WORK"
full=$(gdb -nx -batch -x full.gdb --args ./fib "$WORK" 2>&1 | sed -n 's/^TIMES //p')
set -- $full; t_full=$1; t_full_back=$2
row "gdb record full" "$t_full"
printf '%-34s %10.3f\n' "stop -> first reverse-step: full" "$t_full_back"
printf '\n%-34s %10s %10s\n' "fib($BIG), hwtrec only" "seconds" "x native"
hwtrec_rows "$BIG"

# Latency at successive stops: STOPS stops, one reverse-step at each.
stops_script() {
	cat <<G
set pagination off
set confirm off
source $work/timed.py
break main
$1
delete
$2
break mark
python stops($STOPS, $3)
kill
G
}
stops_script continue "record hwt" True > stops-hwtrec.gdb
stops_script run "record full
set record full insn-number-max unlimited" False > stops-full.gdb

# stops_run N REBUILD: the STOP lines of hwtrec, and the server's share.
stops_run() {
	rm -f timing
	if [ "$2" = rebuild ]; then
		HWTREC_LIVE_REBUILD=1 HWTREC_LIVE_TIMING=$work/timing "$hwtrec" gdb \
			-nx -batch -x stops-hwtrec.gdb -- ./stops "$1" "$STOPS" > "stops-$2.out" 2>&1 || true
	else
		HWTREC_LIVE_TIMING=$work/timing "$hwtrec" gdb -nx -batch \
			-x stops-hwtrec.gdb -- ./stops "$1" "$STOPS" > "stops-$2.out" 2>&1 || true
	fi
	sed -n 's/.*history brought up to the stop in \([0-9.]*\) s (\([a-z]*\), \([0-9]*\) instructions.*/\1 \3/p' \
		timing > "stops-$2.timing"
}

# stops_table N FULL: one row per stop: the history's size, then for the
# extended and rebuilt history the latency (server share, instructions
# decoded), and record full's latency when FULL.
stops_table() {
	stops_run "$1" extend
	stops_run "$1" rebuild
	if [ "$2" = full ]; then
		gdb -nx -batch -x stops-full.gdb --args ./stops "$1" "$STOPS" \
			> stops-full.out 2>&1 || true
	else
		: > stops-full.out
	fi
	printf '\nfib(%s) between stops, %s stops: stop -> first reverse-step, seconds\n' "$1" "$STOPS"
	printf '%-5s %12s | %-28s | %-28s | %11s\n' stop "history" \
		"hwtrec: extended (decoded)" "hwtrec: rebuilt (decoded)" "record full"
	k=1
	while [ "$k" -le "$STOPS" ]; do
		set -- $(sed -n "s/^STOP $k //p" stops-extend.out) - - ; ext_insns=$1 ext=$2
		set -- $(sed -n "s/^STOP $k //p" stops-rebuild.out) - - ; reb=$2
		set -- $(sed -n "${k}p" stops-extend.timing) - - ; ext_srv=$1 ext_dec=$2
		set -- $(sed -n "${k}p" stops-rebuild.timing) - - ; reb_srv=$1 reb_dec=$2
		set -- $(sed -n "s/^STOP $k //p" stops-full.out) - - ; full=$2
		printf '%-5s %12s | %6s (%6s; %11s) | %6s (%6s; %11s) | %11s\n' "$k" \
			"$ext_insns" "$ext" "$ext_srv" "$ext_dec" "$reb" "$reb_srv" \
			"$reb_dec" "$full"
		k=$((k + 1))
	done
	printf '(in parentheses: the server bringing the history up to the stop, and the instructions it decoded)\n'
}

stops_table "$STOP_WORK" full
stops_table "$STOP_BIG" hwtrec-only
