#!/bin/sh
# test-progress: building the history of a long recording shows progress on
# a terminal and nothing when stderr is not one.  `hwtrec info`, `dump` and
# `export --timeline` run on a terminal of their own (oracle/on_terminal.py,
# a pseudo-terminal; HWTREC_PROGRESS_MS=20 so that a line shows whatever
# the machine's speed): the progress
# line appears, rewritten in place (\r), its instruction counts and
# percentages grow and never pass the recording's instruction count (the
# generator's, mkrec-long over long-loop.S), and it is erased before the
# command's own output; with the index saved, `export --timeline` of a
# recorded program of 400,000 calls shows its writing ("writing the
# timeline", up to the recording's instruction count, which hwtrec info says).
# The same commands with stderr a file print nothing
# on it.  `hwtrec replay` on a terminal: the server's progress reaches
# GDB's terminal while a reverse-continue to the start waits for the history
# (the first reverse-stepi is answered from the end of the trace, decoded
# first; GDB copies a piped server's stderr); with stderr a file, none.
# Plain `gdb` with `target remote | hwtrec-server` likewise: the server
# finds GDB's terminal itself; with GDB's output a file, none.
set -eu
: "${HWTREC:?}" "${TESTDIR:?}" "${SRCDIR:?}"
work=$(mktemp -d /tmp/hwtrec-progress-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() {
	echo "FAIL: $*"
	exit 1
}

# A recording whose history takes over 0.7 s to build here: progress
# shows only for work that lasts more than a quarter second.
iterations=10000000
while :; do
	rm -rf long.hwtrec
	insns=$("$TESTDIR/mkrec-long" "$TESTDIR/long-code" long.hwtrec "$iterations") ||
		fail "mkrec-long failed"
	start=$(date +%s%N)
	"$HWTREC" info long.hwtrec >info.out 2>info.err || fail "hwtrec info: $(cat info.err)"
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	[ "$ms" -ge 700 ] || [ "$iterations" -ge 320000000 ] && break
	iterations=$((iterations * 4))
done
echo "ok: $insns instructions, hwtrec info takes $ms ms"

# check_tty NAME: NAME.tty, the terminal's bytes, has the progress line.
check_tty() {
	python3 - "$1.tty" "$insns" <<'PY' || fail "$1: the progress line is wrong (above)"
import re, sys
data = open(sys.argv[1], "rb").read().decode()
total = int(sys.argv[2])
matches = list(re.finditer(r"\rhwtrec: building the history: .*? of trace \((\d+)%\), "
                           r"(\d+) instructions(?:, about \d+ s left)?\x1b\[K", data))
lines = [m.groups() for m in matches]
if not lines:
    sys.exit("no progress line in %r" % data[:300])
pct = [int(p) for p, n in lines]
ins = [int(n) for p, n in lines]
if pct != sorted(pct) or ins != sorted(ins) or max(ins) > total or max(pct) > 100:
    sys.exit("percentages %s or instructions %s go back or pass %d" % (pct, ins, total))
if not data[matches[-1].end():].startswith("\r\x1b[K"):
    sys.exit("the progress line is not erased at the end")
print("ok: %s: %d progress lines, %d..%d instructions, %d%%..%d%%"
      % (sys.argv[1], len(lines), ins[0], ins[-1], pct[0], pct[-1]))
PY
}

# check_quiet NAME: NAME.err (stderr a file) has no progress.
check_quiet() {
	if grep -q 'building the history' "$1.err"; then
		fail "$1: progress on stderr that is not a terminal: $(head -c 200 "$1.err")"
	fi
	echo "ok: $1: nothing on stderr that is a file"
}

# Every command below builds the history: the index a build saves in the
# recording (history.idx) is removed first, else it would be read back,
# with no build to show.
unsave() { rm -f long.hwtrec/history.idx; }

unsave
HWTREC_PROGRESS_MS=20 python3 "$SRCDIR/../oracle/on_terminal.py" info.tty "'$HWTREC' info long.hwtrec" ||
	fail "hwtrec info on a terminal: status $?"
check_tty info
grep -q "thread 1: $insns instructions" info.tty || fail "info's own output is missing"
[ -s info.err ] && fail "hwtrec info printed on stderr (a file): $(cat info.err)"
check_quiet info

unsave
HWTREC_PROGRESS_MS=20 python3 "$SRCDIR/../oracle/on_terminal.py" dump.tty "'$HWTREC' dump long.hwtrec --calls" ||
	fail "hwtrec dump on a terminal: status $?"
check_tty dump
unsave
"$HWTREC" dump long.hwtrec --calls >dump.out 2>dump.err || fail "hwtrec dump: $(cat dump.err)"
[ -s dump.err ] && fail "hwtrec dump printed on stderr (a file): $(cat dump.err)"
check_quiet dump

unsave
HWTREC_PROGRESS_MS=20 python3 "$SRCDIR/../oracle/on_terminal.py" export.tty "'$HWTREC' export --timeline long.hwtrec -o t.json" ||
	fail "hwtrec export on a terminal: status $?"
check_tty export
unsave
"$HWTREC" export --timeline long.hwtrec -o t.json >export.out 2>export.err ||
	fail "hwtrec export: $(cat export.err)"
[ -s export.err ] && fail "hwtrec export printed on stderr (a file): $(cat export.err)"
check_quiet export
# With the index saved there is no build; writing the timeline itself shows
# its progress, in instructions.  mkrec-long's loop is one slice, written at
# once: a program of 400,000 calls, recorded, has as many to write.
cat >calls.c <<'EOF'
__attribute__((noinline)) static long f(long x) { return x ^ (x >> 3); }
int main(void) { long s = 0; for (long i = 0; i < 400000; i++) s += f(i); return (int)(s & 1); }
EOF
${CC:-cc} -O0 -o calls calls.c || fail "cannot build calls.c"
if "$HWTREC" record --no-data -o calls.hwtrec -- ./calls >record.out 2>&1 ||
	[ -f calls.hwtrec/manifest.json ]; then
	"$HWTREC" info --json calls.hwtrec >calls.json 2>calls.err || fail "info: $(cat calls.err)"
	[ -f calls.hwtrec/history.idx ] || fail "no history.idx saved by hwtrec info"
	calls_insns=$(python3 -c 'import json,sys; print(sum(t["instructions"] for t in json.load(open(sys.argv[1]))["threads"]))' calls.json)
	HWTREC_PROGRESS_MS=20 python3 "$SRCDIR/../oracle/on_terminal.py" write.tty "'$HWTREC' export --timeline calls.hwtrec -o calls-timeline.json" ||
		fail "hwtrec export (index saved) on a terminal: status $?"
	python3 - write.tty "$calls_insns" <<'PY' || fail "export: the writing progress line is wrong (above)"
import re, sys
data = open(sys.argv[1], "rb").read().decode()
total = int(sys.argv[2])
if "building the history" in data:
    sys.exit("a build with the index saved: %r" % data[:300])
matches = list(re.finditer(r"\rhwtrec: writing the timeline: (\d+) of (\d+) instructions "
                           r"\((\d+)%\)(?:, about \d+ s left)?\x1b\[K", data))
if not matches:
    sys.exit("no progress line in %r" % data[:300])
done = [int(m.group(1)) for m in matches]
if any(int(m.group(2)) != total for m in matches):
    sys.exit("the total is not the recording's %d instructions: %r" % (total, data[:300]))
if done != sorted(done) or done[-1] > total:
    sys.exit("instructions %s go back or pass %d" % (done, total))
if not data[matches[-1].end():].startswith("\r\x1b[K"):
    sys.exit("the progress line is not erased at the end")
print("ok: export, index saved: %d lines writing the timeline, %d..%d of %d instructions"
      % (len(done), done[0], done[-1], total))
PY
	"$HWTREC" export --timeline calls.hwtrec -o calls-timeline.json >write.out 2>write.err ||
		fail "hwtrec export: $(cat write.err)"
	[ -s write.err ] && fail "hwtrec export (index saved) printed on stderr (a file): $(cat write.err)"
	echo "ok: export, index saved: nothing on stderr that is a file"
else
	echo "skipped: the timeline's writing: the recorder cannot run here ($(tail -n 1 record.out))"
fi

# GDB: a reverse-continue to the start waits for the whole history.
if command -v gdb >/dev/null; then
	gdbargs="-nx -batch -ex reverse-stepi -ex reverse-continue -ex 'info registers rip'"
	unsave
	HWTREC_PROGRESS_MS=20 python3 "$SRCDIR/../oracle/on_terminal.py" replay.tty "'$HWTREC' replay long.hwtrec -- $gdbargs" ||
		fail "hwtrec replay on a terminal: status $?"
	check_tty replay
	unsave
	"$HWTREC" replay long.hwtrec -- -nx -batch -ex reverse-stepi \
		-ex reverse-continue -ex 'info registers rip' >replay.out 2>replay.err </dev/null ||
		fail "hwtrec replay: $(cat replay.err)"
	check_quiet replay
	# Plain GDB running the server over a pipe (no --progress, stderr
	# GDB's pipe): the line reaches GDB's terminal all the same.
	server=${HWTREC_SERVER:?}
	unsave
	HWTREC_PROGRESS_MS=20 python3 "$SRCDIR/../oracle/on_terminal.py" plaingdb.tty \
		"gdb -nx -batch -ex 'target remote | $server long.hwtrec' -ex reverse-stepi -ex reverse-continue -ex 'info registers rip'" ||
		fail "plain gdb on a terminal: status $?"
	check_tty plaingdb
	unsave
	gdb -nx -batch -ex "target remote | $server long.hwtrec" -ex reverse-stepi \
		-ex reverse-continue -ex 'info registers rip' >plaingdb.out 2>plaingdb.err </dev/null ||
		fail "plain gdb: $(cat plaingdb.err)"
	check_quiet plaingdb
	if grep -q 'building the history' plaingdb.out; then
		fail "plaingdb: progress in GDB's output that is a file"
	fi
fi
exit 0
