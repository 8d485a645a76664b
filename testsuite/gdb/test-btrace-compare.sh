#!/bin/sh
# test-btrace-compare: GDB's own Intel PT decoder (record btrace pt, fed the
# raw trace by hwtrec-server's btrace mode) and libhwtrecord list the same
# function-call history of a recorded crash: same segments, call levels and
# instruction ranges, same functions (see btrace-compare.py for the known,
# counted naming differences).  The program runs with LD_BIND_NOW=1 so that
# PLT stubs are one jump (GDB splits lazy-binding stubs at its synthetic
# NAME@plt symbols).
set -eu
: "${HWTREC_SERVER:?}" "${TESTDIR:?}" "${SRCDIR:?}" "${HWTREC:?}"
[ -x "$HWTREC" ] || { echo "SKIP: $HWTREC not built"; exit 77; }
work=$(mktemp -d /tmp/hwtrec-btrace-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
status=0
(ulimit -c unlimited; LD_BIND_NOW=1 "$HWTREC" record -o rec.hwtrec -- \
	"$TESTDIR/crash-threads" >/dev/null 2>record.err) || status=$?
if [ ! -f rec.hwtrec/manifest.json ]; then
	cat record.err
	case "$status" in 125) echo "SKIP: the recorder cannot run here"; exit 77;; esac
	echo "FAIL: no recording (status $status)"; exit 1
fi
gdb -nx -batch -ex "target remote | $HWTREC_SERVER rec.hwtrec" \
	-x "$SRCDIR/btrace-compare.py" > compare.out 2>&1 || true
cat compare.out
grep -q '^btrace-compare: PASS$' compare.out
