#!/bin/sh
# GDB on Arm code: hwtrec replay (gdb-multiarch) on the uname snapshot,
# reverse-stepi, reverse-continue to a breakpoint, continue, reverse-step
# out of a function with symbols, the history commands; every stop against
# OpenCSD's lister (replay-arm.py).
. "$SRCDIR/coresight-lib.sh"
need_snapshots
need_lister
if ! command -v gdb-multiarch >/dev/null 2>&1; then
	echo "SKIP: gdb-multiarch not found (apt-get install gdb-multiarch)"
	exit 77
fi
scratch
import_snapshot "$OPENCSD_DATA/juno-uname-002" uname
# The plugin and server come from the build tree (hwtrec replay finds them).
python3 "$SRCDIR/lister-compare.py" "$OPENCSD_DATA/juno-uname-002" \
	"$tmp/uname.hwtrec" "$HWTREC" >/dev/null || exit 1
python3 "$SRCDIR/replay-arm.py" "$OPENCSD_DATA/juno-uname-002" \
	"$tmp/uname.hwtrec" "$HWTREC"
