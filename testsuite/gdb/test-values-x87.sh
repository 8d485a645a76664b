#!/bin/sh
# The x87 registers at past positions of a software recording, against
# GDB on the live program (no recording): at every instruction of
# x87-prog's poly and mix (long double arithmetic, exact in double
# precision as Valgrind computes it; the rounding mode changed), and at
# the crash, `info float` shows the same 80 bits in every physical
# register, the same tags and status, control and tag words.  Replay
# reaches them by reverse-continue from the crash.  And what the data log
# does not hold (the x87 instruction and operand pointers, opcode, mxcsr)
# is <unavailable> at every stop, never a made-up value.  Live too
# (`hwtrec gdb`), at the live end: where a long double was just returned
# (the stack top at 7), `info float` as natively, although Valgrind's
# gdbserver numbers st0-st7 by physical register and tags a zero "valid"
# (gdb-plugin/server/valgrind-x87.c).  (GDB's record
# full is no oracle here: GDB 13 replays some x87 instructions with st0
# and fstat 0.)
set -eu
: "${TESTDIR:?}" "${HWTREC:?}" "${SRCDIR:?}"
prog="$TESTDIR/x87-prog"
probe="$SRCDIR/x87-probe.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/hwtrec-values-x87.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cd "$work"

X87_PROBE_MODE=live X87_PROBE_OUT=live.txt \
	gdb -nx -batch -x "$probe" "$prog" >live.log 2>&1 || true
"$HWTREC" record -q -o rec.hwtrec -- "$prog" >/dev/null 2>record.err || true
[ -s rec.hwtrec/values ] || { cat record.err; echo "FAIL: no data log"; exit 1; }
X87_PROBE_MODE=replay X87_PROBE_OUT=replay.txt \
	"$HWTREC" replay rec.hwtrec -- -batch -x "$probe" >replay.log 2>&1 || true

# The replay's stops, last first, turned round: each block ends with "--".
python3 -c '
import sys
blocks = open(sys.argv[1]).read().split("--\n")
sys.stdout.write("".join(b + "--\n" for b in reversed(blocks) if b))
' replay.txt >replay-forward.txt
stops=$(grep -c '^pc ' live.txt || true)
if [ "$stops" -lt 100 ]; then
	tail -20 live.log
	echo "FAIL: the live run stopped $stops times, expected over 100"
	exit 1
fi
if ! cmp -s live.txt replay-forward.txt; then
	diff live.txt replay-forward.txt | head -40
	tail -5 replay.log
	echo "FAIL: the x87 state at past positions differs from the live run's"
	exit 1
fi

# Live: the same commands natively and under `hwtrec gdb`, `info float`
# after each finish out of poly (st0 its result), the pointer lines apart.
cat >live.gdb <<'GDB'
set pagination off
break poly
run
finish
info float
continue
finish
info float
output $mxcsr
echo \n
output $fioff
echo \n
GDB
gdb -nx -batch -x live.gdb "$prog" >native-live.raw 2>&1 || true
"$HWTREC" gdb -batch -x live.gdb -- "$prog" >hwtrec-live.raw 2>&1 || true
for f in native-live hwtrec-live; do
	grep -E '^(=>|  )R[0-7]:|^(Status|Control|Tag) Word|^ +(TOP|PC|RC):' \
		$f.raw >$f.txt || true
done
if [ "$(grep -c 'R7:' native-live.txt)" -ne 2 ] || ! cmp -s native-live.txt hwtrec-live.txt; then
	diff native-live.txt hwtrec-live.txt | head -20
	tail -5 hwtrec-live.raw
	echo "FAIL: live, the x87 state differs from the native run's"
	exit 1
fi
if [ "$(grep -c '^Instruction Pointer: <unavailable>' hwtrec-live.raw)" -ne 2 ] ||
   [ "$(grep -c '^<unavailable>$' hwtrec-live.raw)" -ne 2 ]; then
	tail -8 hwtrec-live.raw
	echo "FAIL: live, the x87 pointers or mxcsr are not <unavailable>"
	exit 1
fi
echo "PASS: $stops stops, the x87 state the same as the live run's at each;"
echo "PASS: live, the same after two finishes as natively"
