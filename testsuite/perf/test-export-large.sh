#!/bin/sh
# test-export-large.sh: hwtrec export --perf of a trace larger than one
# AUXTRACE record (1 MiB) loses nothing, in both layouts.  mkrec-long
# writes a long Intel PT recording (libipt's encoder over long-loop.S; it
# prints the instruction count, the oracle); perf's own decoder
# (`perf script --itrace=i0ns`, one sample per instruction) must count
# exactly those instructions and report no "Bad packet".  Before records
# ended between packets, the per-CPU layout split a long TNT packet across
# two records and perf lost the trace up to the next PSB.  `hwtrec import`
# of each must hold the same count, with no gap.
. "$PERF_TESTS/testlib.sh"
: "${MKREC_LONG:?}" "${LONG_CODE:?}"
need_perf

# 6.5 M iterations: about 1.1 MB of trace, so two AUXTRACE records.
insns=$("$MKREC_LONG" "$LONG_CODE" long.hwtrec 6500000) || fail "mkrec-long failed"
size=$(wc -c < long.hwtrec/trace/1.pt)
[ "$size" -gt 1048576 ] || fail "the trace ($size bytes) fits one AUXTRACE record"
for layout in per-thread per-cpu; do
	"$HWTREC" export --perf --layout=$layout long.hwtrec -o long.data 2>export.err ||
		{ cat export.err; fail "$layout: export failed"; }
	records=$(perf script -i long.data -D 2>/dev/null | grep -c 'PERF_RECORD_AUXTRACE ') || true
	[ "$records" -ge 2 ] || fail "$layout: $records AUXTRACE records, want 2 or more"
	perf script -i long.data --itrace=i0nse -F ip > perf.out 2>perf.err ||
		{ cat perf.err; fail "$layout: perf script failed"; }
	bad=$(grep -c 'trace error.*Bad packet' perf.out) || true
	[ "$bad" = 0 ] || { grep 'trace error' perf.out | head -3; fail "$layout: $bad Bad packet errors"; }
	got=$(grep -c '^ *[0-9a-f]\+$' perf.out) || true
	[ "$got" = "$insns" ] || fail "$layout: perf counts $got instructions, mkrec-long wrote $insns"
	# Our import joins the records again (perf pads each to 8 bytes and
	# starts the next at the unpadded end: the padding is not data).
	rm -rf back.hwtrec
	"$HWTREC" import long.data -o back.hwtrec 2>import.err ||
		{ cat import.err; fail "$layout: import failed"; }
	! grep -q "not packets" import.err || { cat import.err; fail "$layout: import lost trace"; }
	"$HWTREC" info back.hwtrec > info.out
	grep -q "thread 1: $insns instructions, .* 0 gaps" info.out ||
		{ cat info.out; fail "$layout: the import has not $insns instructions"; }
	echo "$layout: $records AUXTRACE records, $got instructions, no Bad packet; imported whole"
done
