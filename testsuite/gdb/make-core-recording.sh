#!/bin/sh
# make-core-recording.sh DIR: run crash-threads in DIR until it dies of
# SIGSEGV, keep its core (the kernel's, or GDB's gcore when the system writes
# none here) as DIR/oracle.core and wrap a copy in DIR/rec.hwtrec.
set -eu
: "${TESTDIR:?}"
dir=$1
prog="$TESTDIR/crash-threads"
cd "$dir"
(ulimit -c unlimited; "$prog" >/dev/null 2>&1) 2>/dev/null || true
core=$(ls core core.* 2>/dev/null | head -n 1 || true)
if [ -z "$core" ]; then
	gdb -nx -batch -ex run -ex "gcore $dir/core" "$prog" >/dev/null 2>&1
	core=core
fi
[ -s "$core" ] || { echo "make-core-recording: no core file" >&2; exit 1; }
cp "$core" oracle.core
"$TESTDIR/mkrec-core" rec.hwtrec "$prog" "$core"
