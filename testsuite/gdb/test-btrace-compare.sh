#!/bin/sh
# test-btrace-compare: GDB's own Intel PT decoder (record btrace pt, fed the
# raw trace by hwtrec-server's btrace mode) and libhwtrecord list the same
# function-call history of a recorded crash: same segments, call levels and
# instruction ranges, same functions (see btrace-compare.py for the known,
# counted naming differences), on a C program with threads and on a C++
# one that catches exceptions.  The program runs with LD_BIND_NOW=1 so that
# PLT stubs are one jump (GDB splits lazy-binding stubs at its synthetic
# NAME@plt symbols).
set -eu
: "${HWTREC_SERVER:?}" "${TESTDIR:?}" "${SRCDIR:?}" "${HWTREC:?}"
[ -x "$HWTREC" ] || { echo "SKIP: $HWTREC not built"; exit 77; }
work=$(mktemp -d /tmp/hwtrec-btrace-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
# compare PROGRAM NAME: record PROGRAM's crash, list both histories.
compare() {
	status=0
	(ulimit -c unlimited; LD_BIND_NOW=1 "$HWTREC" record -o "$2.hwtrec" -- \
		"$1" >/dev/null 2>record.err) || status=$?
	if [ ! -f "$2.hwtrec/manifest.json" ]; then
		cat record.err
		case "$status" in 125) echo "SKIP: the recorder cannot run here"; exit 77;; esac
		echo "FAIL: $2: no recording (status $status)"; exit 1
	fi
	gdb -nx -batch -ex "target remote | $HWTREC_SERVER $2.hwtrec" \
		-x "$SRCDIR/btrace-compare.py" > "$2.out" 2>&1 || true
	sed "s/^/$2: /" "$2.out"
	grep -q '^btrace-compare: PASS$' "$2.out"
}
compare "$TESTDIR/crash-threads" c
# C++: exception handling jumps from _Unwind_DeleteException to a cleanup
# without a symbol, a tail call for GDB, as long as no function up the
# stack is unnamed too (ld.so's _start, a local label, once was: then every
# level after the first caught exception was off by 8).
compare "$TESTDIR/cxx-catch" cxx
