#!/bin/sh
# standin-compare.sh cases/NAME.hwt: record ../programs/NAME with the hwt
# source through the stand-in (hwtrec-standin record --source=hwt) and check
# its history twice, with ../record/record-compare.sh: against the ptrace
# single-stepper's ground truth, and against a recording of the same program
# made with the Valgrind source directly (program's own code, per thread).
# Then check_hwt_recording (hwt-checks.sh) replaces the record case's CHECK:
# what a FreeBSD recording must be (no TSC, no loss, every thread named, each
# stream byte for byte what the stand-in wrote into that thread's buffer) and
# that the stand-in never saw START without SET_CONFIG.
#
# NAME.hwt is sourced first; it may set CASE_NOTE (why the program is here).
case_file=$1
name=$(basename "$case_file" .hwt)
here=$(cd "$(dirname "$0")" && pwd)
. "$case_file" || exit 99
HWT_STANDIN_DIR="$PWD/$name.dir/standin"
HWT_STANDIN_DUMP=1
RECORD_OPTS=--source=hwt
REFERENCE_SOURCE=valgrind
SOURCE_CHECKS="$here/hwt-checks.sh"
SOURCE_CHECK=check_hwt_recording
export HWT_STANDIN_DIR HWT_STANDIN_DUMP RECORD_OPTS REFERENCE_SOURCE SOURCE_CHECKS SOURCE_CHECK
exec "${SHELL:-/bin/sh}" "$here/../record/record-compare.sh" \
	"$here/../record/cases/$name.rec"
