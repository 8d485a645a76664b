#!/bin/sh
# The OpenCSD snapshots through perf.data (issue 6): each imported snapshot
# is exported with `hwtrec export --perf` as a cs_etm perf.data; perf's own
# reader (perf report -D) must find each trace unit with its CPU, trace ID
# and registers; importing the file again must give the same instruction
# and function-call histories; and for the uname snapshot (user code that
# perf can read from the files the export names) perf's own decoder
# (perf script) must list the same instructions per CPU.  The perf checks
# are skipped without perf.
. "$SRCDIR/coresight-lib.sh"
need_snapshots
scratch
have_perf=no
if command -v perf >/dev/null 2>&1 && perf version >/dev/null 2>&1; then
	have_perf=yes
	export HOME="$tmp" PERF_BUILDID_DIR="$tmp/.debug"
fi
for snap in juno_r1_1 juno-uname-002; do
	import_snapshot "$OPENCSD_DATA/$snap" "$snap"
	"$HWTREC" export --perf "$tmp/$snap.hwtrec" -o "$tmp/$snap.data" ||
		{ echo "FAIL: export of $snap"; exit 1; }
	if [ $have_perf = yes ]; then
		perf report -D -i "$tmp/$snap.data" >"$tmp/$snap.report" 2>/dev/null ||
			{ echo "FAIL: perf report -D refuses the export of $snap"; exit 1; }
		python3 "$SRCDIR/perf-compare.py" units "$tmp/$snap.hwtrec" \
			"$tmp/$snap.report" || { echo "FAIL: $snap: perf's reading"; exit 1; }
	fi
	"$HWTREC" import "$tmp/$snap.data" -o "$tmp/$snap-rt.hwtrec" 2>"$tmp/$snap.err" ||
		{ cat "$tmp/$snap.err"; echo "FAIL: import of the export of $snap"; exit 1; }
	for listing in "--insn" "--insn /r" "--calls" "--calls /c /i /l"; do
		# shellcheck disable=SC2086
		"$HWTREC" dump "$tmp/$snap.hwtrec" $listing >"$tmp/a" &&
		"$HWTREC" dump "$tmp/$snap-rt.hwtrec" $listing >"$tmp/b" ||
			{ echo "FAIL: $snap: dump $listing"; exit 1; }
		if ! cmp -s "$tmp/a" "$tmp/b"; then
			echo "FAIL: $snap: dump $listing differs after the round trip:"
			diff "$tmp/a" "$tmp/b" | head -5
			exit 1
		fi
	done
	echo "$snap: $(wc -l <"$tmp/a") function segments, the same listings after export and import"
done
if [ $have_perf = yes ]; then
	perf script -i "$tmp/juno-uname-002.data" --itrace=i1i -F cpu,ip \
		>"$tmp/uname.script" 2>"$tmp/uname.script.err" ||
		{ cat "$tmp/uname.script.err"; echo "FAIL: perf script"; exit 1; }
	python3 "$SRCDIR/perf-compare.py" insns "$tmp/juno-uname-002.hwtrec" "$HWTREC" \
		"$tmp/uname.script" || { echo "FAIL: uname: perf's decoder"; exit 1; }
else
	echo "perf not found: perf's reading and decoding not checked"
fi
echo PASS
