#!/bin/sh
# cs_etm perf.data files made here (no shared test data needed): the
# unit tests' snapshot of one trace unit whose raw trace (source_data)
# carries two context IDs (../unit/make-etm-snapshot.c) is imported,
# exported with `hwtrec export --perf` and imported again:
#   - the round trip keeps a raw stream (AUX records say FORMAT_RAW) and
#     splits the unit into a thread per context ID again: the same
#     instruction and function-call histories;
#   - an AUX record with TRUNCATED becomes a gap that names the loss, after
#     which nothing is read as a continuation (the rest has no A-sync), and
#     the loss survives another round trip;
#   - AUXTRACE_INFO words that lie are refused with the file, the offset
#     and the word; trace units that cannot be decoded (no trace ID, ETMv3)
#     are left out with a warning.
. "$SRCDIR/coresight-lib.sh"
scratch
edit_tool="$PERF_TESTS/perf-data-edit.py"
[ -x "$UNIT_BUILDDIR/make-etm-snapshot" ] || {
	echo "FAIL: $UNIT_BUILDDIR/make-etm-snapshot is not built (make -C testsuite/unit check)"
	exit 1; }
"$UNIT_BUILDDIR/make-etm-snapshot" "$tmp/snap" || exit 1
import_snapshot "$tmp/snap" s
"$HWTREC" export --perf "$tmp/s.hwtrec" -o "$tmp/good.data" || exit 1

fail() { echo "FAIL: $*"; exit 1; }

# same A B: the two recordings' listings are equal.
same() {
	for listing in "--insn" "--insn /r" "--calls" "--calls /c /i"; do
		# shellcheck disable=SC2086
		"$HWTREC" dump "$1" $listing >"$tmp/a" && "$HWTREC" dump "$2" $listing >"$tmp/b" ||
			fail "$case: dump $listing"
		cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b" | head -5; fail "$case: dump $listing differs"; }
	done
}

case="round trip"
"$HWTREC" import "$tmp/good.data" -o "$tmp/rt.hwtrec" 2>"$tmp/err" || { cat "$tmp/err"; fail "$case: import"; }
grep -q "the trace unit of cpu_0 traces 2 context IDs: a thread for each" "$tmp/err" ||
	{ cat "$tmp/err"; fail "$case: no split by context ID"; }
grep -q '"formatted": false' "$tmp/rt.hwtrec/manifest.json" || fail "$case: the raw stream became frames"
same "$tmp/s.hwtrec" "$tmp/rt.hwtrec"
echo "$case: the same histories, threads $(grep -o '"tid": [0-9]*' "$tmp/rt.hwtrec/manifest.json" | tr -d '"tid: ' | tr '\n' ' ')"

edit() { cp "$tmp/good.data" "$tmp/bad.data"; python3 "$edit_tool" "$tmp/bad.data" "$@"; }

# A loss 40 bytes into the 73-byte raw stream (the AUX record keeps its
# FORMAT_RAW flag, 0x100).
case="AUX TRUNCATED"
edit aux-truncated 40 0x101
"$HWTREC" import "$tmp/bad.data" -o "$tmp/lossy.hwtrec" 2>"$tmp/err" || { cat "$tmp/err"; fail "$case: import"; }
"$HWTREC" dump "$tmp/lossy.hwtrec" --insn >"$tmp/lossy.insn" || fail "$case: dump"
want="$(printf '1\t   0x0000000000001000:\tmovz\tx0, #0x3\n2\t   0x0000000000001004:\tbl\t0x1020\n3\t   0x0000000000001020:\tnop\n4\t   0x0000000000001024:\tret\n5\t[decode error (-1): trace lost at offset 40: perf'"'"'s AUX buffer was full: the kernel dropped trace until there was room]')"
[ "$(cat "$tmp/lossy.insn")" = "$want" ] || { cat "$tmp/lossy.insn"; fail "$case: not the prefix and the gap"; }
"$HWTREC" export --perf "$tmp/lossy.hwtrec" -o "$tmp/lossy.data" &&
"$HWTREC" import "$tmp/lossy.data" -o "$tmp/lossy-rt.hwtrec" 2>/dev/null || fail "$case: round trip"
same "$tmp/lossy.hwtrec" "$tmp/lossy-rt.hwtrec"
echo "$case: a gap at offset 40, kept by the round trip"

# refused EXPECT...: import bad.data fails (exit 1) naming the file and each
refused() {
	rm -rf "$tmp/bad.hwtrec"
	rc=0
	"$HWTREC" import "$tmp/bad.data" -o "$tmp/bad.hwtrec" 2>"$tmp/err" || rc=$?
	[ $rc -eq 1 ] || { cat "$tmp/err"; fail "$case: exit $rc, not 1"; }
	for want in bad.data "$@"; do
		grep -q -- "$want" "$tmp/err" || { cat "$tmp/err"; fail "$case: no '$want'"; }
	done
	[ ! -e "$tmp/bad.hwtrec" ] || fail "$case: a recording was left"
	echo "$case: $(tail -1 "$tmp/err")"
}

# Words: 0 version, 1 PMU type << 32 | CPUs, 2 snapshot; the unit's block:
# 3 magic, 4 CPU, 5 parameter count, 6 TRCCONFIGR, 7 TRCTRACEIDR, ...
case="newer version"; edit auxtrace-info-word 0 3; refused "offset" "version 3: written by a newer perf"
case="no CPU"; edit auxtrace-info-word 1 0x900000000; refused "says 0 CPUs"
case="unknown magic"; edit auxtrace-info-word 3 0x6060606060606060
refused "word 3: CPU block 0 has magic 0x6060606060606060"
case="count past the end"; edit auxtrace-info-word 5 1000; refused "(word 3) runs past the 13 private words"
case="too few parameters"; edit auxtrace-info-word 5 3; refused "the ETMv4 block of CPU 0 has 3 parameters"
case="no trace ID"; edit auxtrace-info-word 7 0
refused "CPU 0: its trace unit has no trace ID" "names no ETMv4 or ETE trace unit with a trace ID"
case="trace ID in AUX_OUTPUT_HW_ID, which is missing"; edit auxtrace-info-word 0 2
python3 "$edit_tool" "$tmp/bad.data" auxtrace-info-word 7 0x80000010
refused "TRCTRACEIDR 0x80000010, no AUX_OUTPUT_HW_ID record"
case="ETMv3"; edit auxtrace-info-word 3 0x3030303030303030
refused "CPU 0 has an ETMv3/PTM trace unit: only ETMv4 and ETE are decoded"
echo PASS
