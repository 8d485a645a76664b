#!/bin/sh
# test-export-perf.sh: hwtrec export --perf checked by perf's own Intel PT
# decoder (independent of libipt): on recordings made with the Valgrind
# source of a single-threaded program (loops), a multi-threaded one
# (threads) and one calling into shared libraries through the PLT (plt),
# all PIE, `perf script --itrace=i1i` lists the same instructions per thread
# as `hwtrec dump --insn`, in every layout export writes, and
# `perf script --itrace=b` the same taken branches.
. "$PERF_TESTS/testlib.sh"
need_perf

for prog in loops threads plt; do
	case $prog in threads) build $prog -pthread ;; *) build $prog ;; esac
	record $prog
	"$HWTREC" dump $prog.hwtrec --insn /r > $prog.dump
	for layout in "" "--no-tsc" "--layout=per-cpu" "--layout=per-cpu --cpus 1" \
		"--snapshot"; do
		# shellcheck disable=SC2086
		"$HWTREC" export --perf $prog.hwtrec -o $prog.data $layout 2>export.err ||
			{ cat export.err; fail "$prog: export $layout failed"; }
		perf script -i $prog.data --itrace=i1i -F tid,ip > perf.insn 2>perf.err ||
			{ cat perf.err; fail "$prog $layout: perf script failed"; }
		echo "$prog ${layout:-per-thread}: instructions"
		python3 "$PERF_TESTS/compare-perf.py" insn perf.insn $prog.dump ||
			fail "$prog $layout: perf and hwtrec list different instructions"
		# Each decode error perf reports would be a disagreement too.
		if grep -q "instruction trace error" perf.err; then
			cat perf.err; fail "$prog $layout: perf reports decode errors"
		fi
	done
	"$HWTREC" export --perf $prog.hwtrec -o $prog.data
	perf script -i $prog.data --itrace=b -F hw:tid,ip,addr,flags > perf.br 2>perf.err ||
		{ cat perf.err; fail "$prog: perf script --itrace=b failed"; }
	echo "$prog per-thread: branches"
	python3 "$PERF_TESTS/compare-perf.py" branch perf.br $prog.dump ||
		fail "$prog: perf and hwtrec list different branches"
done
echo "PASS: perf's decoder agrees with hwtrec on every export"
