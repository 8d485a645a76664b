#!/bin/sh
# test-perf-reader.sh: formats/perf-data.c on files perf itself writes.  perf
# record with a software event (this machine has no Intel PT and no hardware
# counters) gives a real perf.data with COMM, MMAP2, FORK and EXIT records,
# several attrs and feature sections; our reader must list the same records
# as `perf report -D` and the same build-ids as `perf buildid-list`, and
# import must say the file holds no trace.
. "$PERF_TESTS/testlib.sh"
need_perf
build threads -pthread
perf record -q -e dummy:u -o real.data -- ./threads >/dev/null 2>perf.err ||
	skip "perf record does not work here: $(head -1 perf.err)"
perf report -D -i real.data 2>/dev/null | python3 -c '
import re, sys
for line in sys.stdin:
    m = re.search(r"PERF_RECORD_COMM( exec)?: (\S+):(\d+)/(\d+)", line)
    if m:
        print("COMM%s %s:%s/%s" % (m.group(1) or "", m.group(2), m.group(3), m.group(4)))
    m = re.search(r"PERF_RECORD_MMAP2 (\d+)/(\d+): \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)[ \]].*\]: \S+ (.*)$", line)
    if m:
        off = m.group(5) if m.group(5).startswith("0x") else "0x0"
        print(f"MMAP2 {m.group(1)}/{m.group(2)}: [{m.group(3)}({m.group(4)}) @ {off}]: {m.group(6)}")
    m = re.search(r"PERF_RECORD_(FORK|EXIT)\((\d+):(\d+)\):\((\d+):(\d+)\)", line)
    if m:
        print(f"{m.group(1)}({m.group(2)}:{m.group(3)}):({m.group(4)}:{m.group(5)})")
' | sort > perf.records
"$DUMP" real.data > ours.all 2>dump.err || { cat dump.err; fail "our reader refused perf's file"; }
# perf report -D lists records in time order, we in file order: as sets.
grep -v '^BUILD_ID' ours.all | sort > ours.records
[ -s perf.records ] || fail "perf report -D listed nothing"
diff perf.records ours.records > diff.out ||
	{ head -20 diff.out; fail "our reader and perf report -D disagree"; }
echo "records: $(grep -c . ours.records) (COMM $(grep -c ^COMM ours.records)," \
	"MMAP2 $(grep -c ^MMAP2 ours.records), FORK $(grep -c ^FORK ours.records)," \
	"EXIT $(grep -c ^EXIT ours.records)) as perf report -D lists them"
perf buildid-list -i real.data 2>/dev/null | sort > perf.ids
grep '^BUILD_ID' ours.all | cut -d' ' -f2- | sort > ours.ids
[ -s perf.ids ] || fail "perf buildid-list listed nothing"
diff perf.ids ours.ids || fail "build-ids differ from perf buildid-list"
echo "build-ids: $(wc -l < ours.ids) as perf buildid-list lists them"
rc=0
"$HWTREC" import real.data -o real.hwtrec 2>err || rc=$?
[ $rc -eq 1 ] && grep -q "real.data: no AUXTRACE_INFO record" err ||
	{ cat err; fail "import of a file without trace: exit $rc"; }
echo "PASS"
