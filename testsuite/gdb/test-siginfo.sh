#!/bin/sh
# test-siginfo: `p $_siginfo` at a recorded crash shows what GDB shows on
# the same program run natively (the oracle), through hwtrec replay and
# reading the recording's core directly: the signal, errno, code and fault
# address of SIGSEGV at a read of 0x0 and of 0x7008 and at a write to
# read-only data, and the sender of a SIGSEGV the program sent itself with
# raise(), and of SIGFPE at an idiv by zero (whose address Valgrind
# reports as its own translation's: the recorder takes the PC).  Where the
# recording cannot know the siginfo (a call through NULL, for which
# Valgrind says SEGV_ACCERR where the kernel says SEGV_MAPERR), GDB says it
# cannot read it: never a made-up value.
set -eu
: "${HWTREC:?}" "${TESTDIR:?}"
prog="$TESTDIR/siginfo-prog"
work=$(mktemp -d /tmp/hwtrec-siginfo-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0

# A process id in a siginfo (si_pid of a signal a process sent itself)
# differs from run to run: each side's own pid reads PID.
pid_as_word() {	# PID TEXT (also in hex: the union's pointer members)
	hex=$(printf '%x' "$1" 2>/dev/null || echo none)
	printf '%s\n' "$2" | sed -e "s/\\b$1\\b/PID/g" -e "s/\\b0x$hex\\b/PID/g"
}
native() {	# the siginfo GDB shows when the program dies natively
	out=$(gdb -nx -batch -ex run -ex 'p $_siginfo' -ex 'info proc' \
		--args "$prog" "$1" 2>&1)
	pid=$(printf '%s\n' "$out" | sed -n 's/^process \([0-9]*\)$/\1/p')
	pid_as_word "${pid:-none}" "$(printf '%s\n' "$out" | grep '^\$1 = ' || true)"
}
recorded_pid() {	# the recorded process's id (manifest.json's process.pid)
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["process"]["pid"])' \
		"$1.hwtrec/manifest.json"
}
replayed() {	# ... and through hwtrec replay of its recording
	pid_as_word "$(recorded_pid "$1")" "$(timeout 120 "$HWTREC" replay \
		"$1.hwtrec" -- -batch -ex 'p $_siginfo' 2>&1 |
		grep '^\$1 = \|Unable to read siginfo' || true)"
}
on_core() {	# ... and reading the recording's core directly
	pid_as_word "$(recorded_pid "$1")" "$(gdb -nx -batch -ex 'p $_siginfo' \
		"$prog" "$1.hwtrec/core" 2>&1 |
		grep '^\$1 = \|Unable to read siginfo' || true)"
}
check() {	# WHAT EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		echo "ok: $1"
	else
		echo "FAIL: $1"; echo "  expected: $2"; echo "  got:      $3"
		fail=1
	fi
}

for mode in null far rodata call divide raise; do
	status=0
	"$HWTREC" record -q -o "$mode.hwtrec" -- "$prog" "$mode" \
		>/dev/null 2>&1 || status=$?
	[ -f "$mode.hwtrec/core" ] || { echo "FAIL: $mode: no core (exit $status)"; fail=1; continue; }
	expected=$(native "$mode")
	case "$expected" in
	'$1 = {si_signo = '*) ;;
	*) echo "FAIL: $mode: the oracle shows no siginfo: $expected"; fail=1; continue ;;
	esac
	case $mode in
	call) expected="Unable to read siginfo" ;;
	esac
	check "$mode: replay" "$expected" "$(replayed "$mode")"
	check "$mode: core" "$expected" "$(on_core "$mode")"
done
# The address is in `hwtrec info` too.
check "info: fault address" \
	"Ended:         killed by signal 11 (Segmentation fault), fault address 0x7008" \
	"$("$HWTREC" info far.hwtrec | grep '^Ended:')"
exit $fail
