#!/bin/sh
# test-record-source.sh: on a machine without the intel_pt PMU (this one, CI),
# hwtrec record --source=perf says that and what to do; the default source
# (auto) passes perf over, says why, and records with the Valgrind source.
. "$PERF_TESTS/testlib.sh"
[ -e /sys/bus/event_source/devices/intel_pt ] &&
	skip "this machine has the intel_pt PMU"
printf 'int main(void) { return 3; }\n' > three.c
cc -o three three.c
rc=0
"$HWTREC" record --source=perf -o p.hwtrec -- ./three 2>err || rc=$?
[ $rc -eq 125 ] || fail "--source=perf exited $rc, not 125"
grep -q "no intel_pt PMU in /sys/bus/event_source/devices" err &&
grep -q "use --source=valgrind" err || { cat err; fail "no reason given"; }
[ ! -e p.hwtrec ] || fail "a recording was left behind"
rc=0
"$HWTREC" record --source=perf -p $$ 2>err || rc=$?
[ $rc -eq 125 ] && grep -q "no intel_pt PMU" err || { cat err; fail "-p: $rc"; }
rc=0
"$HWTREC" record -o a.hwtrec -- ./three 2>err || rc=$?
[ $rc -eq 3 ] || { cat err; fail "auto: exit $rc, not the program's 3"; }
grep -q "using the valgrind source (perf: no intel_pt PMU" err ||
	{ cat err; fail "auto did not say why perf was passed over"; }
grep -q '"source": "valgrind"' a.hwtrec/manifest.json || fail "not the valgrind source"
echo "PASS"
