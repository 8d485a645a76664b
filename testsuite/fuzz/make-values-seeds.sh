#!/bin/sh
# make-values-seeds.sh HWTREC SRCDIR FIXTURE_CODE: writes SRCDIR/seeds-values/
# (`make seeds`): the data log the Valgrind source writes for the unit
# tests' fixture code (the program fuzz-values' fixed recording traces,
# whose thread it names as the log's first record does), whole, cut in the
# middle, without its last 18 bytes, and its header alone.
set -eu
hwtrec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$(cd "$2" && pwd)/seeds-values
code=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
work=$(mktemp -d "${TMPDIR:-/tmp}/values-seeds.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$hwtrec" record -q --source=valgrind -o "$work/fixture.hwtrec" -- "$code"
mkdir -p "$out"
python3 - "$work/fixture.hwtrec" "$out" <<'PY'
import sys
rec, out = sys.argv[1], sys.argv[2]
log = open(rec + "/values", "rb").read()
seeds = {
    "whole": log,
    "cut-in-the-middle": log[:len(log) // 2],
    "without-the-last-18-bytes": log[:-18],
    "header-only": log[:16],
}
for name, data in seeds.items():
    open("%s/%s" % (out, name), "wb").write(data)
print("seeds-values: %d logs, the whole one %d bytes" % (len(seeds), len(log)))
PY
