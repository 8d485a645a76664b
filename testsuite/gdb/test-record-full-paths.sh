#!/bin/sh
# test-record-full-paths: the record-full oracle gives the same answers
# natively and through gdbserver (testsuite/oracle/record_full.py), and the
# probe picks the path that works here.  Two scenarios: libc calls (reverse
# over SSE string code and system calls, what AMX hosts cannot undo
# natively), the PIE crash (dynamic linking, shared libraries) and forward
# steps recorded live then undone (live-forward-to-end.lscn: through
# gdbserver, range stepping would leave a line's instructions unrecorded).
set -eu
: "${TESTDIR:?}" "${SRCDIR:?}"
status=0
for scn in libc-calls.scn crash-pie.scn live-forward-to-end.lscn; do
	SCN_BUILDDIR=$TESTDIR SCN_SRCDIR=$SRCDIR PYTHONDONTWRITEBYTECODE=1 \
		python3 "$SRCDIR/run-scenario" --oracle-paths \
		"$SRCDIR/scenarios/$scn" || status=1
done
exit $status
