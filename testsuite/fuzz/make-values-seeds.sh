#!/bin/sh
# make-values-seeds.sh HWTREC SRCDIR FIXTURE_CODE: writes SRCDIR/seeds-values/
# (`make seeds`): the data log the Valgrind source writes for the unit
# tests' fixture code (the program fuzz-values' fixed recording traces),
# its thread renamed 1 as in that recording, whole and cut in the middle of
# a record, before its end record, and after its header.
set -eu
hwtrec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$(cd "$2" && pwd)/seeds-values
code=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
work=$(mktemp -d "${TMPDIR:-/tmp}/values-seeds.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$hwtrec" record -q --source=valgrind -o "$work/fixture.hwtrec" -- "$code"
mkdir -p "$out"
python3 - "$work/fixture.hwtrec" "$out" <<'PY'
import json, struct, sys
rec, out = sys.argv[1], sys.argv[2]
tid = json.load(open(rec + "/manifest.json"))["threads"][0]["tid"]
log = bytearray(open(rec + "/values", "rb").read())
# values-format.h: the thread is named in its THREAD records (type 1, u32
# lwpid, ...) and in SYNC records (type 5, u8 end, u32 n = 1, u32 lwpid,
# u64 count); the fixture's log holds its lwpid nowhere else.
t = struct.pack("<I", tid)
if log[:8] != b"HWTRVALS" or log[16:21] != b"\x01" + t:
    sys.exit("make-values-seeds: the log does not start with thread %d's THREAD record" % tid)
log[16:21] = b"\x01" + struct.pack("<I", 1)
syncs = 0
for end in range(3):
    sync = b"\x05" + bytes([end]) + struct.pack("<I", 1)
    while sync + t in log:
        i = log.index(sync + t)
        log[i + 6:i + 10] = struct.pack("<I", 1)
        syncs += 1
if t in log or not syncs:
    sys.exit("make-values-seeds: thread %d is named where this script does not know" % tid)
seeds = {
    "whole": log,
    "cut-in-the-middle": log[:len(log) // 2],
    "without-the-end-record": log[:-18],   # the last SYNC, one thread
    "header-only": log[:16],
}
for name, data in seeds.items():
    open("%s/%s" % (out, name), "wb").write(data)
print("seeds-values: %d logs, the whole one %d bytes" % (len(seeds), len(log)))
PY
