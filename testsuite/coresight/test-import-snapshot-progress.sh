#!/bin/sh
# test-import-snapshot-progress: `hwtrec import --opencsd-snapshot` shows
# progress on a terminal (bytes of the trace buffers and memory images read
# and copied into the recording) and nothing when stderr is not one.
# juno_r1_1 with its kernel image grown to 300 MB (a sparse tail: the ini's
# length still maps 0x50000 of it) takes over a second to import.  On a
# terminal of its own (oracle/on_terminal.py; HWTREC_PROGRESS_MS=20) the
# line's total must be twice the bytes of
# the files trace.ini and the [dump] sections name (counted here from the
# ini files), its bytes and percentages never go back nor pass the total,
# and it is erased at the end; with stderr a file, stderr holds the
# warnings only; both imports give the same `hwtrec info`.
. "$SRCDIR/coresight-lib.sh"
need_snapshots
scratch
cp -r "$OPENCSD_DATA/juno_r1_1" "$tmp/snap"
chmod -R u+w "$tmp/snap"
truncate -s 300M "$tmp/snap/kernel_dump.bin"

"$HWTREC" import --opencsd-snapshot "$tmp/snap" -o "$tmp/file.hwtrec" \
	>"$tmp/file.out" 2>"$tmp/file.err" || {
	echo "FAIL: hwtrec import: $(cat "$tmp/file.err")"; exit 1; }
if grep -q "$(printf '\r')" "$tmp/file.err" || grep -q "copying" "$tmp/file.err"; then
	echo "FAIL: progress on stderr that is a file: $(head -c 300 "$tmp/file.err")"
	exit 1
fi
grep -v "skipping trace source" "$tmp/file.err" && {
	echo "FAIL: more than the warnings on stderr (above)"; exit 1; }
echo "ok: stderr a file: the warnings only"

HWTREC_PROGRESS_MS=20 python3 "$SRCDIR/../oracle/on_terminal.py" "$tmp/import.tty" \
	"'$HWTREC' import --opencsd-snapshot '$tmp/snap' -o '$tmp/tty.hwtrec'" || {
	echo "FAIL: hwtrec import on a terminal: status $?"; exit 1; }
# The oracle for the total: every file= of trace.ini, and of the devices'
# [dump...] sections, each file once, read and then copied.
total=$(python3 - "$tmp/snap" <<'PY'
import glob, os, sys
snap = sys.argv[1]
files = set()
for ini in glob.glob(os.path.join(snap, "*.ini")):
    section = None
    for line in open(ini):
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").lower()
        elif "=" in line and line.split("=")[0].strip().lower() == "file":
            if os.path.basename(ini) == "trace.ini" or section.startswith("dump"):
                files.add(os.path.join(snap, line.split("=", 1)[1].strip()))
print(2 * sum(os.path.getsize(f) for f in files if os.path.isfile(f)))
PY
)
python3 "$SRCDIR/../oracle/progress_lines.py" "$tmp/import.tty" "$total" \
	"buffers and memory images" "reading and copying the snapshot" ||
	{ echo "FAIL: the progress line is wrong (above)"; exit 1; }

"$HWTREC" info "$tmp/file.hwtrec" >"$tmp/file.info" 2>&1
"$HWTREC" info "$tmp/tty.hwtrec" >"$tmp/tty.info" 2>&1
sed -i "s|$tmp/[a-z]*\.hwtrec|REC|g" "$tmp/file.info" "$tmp/tty.info"
cmp -s "$tmp/file.info" "$tmp/tty.info" || {
	echo "FAIL: the two imports differ:"; diff "$tmp/file.info" "$tmp/tty.info" | head; exit 1; }
echo "ok: both imports are the same recording ($(grep -c thread "$tmp/tty.info") thread lines)"
exit 0
