#!/bin/sh
# test-import-progress: `hwtrec import` of a large perf.data shows progress
# on a terminal and nothing when stderr is not one, and imports it whole.
# mkrec-long writes a long Intel PT recording (its trace and instruction
# count are the oracle: libipt's encoder over long-loop.S); `hwtrec export
# --perf` makes it a perf.data of one AUX queue.  On a terminal of its own
# (oracle/on_terminal.py, a pseudo-terminal; HWTREC_PROGRESS_MS=20, so that
# lines show whatever the machine's speed) the
# import shows "reading the trace" then "writing the
# recording", rewritten in place, bytes never above the total (the
# generator's trace size) and never going back, erased at the end.  With
# stderr a file, stderr is empty, and the terminal's bytes without the
# progress lines are the same.  The imports hold the generator's trace
# byte for byte (then perf's padding); a smaller one its instruction count.
set -eu
: "${HWTREC:?}" "${TESTDIR:?}" "${SRCDIR:?}"
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

HWTREC_PROGRESS_MS=20 python3 "$SRCDIR/../oracle/on_terminal.py" import.tty "'$HWTREC' import long.data -o tty.hwtrec" ||
	fail "hwtrec import on a terminal: status $?"
python3 "$SRCDIR/../oracle/progress_lines.py" import.tty "$trace_bytes" trace \
	"reading the trace" "writing the recording" --plain file.out ||
	fail "the progress line is wrong (above)"

check_trace tty.hwtrec
echo "ok: both imports of the large one hold the generator's trace"
exit 0
