#!/bin/sh
# test-thread-outermost: a worker thread's call stack at a past position,
# after every worker exited (none is left at the end to show where its
# stack ends), against GDB on the live program (the oracle): the same
# functions, ending at the thread's entry, whose CFI says its return
# address is undefined.  Without the data log the plugin's unwinder makes
# these frames; it used to unwind the entry to one more frame,
# `0x0000000000000000 in ?? ()`.  glibc starts threads with clone3, which
# Valgrind 3.19 refuses (glibc then calls clone): the two count as one.
set -eu
: "${HWTREC:?}" "${TESTDIR:?}"
prog="$TESTDIR/thread-end-prog"
work=$(mktemp -d /tmp/hwtrec-thread-outermost-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0

functions() {	# the function of each frame GDB's bt printed, one line
	sed -n 's/^#[0-9][0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([^ ]*\) .*/\2/p' |
		sed 's/^clone3$/clone/' | tr '\n' ' '
}
native=$(gdb -nx -batch -ex 'break work' -ex run -ex bt "$prog" 2>&1 |
	functions)
case "$native" in
"work worker start_thread clone ") ;;
*) echo "FAIL: the oracle's worker stack is not work ... clone: $native"; exit 1 ;;
esac
for mode in data no-data; do
	opt=; [ $mode = no-data ] && opt=--no-data
	"$HWTREC" record -q $opt -o "$mode.hwtrec" -- "$prog" >/dev/null 2>&1 || true
	out=$(timeout 300 "$HWTREC" replay "$mode.hwtrec" -- -batch \
		-ex 'break work' -ex reverse-continue -ex bt 2>&1)
	got=$(printf '%s\n' "$out" | functions)
	if [ "$got" = "$native" ] &&
	   ! printf '%s\n' "$out" | grep -q '^Backtrace stopped'; then
		echo "PASS: $mode: $got"
	else
		echo "FAIL: $mode: the worker's stack is '$got', GDB on the live program's '$native'"
		printf '%s\n' "$out" | sed 's/^/  | /' | tail -12
		fail=1
	fi
done
exit $fail
