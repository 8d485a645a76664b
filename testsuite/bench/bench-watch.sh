#!/bin/sh
# bench-watch.sh BUILDDIR [ITERATIONS...]: what a watchpoint costs in reverse
# (issue 18 section 3).  A program writes a global once, runs a loop of
# ITERATIONS (default "15000 150000 1500000": about 0.1, 1 and 10 million
# instructions) that never touches it, reads it once more and crashes.
# Recorded with the software source (data log on), it is replayed with
# `hwtrec replay` and, from the crash, `watch g_watched` then
# reverse-continue must stop at the one write before the loop: with GDB's
# software watchpoints (`set can-use-hw-watchpoints 0`: what GDB did before
# hwtrec-server served watchpoints, single-stepping backwards), and with
# the server's (Z2 from the data log); then `rwatch g_watched` twice (the
# read after the loop, then, there being no read before it, the start of
# the history: the server decodes every instruction's operands on the
# way).  Seconds of each command (GDB's clock); it fails only if a run
# stops elsewhere.  The software watchpoint is skipped past SOFT_LIMIT
# iterations (default 20000: about 140,000 instructions, minutes).
set -eu
build=$(cd "${1:-../..}" && pwd)
shift || true
sizes=${*:-"15000 150000 1500000"}
soft_limit=${SOFT_LIMIT:-20000}
hwtrec=$build/tools/hwtrec
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-watch.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

cat > watched.c <<'C'
#include <stdlib.h>
volatile long g_watched;
volatile long g_other;
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long seen;

	g_watched = 42; /* the write */
	for (long i = 0; i < n; i++)
		g_other += i;
	seen = g_watched;
	*(volatile long *)0 = seen;
	return 0;
}
C
cc -O0 -g -static -no-pie -o watched watched.c
write_line=$(grep -n 'the write' watched.c | cut -d: -f1)

# Seconds of each command in GDB's own clock.
cat > timing.py <<'PY'
import time
import gdb

class Timed(gdb.Command):
    """timed COMMAND: run COMMAND, print how long it took."""
    def __init__(self):
        super().__init__("timed", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        start = time.monotonic()
        gdb.execute(arg)
        print("@@ %-30s %8.2f s  line %s" % (arg, time.monotonic() - start,
              gdb.selected_frame().find_sal().line))

Timed()
PY

# run LABEL LINE GDB-ARGS...: the timed commands' figures; the last one
# must have stopped at LINE (0: the start of the history, no line).
run() {
	label=$1
	want=$2
	shift 2
	out=$("$hwtrec" replay rec.hwtrec -- -batch -ex "source timing.py" \
		-ex 'set pagination off' "$@" 2>&1)
	printf '%s\n' "$out" | grep '^@@' | sed "s/^@@/  $label:/"
	printf '%s\n' "$out" | grep '^@@' | tail -1 | grep -q " line $want\$" || {
		printf 'FAIL: %s did not stop at line %s:\n%s\n' \
			"$label" "$want" "$out"
		exit 1
	}
}

for n in $sizes; do
	rm -rf rec.hwtrec
	"$hwtrec" record -q -o rec.hwtrec -- ./watched "$n" >/dev/null 2>&1 || true
	insns=$("$hwtrec" info --json rec.hwtrec | python3 -c \
		'import json, sys; print(sum(t["instructions"] for t in json.load(sys.stdin)["threads"]))')
	echo "loop of $n iterations: $insns instructions in the history"
	# The server builds the history in the background: `info record`
	# waits for it, so that the figures are the searches' alone.
	run "server (Z2)" "$write_line" -ex 'info record' \
		-ex 'watch g_watched' -ex 'timed reverse-continue'
	run "server (Z3)" 0 -ex 'info record' -ex 'rwatch g_watched' \
		-ex 'timed reverse-continue' -ex 'timed reverse-continue'
	if [ "$n" -le "$soft_limit" ]; then
		run "GDB software" "$write_line" -ex 'info record' \
			-ex 'set can-use-hw-watchpoints 0' -ex 'watch g_watched' \
			-ex 'timed reverse-continue'
	else
		echo "  GDB software: skipped (more than SOFT_LIMIT=$soft_limit iterations)"
	fi
done
