#!/bin/sh
# record-compare.sh CASE.rec: record one test program with `hwtrec record`,
# dump its instruction history as JSON, and check it against the ptrace
# single-stepper's ground truth.
#
# What is compared: per thread (threads paired in creation order, i.e. tid
# order), the sequence of instructions executed in the program's own
# executable, as file offsets.  Why only that: Valgrind loads a PIE program at
# another base, uses its own dynamic-loader start-up path and replaces some
# libc/ld.so functions (redirections), so code outside the executable differs
# between a native run and a recorded one; the program's own code does not.
# Also checked: `hwtrec record` exits with the program's status, and the case
# may add checks (CHECK, see cases/README.md).
#
# CASE.rec is sourced; it sets DESCRIPTION, and optionally ARGS, STATUS
# (expected exit status, default 0), STDOUT_VARIES=1 (the program's output
# may differ between runs) and CHECK (a function, from it or testlib.sh).
#
# Other sources reuse this script (../hwt-standin): RECORD_OPTS are added to
# `hwtrec record` (e.g. --source=hwt); with REFERENCE_SOURCE set, the program
# is also recorded with `$HWTREC_REFERENCE record --source=REFERENCE_SOURCE`
# and the two recorded histories must be equal as well; SOURCE_CHECK names a
# function (from SOURCE_CHECKS, a file sourced here) that replaces the case's
# CHECK, whose checks may not apply to that source.
. "$TESTLIB"
[ -n "$SOURCE_CHECKS" ] && . "$SOURCE_CHECKS"
SRCDIR=$(dirname "$TESTLIB")

case_file=$1
name=$(basename "$case_file" .rec)
DESCRIPTION=
ARGS=
STATUS=0
STDOUT_VARIES=
CHECK=
. "$case_file" || fail "cannot read $case_file"
prog="$PROGDIR/$name"
[ -x "$prog" ] || fail "$prog is not built"
echo "$name: $DESCRIPTION"

need_valgrind
need_tools jq gdb nm objdump readelf
need_hwtrec record
need_hwtrec dump
workdir "$name"

# Seconds since the previous call, for the log (where the time goes).
last=$(date +%s.%N)
elapsed() {
	now=$(date +%s.%N)
	echo "time: $1 $(echo "$now - $last" | awk '{ printf "%.1f s", $1 - $3 }')"
	last=$now
}

# Ground truth: every instruction of $prog, per thread, from its entry point.
# shellcheck disable=SC2086
(cd "$WORK" && "$STEPPER" --offsets --from-entry --object "$prog" \
	-o expected.txt -- "$prog" $ARGS >stepper.stdout 2>stepper.stderr)
st=$?
elapsed "hwtr-stepper"
expect_status $st "$STATUS" "hwtr-stepper (the program, natively)"

# The recording; run in $WORK so that anything the program or Valgrind drops
# (core files) stays there.
# shellcheck disable=SC2086
(cd "$WORK" && "$HWTREC" record $RECORD_OPTS -o rec.hwtrec -- "$prog" $ARGS \
	>record.stdout 2>record.stderr)
st=$?
elapsed "hwtrec record"
show "$WORK/record.stderr"
expect_status $st "$STATUS" "hwtrec record (the program's status, passed on)"
[ -d "$WORK/rec.hwtrec" ] || fail "hwtrec record left no $WORK/rec.hwtrec"

"$HWTREC" dump "$WORK/rec.hwtrec" --insn --json >"$WORK/dump.jsonl" \
	2>"$WORK/dump.stderr"
st=$?
elapsed "hwtrec dump ($(wc -l <"$WORK/dump.jsonl") lines)"
show "$WORK/dump.stderr"
expect_status $st 0 "hwtrec dump --insn --json"

# A "disabled" gap (tracing stopped and resumed elsewhere: a signal handler,
# a longjmp out of one) loses no instruction; the sequences around it are
# still compared exactly.
"$COMPARE" --allow-gap disabled --object "$prog" "$WORK/expected.txt" \
	"$WORK/dump.jsonl" ||
	fail "the recorded history of $name differs from the single-stepper's (files in $WORK)"

# That first open saved the index in the recording (history.idx); a second
# open reads it instead of decoding and must list the same history, which
# the single-stepper has just checked.
[ -f "$WORK/rec.hwtrec/history.idx" ] ||
	fail "the first open of $WORK/rec.hwtrec saved no history.idx"
"$HWTREC" dump "$WORK/rec.hwtrec" --insn --json >"$WORK/dump-saved.jsonl" \
	2>"$WORK/dump-saved.stderr" ||
	fail "hwtrec dump --insn --json with the saved index failed"
elapsed "hwtrec dump with the saved index"
[ ! -s "$WORK/dump-saved.stderr" ] || {
	show "$WORK/dump-saved.stderr"
	fail "hwtrec dump said something with the saved index (above)"
}
cmp -s "$WORK/dump.jsonl" "$WORK/dump-saved.jsonl" ||
	fail "the history read from the saved index differs from the built one ($WORK/dump.jsonl, $WORK/dump-saved.jsonl)"
[ "$("$HWTREC" info --json "$WORK/rec.hwtrec" | jq -r .index)" = saved ] ||
	fail "hwtrec info --json does not say \"index\": \"saved\" on a third open"

if [ -n "$REFERENCE_SOURCE" ]; then
	# shellcheck disable=SC2086
	(cd "$WORK" && "$HWTREC_REFERENCE" record --source="$REFERENCE_SOURCE" \
		-o ref.hwtrec -- "$prog" $ARGS >ref.stdout 2>ref.stderr)
	st=$?
	elapsed "hwtrec record --source=$REFERENCE_SOURCE"
	show "$WORK/ref.stderr"
	expect_status $st "$STATUS" "hwtrec record --source=$REFERENCE_SOURCE"
	"$HWTREC_REFERENCE" dump "$WORK/ref.hwtrec" --insn --json \
		>"$WORK/ref.jsonl" 2>"$WORK/ref-dump.stderr" ||
		fail "hwtrec dump of the $REFERENCE_SOURCE recording failed"
	"$COMPARE" --allow-gap disabled --object "$prog" "$WORK/ref.jsonl" \
		"$WORK/dump.jsonl" ||
		fail "the recorded history of $name differs from the one recorded with --source=$REFERENCE_SOURCE (files in $WORK)"
fi
if [ -z "$STDOUT_VARIES" ]; then
	check_same_stdout || fail "the program behaved differently under hwtrec record"
fi
[ -n "$SOURCE_CHECK" ] && CHECK=$SOURCE_CHECK
if [ -n "$CHECK" ]; then
	"$CHECK" || fail "$CHECK failed"
fi
pass
