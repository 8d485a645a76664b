#!/bin/sh
# The plugin leaves GDB alone on targets that are not hwtrec-server: the same
# record-full session, natively and through gdbserver, prints exactly the same
# with and without the plugin loaded (GDB itself is the oracle), and
# `record hwt` there refuses, saying how to get it (hwtrec gdb).
set -eu
: "${TESTDIR:?}" "${SRCDIR:?}"
prog="$TESTDIR/scenario-prog"
plugin="$SRCDIR/../../gdb-plugin/python"
# As run-scenario: keep glibc off instructions record full cannot record.
GLIBC_TUNABLES="glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX2,-AVX,-AVX_Fast_Unaligned_Load,-ERMS,-FSRM,-BMI1,-BMI2,-LZCNT,-MOVBE,-RTM:glibc.pthread.rseq=0"
export GLIBC_TUNABLES
load_plugin="python import sys; sys.dont_write_bytecode = True; sys.path.insert(0, '$plugin'); import hwtrecord"

# session CONNECT [gdb options]: a record-full session using the record
# commands the plugin replaces on hwtrec-server; PIDs normalised.
session() {
	connect=$1
	shift
	gdb -nx -batch "$@" -ex "$connect" -ex 'break sum_of_squares' \
		-ex continue -ex 'record full' -ex next -ex next -ex step \
		-ex 'info record' -ex 'record function-call-history' \
		-ex 'record function-call-history /c 1,5' \
		-ex 'record instruction-history' -ex 'record goto begin' \
		-ex 'info record' -ex 'record goto end' -ex 'record goto 3' \
		-ex 'reverse-next' -ex 'bt' -ex 'record goto' \
		-ex 'record goto end junk' -ex 'record stop' -ex 'info record' \
		-ex 'record instruction-history' -ex 'kill' "$prog" 2>&1 |
		sed -E 's/(process|Thread|LWP|pid =) [0-9.]+/\1 N/g; s/p[0-9a-f]+\.[0-9a-f]+/pN.N/g'
}

fail=0
for connect in "starti" "target remote | gdbserver - $prog"; do
	without=$(session "$connect")
	with=$(session "$connect" -iex "$load_plugin")
	if [ "$without" != "$with" ]; then
		echo "FAIL: with the plugin, GDB's own commands changed ($connect):"
		printf '%s\n' "$without" >without.out
		printf '%s\n' "$with" >with.out
		diff -u without.out with.out || true
		fail=1
	fi
	# The comparison must not be vacuous: the session did record and replay.
	for want in "Active record target: record-full" "Replay mode:" \
		"You can't do that when your target is \`record-full'" \
		"No recording is currently active."; do
		if ! printf '%s\n' "$without" | grep -qF "$want"; then
			echo "FAIL: the session ($connect) never printed: $want"
			fail=1
		fi
	done
	hwt=$(gdb -nx -batch -iex "$load_plugin" -ex "$connect" -ex 'record hwt' \
		-ex kill "$prog" 2>&1)
	# Natively it says how to get it (hwtrec gdb); on another remote, that
	# the target is not hwtrec-server.
	case $connect in
	starti) want_hwt="record hwt: this GDB runs the program natively.*hwtrec gdb -- PROGRAM ARGS" ;;
	*) want_hwt="record hwt: the target is not hwtrec-server.*hwtrec gdb -- PROGRAM ARGS" ;;
	esac
	if ! printf '%s\n' "$hwt" | grep -q "$want_hwt"; then
		echo "FAIL: record hwt off hwtrec-server ($connect) said:"
		printf '%s\n' "$hwt"
		fail=1
	fi
done
# After the session met hwtrec-server (the replacements installed, as
# target.on_detect installs them), natively: `record` and `record full` still
# start GDB's record full (hook-record and the replaced prefix pass through),
# and `record stop`, out of reach, says so once instead of recursing.
met=$(gdb -nx -batch -iex "$load_plugin" \
	-ex 'python import hwtrecord.commands; hwtrecord.commands.install_overrides()' \
	-ex starti -ex 'break sum_of_squares' -ex continue -ex record -ex next \
	-ex reverse-next -ex 'record stop' -ex kill -ex starti -ex 'record full' \
	-ex stepi -ex reverse-stepi -ex kill "$prog" 2>&1)
if [ "$(printf '%s\n' "$met" | grep -c 'No more reverse-execution history.')" != 2 ] ||
	printf '%s\n' "$met" | grep -q 'recursion' ||
	[ "$(printf '%s\n' "$met" | grep -c "GDB's own \`record stop' was replaced")" != 1 ]; then
	echo "FAIL: record, record full, record stop after meeting hwtrec-server:"
	printf '%s\n' "$met"
	fail=1
fi
[ $fail -eq 0 ] && echo "PASS: GDB's record commands unchanged by the plugin"
exit $fail
