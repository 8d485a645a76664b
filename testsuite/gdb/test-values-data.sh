#!/bin/sh
# Values at past positions from the Valgrind source's data log, as GDB shows
# them through hwtrec-server: arguments, locals and globals at stops reached
# by reverse-continue, in frames that returned long ago, a buffer a read()
# filled and later overwritten, registers holding arguments, and finish's
# "Value returned".  The oracle is GDB on the live program run forward
# (native, no hwtrec) printing the same expressions at the same breakpoint
# hits: values that do not depend on addresses, so the two runs agree.
# A watchpoint on the global (the server's, from the data log) fires in
# reverse at each change (old and new values, the function and argument:
# the live run's changes reversed, where GDB's software watchpoint
# stopped), and `break square if counter == 14` stops at the right hit.
# And with --no-data the changed global is never shown with its end value.
set -eu
: "${TESTDIR:?}" "${HWTREC:?}"
prog="$TESTDIR/values-data-prog"
work=$(mktemp -d "${TMPDIR:-/tmp}/hwtrec-values-data.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0

# The values printed at a stop, one line each: "x= sq= counter= rdi= total= i="
# at square's hits, "n= acc=" at depth's, "buffer=" after read().
cat >probe.gdb <<'GDB'
define probe_square
  printf "square x=%d counter=%d rdi=%d", x, counter, (int)$rdi
  up-silently
  printf " total=%d i=%d\n", total, i
  down-silently
end
define probe_depth
  printf "depth n=%d acc=%d counter=%d\n", n, acc, counter
end
GDB

# Oracle: forward, hits 4, 5, 6 of square and the return value of square(6),
# read's buffer, then depth's last three hits; listed below in the order
# reverse execution meets them.
gdb -nx -batch -x probe.gdb -ex 'break square' -ex run \
	-ex 'continue 3' -ex probe_square -ex continue -ex probe_square \
	-ex continue -ex probe_square -ex 'finish' \
	-ex 'delete' -ex 'break read' -ex continue -ex finish \
	-ex 'printf "buffer=%s\n", buffer' \
	-ex 'delete' -ex 'break depth' -ex continue -ex continue -ex continue -ex probe_depth \
	-ex continue -ex probe_depth -ex continue -ex probe_depth \
	"$prog" >oracle.raw 2>&1 || true
grep -E '^(square|depth|buffer=|Value returned)' oracle.raw >oracle.txt
# Reverse order of the hits, as reverse-continue meets them.
{
	grep '^square' oracle.txt | tac
	grep '^depth' oracle.txt | tac
	grep '^buffer=' oracle.txt
	grep '^Value returned' oracle.txt | sed 's/\$[0-9]*/$N/' | sort
} >expected.txt

"$HWTREC" record -q -o rec.hwtrec -- "$prog" >/dev/null 2>record.err || true
[ -s rec.hwtrec/values ] || { cat record.err; echo "FAIL: no data log in the recording"; exit 1; }
"$HWTREC" replay rec.hwtrec -- -batch -x probe.gdb \
	-ex 'break depth' -ex 'reverse-continue' -ex probe_depth \
	-ex 'reverse-continue' -ex probe_depth -ex 'reverse-continue' -ex probe_depth \
	-ex 'delete' -ex 'break read' -ex 'reverse-continue' -ex 'finish' \
	-ex 'printf "buffer=%s\n", buffer' \
	-ex 'delete' -ex 'break square' -ex 'reverse-continue' -ex probe_square \
	-ex 'finish' -ex 'reverse-continue' \
	-ex 'reverse-continue' -ex probe_square -ex 'reverse-continue' -ex probe_square \
	>replay.raw 2>&1 || true
grep -E '^(square|depth|buffer=|Value returned)' replay.raw >replay.txt || true
# The replay met depth first, then read, then square; put it in the
# expected order: square, depth, buffer, value.
{
	grep '^square' replay.txt
	grep '^depth' replay.txt
	grep '^buffer=' replay.txt
	grep '^Value returned' replay.txt | sed 's/\$[0-9]*/$N/' | sort
} >got.txt
echo "expected (native GDB, forward):"; cat expected.txt
echo "got (hwtrec replay, reverse):"; cat got.txt
if [ "$(wc -l <expected.txt)" -lt 8 ]; then
	echo "FAIL: the oracle printed too little"; cat oracle.raw; fail=1
elif ! diff -u expected.txt got.txt; then
	echo "FAIL: values at past positions differ from the live run's"; tail -40 replay.raw; fail=1
else
	echo "ok: $(wc -l <got.txt) stops' values equal the live run's"
fi

# A watchpoint fires in reverse where the global changed, and a
# condition on data picks the right hit: against the live program run
# forward (the same changes, met in the other order, old and new swapped).
gdb -nx -batch -ex 'break main' -ex run -ex 'set can-use-hw-watchpoints 0' \
	-ex 'watch counter' -ex continue -ex continue -ex continue -ex continue \
	-ex continue -ex continue -ex delete -ex 'break square if counter == 14' \
	-ex run -ex 'printf "cond x=%d\n", x' "$prog" >watch-oracle.raw 2>&1 || true
changes() {	# "OLD->NEW in FUNCTION (ARGS)" per watchpoint stop
	awk '/^Old value = /{o=$4} /^New value = /{n=$4; getline; sub(/^0x[0-9a-f]+ in /, ""); sub(/ at .*/, ""); print o "->" n " in " $0}' "$1"
}
changes watch-oracle.raw | tac | awk -F'->| in ' '{print $2 "->" $1 " in " $3}' >watch-expected.txt
grep '^cond ' watch-oracle.raw >>watch-expected.txt
# (With the data log GDB's watchpoint is the server's hardware one.)
"$HWTREC" replay rec.hwtrec -- -batch -ex 'watch counter' \
	-ex reverse-continue -ex reverse-continue -ex reverse-continue \
	-ex reverse-continue -ex reverse-continue -ex reverse-continue >watch.raw 2>&1 || true
"$HWTREC" replay rec.hwtrec -- -batch -ex 'break square if counter == 14' \
	-ex reverse-continue -ex 'printf "cond x=%d\n", x' >cond.raw 2>&1 || true
{ changes watch.raw; grep '^cond ' cond.raw || true; } >watch-got.txt
echo "watchpoint and condition, expected (reversed live run):"; cat watch-expected.txt
if [ "$(wc -l <watch-expected.txt)" -ne 7 ]; then
	echo "FAIL: the oracle's watchpoint run printed too little"; cat watch-oracle.raw; fail=1
elif ! diff -u watch-expected.txt watch-got.txt; then
	echo "FAIL: reverse watchpoint or condition differs from the live run's"; tail -30 watch.raw; fail=1
else
	echo "ok: 6 reverse watchpoint stops and a data condition agree"
fi
# The same with plain GDB, the plugin loaded as its gdbinit file loads it
# and `target remote | hwtrec-server` typed by hand (no command line that
# sets the watchpoint limit): with the data log the plugin leaves GDB's
# hardware watchpoints on (the server's), and the limit is the user's
# after `disconnect`.
gdb -nx -q -batch -ex "python import sys; sys.path.insert(0, '$HWTREC_PYTHONDIR'); import hwtrecord" \
	-ex "target remote | $HWTREC_SERVER rec.hwtrec" -ex 'watch counter' \
	-ex reverse-continue -ex reverse-continue -ex reverse-continue \
	-ex reverse-continue -ex reverse-continue -ex reverse-continue \
	-ex disconnect -ex 'show remote hardware-watchpoint-limit' \
	"$prog" >watch-plain.raw 2>&1 || true
grep -v '^cond ' watch-expected.txt >watch-changes-expected.txt
changes watch-plain.raw >watch-plain-got.txt
if ! diff -u watch-changes-expected.txt watch-plain-got.txt; then
	echo "FAIL: plain target remote: reverse watchpoint stops differ"; tail -30 watch-plain.raw; fail=1
elif ! grep -q 'hardware watchpoints is unlimited' watch-plain.raw; then
	echo "FAIL: the watchpoint limit was not given back after disconnect"; tail -5 watch-plain.raw; fail=1
else
	echo "ok: plain target remote: 6 reverse watchpoint stops agree, limit restored"
fi

# Without data: the global changed after the stop is never shown with its
# end value (GDB says it cannot access it, or shows what is known).
"$HWTREC" record -q --no-data -o nodata.hwtrec -- "$prog" >/dev/null 2>&1 || true
end=$(gdb -nx -batch -ex 'print counter' "$prog" nodata.hwtrec/core 2>&1 | sed -n 's/^\$1 = //p')
"$HWTREC" replay nodata.hwtrec -- -batch -ex 'break square' -ex 'reverse-continue' \
	-ex 'print counter' >nodata.raw 2>&1 || true
past=$(sed -n 's/^\$1 = //p' nodata.raw)
if [ -z "$end" ] || [ "$past" = "$end" ]; then
	echo "FAIL: without data, counter at square's last hit shows '$past' (end value '$end')"
	tail -20 nodata.raw; fail=1
else
	echo "ok: without data, counter is not shown with its end value $end ($(grep -c 'Cannot access memory' nodata.raw) 'Cannot access memory')"
fi

# Valgrind's core says 0 for cs, ss and fs_base, values the process never
# had: at the end of a software recording the server shows the selectors
# Linux gives every x86-64 process (as GDB on the live program shows them)
# and fs_base from the data log, or, without one, as unknown.
gdb -nx -batch -ex 'break main' -ex run -ex 'printf "sel cs=%#x ss=%#x\n", $cs, $ss' \
	"$prog" >sel-oracle.raw 2>&1 || true
grep '^sel ' sel-oracle.raw >sel-expected.txt || true
for rec in rec nodata; do
	"$HWTREC" replay $rec.hwtrec -- -batch \
		-ex 'printf "sel cs=%#x ss=%#x\n", $cs, $ss' -ex 'output $fs_base' \
		-ex 'echo \n' >sel-$rec.raw 2>&1 || true
done
fs_data=$(sed -n 's/^\(0x[0-9a-f]*\|[0-9][0-9]*\|<unavailable>\)$/\1/p' sel-rec.raw)
fs_nodata=$(sed -n 's/^\(0x[0-9a-f]*\|[0-9][0-9]*\|<unavailable>\)$/\1/p' sel-nodata.raw)
if [ "$(cat sel-expected.txt)" != "sel cs=0x33 ss=0x2b" ] ||
	! grep -qx "$(cat sel-expected.txt)" sel-rec.raw ||
	! grep -qx "$(cat sel-expected.txt)" sel-nodata.raw; then
	echo "FAIL: selectors at the end differ from the live program's ($(cat sel-expected.txt))"
	cat sel-rec.raw sel-nodata.raw; fail=1
elif [ -z "$fs_data" ] || [ "$fs_data" = 0 ] || [ "$fs_data" = "<unavailable>" ] ||
	[ "$fs_nodata" != "<unavailable>" ]; then
	echo "FAIL: fs_base at the end: '$fs_data' with data (want the TLS pointer), '$fs_nodata' without (want <unavailable>)"
	fail=1
else
	echo "ok: at the end $(cat sel-expected.txt) as live, fs_base $fs_data with data, $fs_nodata without"
fi
exit "$fail"
