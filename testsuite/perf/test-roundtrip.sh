#!/bin/sh
# test-roundtrip.sh: hwtrec import of what hwtrec export --perf writes, in
# every layout (per-thread with and without TSC, per-CPU over one and two
# CPUs with switch records, snapshot), gives a recording whose instruction
# and function-call histories are those of the original.  Then: a binary
# found only in perf's build-id cache is copied into the recording; one
# found nowhere is named; an AUX record flagged TRUNCATED becomes a gap
# after which decoding resumes with the original's instructions; 70 losses
# are 70 TRUNCATED AUX records.
. "$PERF_TESTS/testlib.sh"

for prog in loops threads plt; do
	case $prog in threads) build $prog -pthread ;; *) build $prog ;; esac
	record $prog
	"$HWTREC" dump $prog.hwtrec --insn > $prog.insn
	"$HWTREC" dump $prog.hwtrec --calls /c > $prog.calls
	for layout in "" "--no-tsc" "--layout=per-cpu" "--layout=per-cpu --cpus 1" \
		"--snapshot"; do
		rm -rf back.hwtrec
		# shellcheck disable=SC2086
		"$HWTREC" export --perf $prog.hwtrec -o x.data $layout 2>/dev/null
		"$HWTREC" import x.data -o back.hwtrec 2>import.err ||
			{ cat import.err; fail "$prog $layout: import failed"; }
		"$HWTREC" dump back.hwtrec --insn > back.insn
		"$HWTREC" dump back.hwtrec --calls /c > back.calls
		cmp -s $prog.insn back.insn ||
			{ diff $prog.insn back.insn | head; fail "$prog $layout: instructions differ"; }
		cmp -s $prog.calls back.calls ||
			{ diff $prog.calls back.calls | head; fail "$prog $layout: calls differ"; }
		echo "$prog ${layout:-per-thread}: $(grep -c '^[0-9]' back.insn) instructions," \
			"$(grep -c '^[0-9]' back.calls) function segments equal"
	done
done

# A binary that moved away: perf's build-id cache has it (~/.debug/.build-id/
# xx/rest is a directory holding "elf").
mkdir app && cp loops app/loops
(cd app && "$HWTREC" record -q --source=valgrind -o ../moved.hwtrec -- ./loops >/dev/null)
"$HWTREC" dump moved.hwtrec --insn > moved.insn
"$HWTREC" export --perf moved.hwtrec -o moved.data 2>/dev/null
id=$(readelf -n loops | awk '/Build ID/ { print $3 }')
mkdir -p "$PERF_BUILDID_DIR/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)"
mv app/loops "$PERF_BUILDID_DIR/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)/elf"
"$HWTREC" import moved.data -o cached.hwtrec 2>import.err ||
	{ cat import.err; fail "import with the binary in the cache failed"; }
[ -f "cached.hwtrec/objects/$id" ] || fail "the binary was not copied into the recording"
"$HWTREC" dump cached.hwtrec --insn > cached.insn
cmp -s moved.insn cached.insn || fail "history from the cached binary differs"
echo "binary from perf's build-id cache: $(grep -c '^[0-9]' cached.insn) instructions equal"
rm -rf "$PERF_BUILDID_DIR"
"$HWTREC" import moved.data -o missing.hwtrec 2>import.err ||
	{ cat import.err; fail "import with a missing binary failed"; }
grep -q "missing binary $work/app/loops (build-id $id)" import.err ||
	{ cat import.err; fail "the missing binary is not named"; }
"$HWTREC" info missing.hwtrec | grep -q "missing binary $work/app/loops" ||
	fail "hwtrec info does not name the missing binary"
echo "missing binary named: $work/app/loops ($id)"

# TRUNCATED: the first AUX record says the buffer filled after 2 KiB.
"$HWTREC" export --perf loops.hwtrec -o cut.data
python3 "$PERF_TESTS/perf-data-edit.py" cut.data aux-truncated 2048
"$HWTREC" import cut.data -o cut.hwtrec 2>/dev/null
"$HWTREC" info cut.hwtrec | grep -q ", 1 gaps" || { "$HWTREC" info cut.hwtrec; fail "no gap"; }
"$HWTREC" dump cut.hwtrec --insn > cut.insn
grep -q "trace lost at offset 2048: perf's AUX buffer was full" cut.insn ||
	fail "the gap does not say what was lost"
# After the gap: the original's instructions from the next PSB on.
after=$(awk -F'\t' '/trace lost/ { found = 1; next } found { print $2 "\t" $3 }' cut.insn | head -1000)
printf '%s\n' "$after" | head -1 | grep -q 0x || fail "nothing decoded after the gap"
awk -F'\t' '{ print $2 "\t" $3 }' loops.insn | grep -F -x -q "$(printf '%s\n' "$after" | head -1)" ||
	fail "decoding after the gap is not the original's"
n=$(printf '%s\n' "$after" | wc -l)
awk -F'\t' '{ print $2 "\t" $3 }' loops.insn > all.txt
printf '%s\n' "$after" > after.txt
python3 - <<'PY' || fail "the instructions after the gap are not a run of the original's"
a = open('all.txt').read().splitlines()
b = open('after.txt').read().splitlines()
ok = any(a[i:i + len(b)] == b for i in range(len(a)) if a[i] == b[0])
raise SystemExit(0 if ok else 1)
PY
echo "AUX TRUNCATED: a gap, then $n instructions as in the original"

# Many losses (70, one every 100 bytes): each is an AUX record flagged
# TRUNCATED in the export, as perf's own reader counts them.
rm -rf many.hwtrec
cp -r loops.hwtrec many.hwtrec
tid=$(jq -r '.threads[0].tid' many.hwtrec/manifest.json)
last=$(tail -1 many.hwtrec/sideband.jsonl | jq .tsc)
for k in $(seq 1 70); do
	echo "{\"event\":\"loss\",\"tsc\":$last,\"tid\":$tid,\"offset\":$((k * 100)),\"len\":0,\"reason\":\"test\"}"
done >> many.hwtrec/sideband.jsonl
# The sideband is no longer the recorder's: drop its length and checksum,
# which the reader of a finished recording checks.
jq 'del(.files["sideband.jsonl"])' many.hwtrec/manifest.json > many.manifest &&
	mv many.manifest many.hwtrec/manifest.json
"$HWTREC" export --perf many.hwtrec -o many.data 2>/dev/null || fail "export with 70 losses failed"
n=$(perf script -D -i many.data 2>/dev/null | grep -c "PERF_RECORD_AUX .*flags: 0x1 \[T\]")
[ "$n" = 70 ] || fail "70 losses, $n TRUNCATED AUX records in perf's reading"
echo "70 losses: 70 TRUNCATED AUX records (perf script -D)"
echo "PASS"
