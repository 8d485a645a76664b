#!/bin/sh
# test-cli: hwtrec info and hwtrec dump on the fixture recording.  The
# expected listings follow from the assembled fixture's labels and the path
# the trace encodes (fixture.c), not from an earlier run.  hwtrec import of
# an OpenCSD snapshot whose source traces context IDs: a thread each, with
# the instructions make-etm-snapshot.c says each context ran.
set -u
hwtrec=../../tools/hwtrec
tmp=$(mktemp -d /tmp/hwtr-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {	# check NAME EXPECTED ACTUAL
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1"; echo "--- expected"; echo "$2"; echo "--- actual"; echo "$3"
		fail=1
	else
		echo "ok: $1"
	fi
}
sym() { nm fixture-code | awk -v s="$1" '$3 == s { print $1 }'; }

./make-fixture-recording "$tmp/r.hwtrec" || exit 1

out=$($hwtrec info "$tmp/r.hwtrec" | grep 'thread 1:')
check "info counts" \
	"  thread 1: 29 instructions, 12 function segments, 0 gaps, $(stat -c %s "$tmp/r.hwtrec/trace/1.pt") trace bytes ($(awk -v b="$(stat -c %s "$tmp/r.hwtrec/trace/1.pt")" 'BEGIN { printf "%.2f", 8 * b / 29 }') bits per instruction)" \
	"$out"

out=$($hwtrec dump "$tmp/r.hwtrec" --calls /c 7,12)
check "calls /c" "$(printf '7\t_start\n8\t  outer\n9\t    leaf\n10\t  outer\n11\t    tail\n12\t_start')" "$out"

out=$($hwtrec dump "$tmp/r.hwtrec" --insn 26,27 /f)
check "insn /f" "$(printf '26\t   0x%016x <+19>:\tlea    0x2(%%rip),%%rax        # 0x%x <_start+28>\n27\t   0x%016x <+26>:\tjmp    *%%rax' 0x"$(sym i26)" 0x"$(sym done)" 0x"$(sym i27)")" "$out"

out=$($hwtrec dump "$tmp/r.hwtrec" --insn --json | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
print(len(rows), rows[0]["ip"], rows[0]["function"], rows[0]["object_offset"], rows[-1]["class"])')
check "insn json" "29 0x$(sym i1 | sed 's/^0*//') _start 4096 far_call" "$out"

# The index saved by the first open (history.idx) is what the next opens read.
index() { $hwtrec info --json "$tmp/r.hwtrec" 2>&1 | python3 -c '
import json, sys
print(json.load(sys.stdin)["index"])'; }
check "info: the saved index is read" "saved" "$(index)"
rm "$tmp/r.hwtrec/history.idx"
check "info: without it the index is built, then saved" "built saved" "$(index) $(index)"
# Packing finds the binaries elsewhere: the index it made stale goes, silently.
$hwtrec pack "$tmp/r.hwtrec" >/dev/null
check "pack: the stale index is removed" "no history.idx" \
	"$([ -e "$tmp/r.hwtrec/history.idx" ] && echo history.idx || echo no history.idx)"
check "pack: then built without a message" "built" "$(index)"
# An index over the size limit is not saved, and says so (its size: the file
# the same build saves without the limit).
rm -f "$tmp/r.hwtrec/history.idx"
out=$(HWTREC_INDEX_MAX_MB=0 $hwtrec info "$tmp/r.hwtrec" 2>&1 >/dev/null)
saved=$([ -e "$tmp/r.hwtrec/history.idx" ] && echo file || echo no file)
$hwtrec info "$tmp/r.hwtrec" >/dev/null 2>&1
size=$(stat -c %s "$tmp/r.hwtrec/history.idx")
rm "$tmp/r.hwtrec/history.idx"
check "index over the limit: not saved, one line" "$tmp/r.hwtrec/history.idx: not saved: it would take $(awk -v b="$size" 'BEGIN { printf "%.1f", b / 1e6 }') MB, more than the limit of 0.0 MB (HWTREC_INDEX_MAX_MB) no file" \
	"$out $saved"

# bad input: named file, clear message, exit 1
out=$($hwtrec info "$tmp/nothing.hwtrec" 2>&1); rc=$?
check "missing recording" "1 hwtrec info: $tmp/nothing.hwtrec: no manifest.json: not a recording, or its recorder died before writing anything" "$rc $out"
printf '{"format":"hwtrecord","version":7}' > "$tmp/r.hwtrec/manifest.json"
out=$($hwtrec dump "$tmp/r.hwtrec" --calls 2>&1); rc=$?
check "future version" "1 hwtrec dump: $tmp/r.hwtrec/manifest.json: format version 7 is not supported (this reader reads version 1 to 2)" "$rc $out"
out=$($hwtrec dump "$tmp/r.hwtrec" --calls /x 2>&1); rc=$?
check "bad modifier" "2 hwtrec dump: unknown modifier '/x'" "$rc $out"
out=$($hwtrec dump "$tmp/r.hwtrec" 2>&1 | head -n 1); rc=$($hwtrec dump "$tmp/r.hwtrec" >/dev/null 2>&1; echo $?)
check "dump without --insn or --calls" "2 hwtrec dump: what to list? --insn (instructions) or --calls (function segments)" "$rc $out"

./make-etm-snapshot "$tmp/snap" || exit 1
out=$($hwtrec import --opencsd-snapshot "$tmp/snap" -o "$tmp/s.hwtrec" 2>&1 >/dev/null)
check "import: a thread per context ID" \
	"hwtrec import: source ETM_0 traces 2 context IDs: a thread for each" "$out"
out=$($hwtrec dump "$tmp/s.hwtrec" --insn --json | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    print(o["thread"], o["ip"] if "ip" in o else o["gap"]["error"])')
check "import: each context's instructions" "$(printf '100 0x1000\n100 0x1004\n100 0x1020\n100 0x1024\n100 disabled\n100 0x1008\n100 0x100c\n100 0x1004\n200 0x1010\n200 0x1010')" "$out"
exit $fail
