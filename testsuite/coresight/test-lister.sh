#!/bin/sh
# Every trace source of both snapshots: our history, instruction by
# instruction and gap by gap, is what OpenCSD's trc_pkt_lister decodes
# (lister-compare.py says what is compared).  Each recording is compared
# twice: as built, then as read back from the index its first open saved
# (history.idx).
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
	echo "== $snap, with the saved index"
	if [ "$("$HWTREC" info --json "$tmp/$snap.hwtrec" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["index"])')" != saved ]; then
		echo "FAIL: $snap: the first open saved no history index"
		status=1
	fi
	python3 "$SRCDIR/lister-compare.py" "$OPENCSD_DATA/$snap" \
		"$tmp/$snap.hwtrec" "$HWTREC" || status=1
done
exit $status
