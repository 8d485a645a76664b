#!/bin/sh
# test-import-progress: `hwtrec import` of a large perf.data shows progress
# on a terminal and nothing when stderr is not one, and imports it whole.
# mkrec-long writes a long Intel PT recording (its trace and instruction
# count are the oracle: libipt's encoder over long-loop.S); `hwtrec export
# --perf` makes it a perf.data of one AUX queue.  Under script(1) (a
# pseudo-terminal) import shows "reading the trace" then "writing the
# recording", rewritten in place, bytes never above the total (the
# generator's trace size) and never going back, erased at the end.  With
# stderr a file, stderr is empty, and the terminal's bytes without the
# progress lines are the same.  The imports hold the generator's trace
# byte for byte (then perf's padding); a smaller one its instruction count.
set -eu
: "${HWTREC:?}" "${TESTDIR:?}"
command -v script >/dev/null || { echo "SKIP: script(1) is missing"; exit 77; }
work=$(mktemp -d /tmp/hwtrec-import-progress-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() {
	echo "FAIL: $*"
	exit 1
}

# check_trace REC: REC holds the generator's trace, byte for byte, then
# perf's padding of AUXTRACE payloads to 8 bytes (zeros: PT's PAD packets).
check_trace() {
	python3 - long.hwtrec/trace/1.pt "$1/trace/1.pt" <<'PY' || fail "$1: the trace differs from the generator's"
import sys
want, got = (open(f, "rb").read() for f in sys.argv[1:3])
if not (got.startswith(want) and len(got) - len(want) < 8 and not any(got[len(want):])):
    sys.exit("%s: %d bytes, the generator's %d" % (sys.argv[2], len(got), len(want)))
PY
}

# A perf.data whose import takes over 0.6 s here: progress shows only for
# work that lasts more than a quarter second.  The first, small one gives
# the rate (and is checked whole: its instructions); the next is sized
# from it.
iterations=80000000
while :; do
	rm -rf long.hwtrec long.data file.hwtrec
	insns=$("$TESTDIR/mkrec-long" "$TESTDIR/long-code" long.hwtrec "$iterations") ||
		fail "mkrec-long failed"
	"$HWTREC" export --perf long.hwtrec -o long.data >export.out 2>&1 ||
		fail "hwtrec export --perf: $(cat export.out)"
	start=$(date +%s%N)
	"$HWTREC" import long.data -o file.hwtrec >file.out 2>file.err ||
		fail "hwtrec import: $(cat file.err)"
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	check_trace file.hwtrec
	if [ "$iterations" = 80000000 ]; then
		"$HWTREC" info file.hwtrec >info.out 2>&1 || fail "hwtrec info: $(cat info.out)"
		grep -q "thread 1: $insns instructions" info.out ||
			fail "the import has not $insns instructions: $(grep 'thread' info.out)"
		echo "ok: a perf.data of $insns instructions imports whole ($ms ms)"
	fi
	[ "$ms" -ge 600 ] || [ "$iterations" -ge 1280000000 ] && break
	iterations=$((iterations * 800 / (ms > 0 ? ms : 1)))
	[ "$iterations" -le 1280000000 ] || iterations=1280000000
done
trace_bytes=$(stat -c %s long.hwtrec/trace/1.pt)
echo "ok: $insns instructions, $trace_bytes trace bytes," \
	"$(stat -c %s long.data) bytes of perf.data; hwtrec import takes $ms ms"
if [ "$ms" -lt 300 ]; then
	echo "SKIP: the largest perf.data imports in $ms ms here, too fast for progress"
	exit 77
fi

[ -s file.err ] && fail "hwtrec import printed on stderr (a file): $(head -c 300 file.err)"
echo "ok: nothing on stderr that is a file"

script -qec "'$HWTREC' import long.data -o tty.hwtrec" /dev/null >import.tty </dev/null ||
	fail "hwtrec import under script: status $?"
python3 - import.tty "$trace_bytes" file.out <<'PY' || fail "the progress line is wrong (above)"
import re, sys
data = open(sys.argv[1], "rb").read().decode()
total = int(sys.argv[2])
units = {"bytes": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}

def human(n):	# progress.c's way
    v, u = float(n), 0
    names = list(units)
    while v >= 1000 and u + 1 < len(names):
        v, u = v / 1000, u + 1
    return "%d bytes" % n if u == 0 else "%.1f %s" % (v, names[u])

line = re.compile(r"\rhwtrec: (reading the trace|writing the recording): "
                  r"([\d.]+) (bytes|KB|MB|GB|TB) of ([\d.]+ (?:bytes|KB|MB|GB|TB)) "
                  r"of trace \((\d+)%\)(?:, about \d+ s left)?\x1b\[K")
matches = list(line.finditer(data))
if not matches:
    sys.exit("no progress line in %r" % data[:300])
phases = {}
for m in matches:
    what, done, unit, of, pct = m.groups()
    phases.setdefault(what, []).append((float(done) * units[unit], of, int(pct)))
if list(phases) != ["reading the trace", "writing the recording"][:len(phases)] and \
   list(phases) != ["writing the recording"]:
    sys.exit("phases out of order: %s" % list(phases))
for what, lines in phases.items():
    done = [d for d, of, p in lines]
    pct = [p for d, of, p in lines]
    if {of for d, of, p in lines} != {human(total)}:
        sys.exit("%s: totals %s, not the trace's %s" % (what, {of for d, of, p in lines}, human(total)))
    if done != sorted(done) or pct != sorted(pct) or max(done) > total * 1.0005 or max(pct) > 100:
        sys.exit("%s: bytes %s or percentages %s go back or pass %d" % (what, done, pct, total))
    print("ok: %s: %d progress lines, %.1f..%.1f MB of %s, %d%%..%d%%"
          % (what, len(lines), done[0] / 1e6, done[-1] / 1e6, human(total), pct[0], pct[-1]))
rest = data[matches[-1].end():]
if not rest.startswith("\r\x1b[K"):
    sys.exit("the progress line is not erased at the end: %r" % rest[:80])
# Without the progress lines (and their erasing), the terminal has what a
# run with stderr a file prints on stdout (the pty turns \n into \r\n).
plain = line.sub("", data).replace("\r\x1b[K", "").replace("\r\n", "\n")
expected = open(sys.argv[3]).read()
if plain != expected:
    sys.exit("the terminal has more than the progress: %r, not %r" % (plain[:300], expected))
print("ok: erased at the end; nothing else on the terminal")
PY

check_trace tty.hwtrec
echo "ok: both imports of the large one hold the generator's trace"
exit 0
