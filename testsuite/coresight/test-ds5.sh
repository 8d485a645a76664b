#!/bin/sh
# juno_r1_1's cores that Arm DS-5 reported instruction by instruction: our
# instruction addresses are DS-5's (ds5-compare.py, with the one known
# difference it checks).
. "$SRCDIR/coresight-lib.sh"
need_snapshots
scratch
import_snapshot "$OPENCSD_DATA/juno_r1_1" juno
python3 "$SRCDIR/ds5-compare.py" "$OPENCSD_DATA/juno_r1_1/ds-5-dumps" \
	"$tmp/juno.hwtrec" "$HWTREC"
