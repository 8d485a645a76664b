#!/bin/sh
# test-restart-frames: the frame a signal handler interrupted, at each of
# restart-prog's two SIGALRM handler stops, as GDB on the live program
# shows it (the oracle): a blocking read restarted after the first handler
# (SA_RESTART: the signal frame holds the `syscall` instruction's own
# address) and one that returns EINTR after the second (the address after
# it).  Through hwtrec replay, with the data log (the signal frame's bytes)
# and without it (the trace: where the handler's return resumed).  record
# full cannot be the oracle here: it reads the first signal frame from
# memory the second one overwrote.
set -eu
: "${HWTREC:?}" "${TESTDIR:?}"
prog="$TESTDIR/restart-prog"
work=$(mktemp -d /tmp/hwtrec-restart-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0

frames() {	# GDB's output: the interrupted frame (#2) at each handler stop
	grep '^#2 ' | sed 's/^#2 *//'
}
native=$(gdb -nx -batch -ex 'handle SIGALRM nostop noprint pass' \
	-ex 'break on_alarm' -ex run -ex bt -ex continue -ex bt "$prog" 2>&1 |
	frames)
[ "$(printf '%s\n' "$native" | wc -l)" = 2 ] ||
	{ echo "FAIL: the oracle did not stop twice in the handler: $native"; exit 1; }
case "$native" in
*"in read ()"*) ;;
*) echo "FAIL: the oracle's interrupted frames are not in read: $native"; exit 1 ;;
esac
# Replay goes backwards: the second handler first.
expected=$(printf '%s\n' "$native" | tac)
for mode in data no-data; do
	opt=; [ $mode = no-data ] && opt=--no-data
	"$HWTREC" record -q $opt -o "$mode.hwtrec" -- "$prog" >/dev/null 2>&1 || true
	got=$(timeout 300 "$HWTREC" replay "$mode.hwtrec" -- -batch \
		-ex 'handle SIGALRM nostop noprint pass' -ex 'break on_alarm' \
		-ex reverse-continue -ex bt -ex reverse-continue -ex bt 2>&1 |
		frames)
	if [ "$got" = "$expected" ]; then
		echo "ok: $mode: $(printf '%s' "$got" | tr '\n' '|')"
	else
		echo "FAIL: $mode"
		echo "  expected: $(printf '%s' "$expected" | tr '\n' '|')"
		echo "  got:      $(printf '%s' "$got" | tr '\n' '|')"
		fail=1
	fi
done
exit $fail
