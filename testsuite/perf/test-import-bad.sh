#!/bin/sh
# test-import-bad.sh: perf.data files that are damaged, from elsewhere or of
# a kind we do not read are refused with a message naming the file (and the
# offset), or read with a warning for what was skipped; never a crash.
. "$PERF_TESTS/testlib.sh"
build loops
record loops
"$HWTREC" dump loops.hwtrec --insn > loops.insn
"$HWTREC" export --perf loops.hwtrec -o good.data 2>/dev/null
edit() { cp good.data bad.data; python3 "$PERF_TESTS/perf-data-edit.py" bad.data "$@"; }

# refused EXPECT...: import bad.data fails (exit 1, no signal) and says each
refused() {
	rm -rf bad.hwtrec
	rc=0
	"$HWTREC" import bad.data -o bad.hwtrec 2>err || rc=$?
	[ $rc -eq 1 ] || { cat err; fail "$case: exit $rc, not 1"; }
	grep -q "bad.data" err || { cat err; fail "$case: the file is not named"; }
	for want in "$@"; do
		grep -q -- "$want" err || { cat err; fail "$case: no '$want'"; }
	done
	echo "$case: $(head -1 err)"
}

case="other byte order"; edit magic 0x50455246494c4532; refused "other byte order"
case="version 1"; cp good.data bad.data; printf 'PERFFILE' | dd of=bad.data conv=notrunc 2>/dev/null
refused "old-format perf.data"
case="newer header"; edit header-size 200; refused "header size 200" "newer layout"
case="pipe mode"; edit header-size 16; refused "pipe-mode"
case="not perf.data"; printf 'hello' > bad.data; refused "too short"
case="cut in the header"; edit truncate 60; refused "header is cut off"
case="cut in the attrs"; edit truncate 200; refused "attrs section"
case="no AUXTRACE_INFO"; edit set-type 70 120; refused "no AUXTRACE_INFO record"
# Intel PT's words read as CoreSight's: its PMU type is no header version.
case="CoreSight type, Intel PT words"; edit auxtrace-info-type 3
refused "offset" "CoreSight AUXTRACE_INFO version 8: written by a newer perf"
case="Arm SPE"; edit auxtrace-info-type 4; refused "type 4 (Arm SPE)" "Intel PT (type 1) and CoreSight ETM (type 3) only"
case="AUXTRACE size lies"; edit auxtrace-size 99999999; refused "AUXTRACE record at offset" "runs past"
case="record size not a multiple of 8"; edit record-size 3 42; refused "offset" "COMM record of size 42"
case="record size 0"; edit record-size 3 0; refused "offset" "size 0"

# Cut in the middle of the trace: the data section runs past the end.
size=$(wc -c < good.data)
case="cut in the trace"; edit truncate $((size / 2)); refused "truncated" "AUXTRACE record at offset"

# An unknown record type is skipped with a warning; the history is whole.
case="unknown type"; edit set-type 68 120
rm -rf bad.hwtrec
"$HWTREC" import bad.data -o bad.hwtrec 2>err || { cat err; fail "$case: refused"; }
grep -q "1 record of type 120 (unknown perf.data), the first at offset [0-9]*, skipped" err ||
	{ cat err; fail "$case: no warning"; }
"$HWTREC" dump bad.hwtrec --insn > bad.insn
cmp -s loops.insn bad.insn || fail "$case: history differs"
echo "$case: $(cat err)"

# An MMAP2 record with event id 0 (what the kernel writes for records of no
# event): perf reads it as the first event's, lists it and decodes the same
# instructions; so do we.
case="MMAP2 with event id 0"; edit record-id 10 0
perf script -i bad.data --show-mmap-events 2>/dev/null | grep -q "PERF_RECORD_MMAP2 .*r-xp .*/loops$" ||
	fail "$case: perf does not list the edited MMAP2"
[ "$(perf script -i bad.data --itrace=i1i -F ip 2>/dev/null | md5sum)" = \
  "$(perf script -i good.data --itrace=i1i -F ip 2>/dev/null | md5sum)" ] ||
	fail "$case: perf decodes the edited file differently"
rm -rf bad.hwtrec
"$HWTREC" import bad.data -o bad.hwtrec 2>err || { cat err; fail "$case: refused"; }
"$HWTREC" dump bad.hwtrec --insn > bad.insn
cmp -s loops.insn bad.insn || fail "$case: history differs"
echo "$case: imported, the same history"

# More --debug-dir options than it keeps: said, not dropped.
rc=0
"$HWTREC" import --debug-dir a --debug-dir b --debug-dir c --debug-dir d \
	--debug-dir e --debug-dir f --debug-dir g --debug-dir h --debug-dir i \
	good.data -o nine.hwtrec 2>err || rc=$?
[ $rc = 2 ] && grep -q "at most 8 --debug-dir options" err ||
	{ cat err; fail "nine --debug-dir: exit $rc"; }

# A long address filter (perf record --filter) makes AUXTRACE_INFO longer
# than the fixed words: 600 bytes are 76 more words; imported as usual.
case="long address filter"; edit auxtrace-info-filter 600
perf script -D -i bad.data 2>/dev/null | grep -q "Filter string len\. *600" ||
	fail "$case: perf does not read the edited file's filter"
rm -rf bad.hwtrec
"$HWTREC" import bad.data -o bad.hwtrec 2>err || { cat err; fail "$case: refused"; }
"$HWTREC" dump bad.hwtrec --insn > bad.insn
cmp -s loops.insn bad.insn || fail "$case: history differs"
echo "$case: imported, the same history"

# An address filter (perf record --filter): perf reads the string, and the
# recording keeps it (manifest pt.address_filter).
case="address filter kept"
edit auxtrace-info-filter 0 "filter main @ $work/loops"
perf script -D -i bad.data 2>/dev/null | grep -q "Filter string  *filter main @ $work/loops$" ||
	fail "$case: perf does not read the edited file's filter"
rm -rf bad.hwtrec
"$HWTREC" import bad.data -o bad.hwtrec 2>err || { cat err; fail "$case: refused"; }
got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pt"].get("address_filter"))' \
	bad.hwtrec/manifest.json)
[ "$got" = "filter main @ $work/loops" ] || fail "$case: manifest has '$got'"
"$HWTREC" export --perf bad.hwtrec -o again.data 2>/dev/null || fail "$case: export"
perf script -D -i again.data 2>/dev/null | grep -q "Filter string  *filter main @ $work/loops$" ||
	fail "$case: the exported perf.data lost the filter"
echo "$case: $got (exported again)"
echo "PASS"
