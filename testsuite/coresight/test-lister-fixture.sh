#!/bin/sh
# Needs no test data: the unit tests' trace with a periodic A-sync in the
# middle of the atoms (../unit/make-etm-snapshot DIR periodic-async) as an
# OpenCSD snapshot; our history, instruction by instruction, is what
# OpenCSD's trc_pkt_lister decodes straight through (lister-compare.py),
# including the atoms after the A-sync that still use the address from
# before it, and `hwtrec dump` lists every chunk on demand.
. "$SRCDIR/coresight-lib.sh"
need_lister
scratch
[ -x "$UNIT_BUILDDIR/make-etm-snapshot" ] || {
	echo "FAIL: $UNIT_BUILDDIR/make-etm-snapshot is not built (make -C testsuite/unit check)"
	exit 1
}
"$UNIT_BUILDDIR/make-etm-snapshot" "$tmp/snap" periodic-async || exit 1
import_snapshot "$tmp/snap" periodic
python3 "$SRCDIR/lister-compare.py" "$tmp/snap" "$tmp/periodic.hwtrec" "$HWTREC"
