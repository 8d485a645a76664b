#!/bin/sh
# Every trace source of both snapshots: our history, instruction by
# instruction and gap by gap, is what OpenCSD's trc_pkt_lister decodes
# (lister-compare.py says what is compared).
. "$SRCDIR/coresight-lib.sh"
need_snapshots
need_lister
scratch
status=0
for snap in juno_r1_1 juno-uname-002; do
	import_snapshot "$OPENCSD_DATA/$snap" "$snap"
	echo "== $snap"
	python3 "$SRCDIR/lister-compare.py" "$OPENCSD_DATA/$snap" \
		"$tmp/$snap.hwtrec" "$HWTREC" || status=1
done
exit $status
