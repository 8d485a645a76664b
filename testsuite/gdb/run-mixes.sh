#!/bin/sh
# run-mixes.sh SRCDIR BUILDDIR "TEMPLATES" "SEEDS" COMMANDS [live|replay
# [MIX-FLAGS]]: `make mix`; MIX-FLAGS go to scenario-mix.py (--data-moves).
# For each written scenario named (scenarios/NAME.scn) and each seed, a
# random command mix (scenario-mix.py) run by run-scenario against record
# full (with "live", under `hwtrec gdb` as scenarios/*.lscn are, instead of
# a replay of a recording).  Each mix and its verdict stay in BUILDDIR/mix/
# (NAME-mixSEED.scn, .log; live: NAME-mixSEED.lscn beside it); a summary
# line per mix, then the failed ones.  Not part of
# `make check`: a difference may be the oracle's or the program's (a local
# read before it is set), and is triaged by hand.
set -u
srcdir=$1 builddir=$2 templates=$3 seeds=$4 commands=$5 mode=${6:-replay}
flags=${7:-}
out=$builddir/mix
mkdir -p "$out"
failed=""
for t in $templates; do
	for seed in $seeds; do
		name=$t-mix$seed
		python3 "$srcdir/scenario-mix.py" --seed "$seed" $flags \
			--commands "$commands" "$srcdir/scenarios/$t.scn" \
			"$out/$name.scn" || exit 1
		run=$out/$name.scn
		if [ "$mode" = live ]; then
			run=$out/$name.lscn
			echo "#scenario $name.scn" > "$run"
		fi
		python3 "$srcdir/run-scenario" "$run" > "$out/$name.log" 2>&1
		rc=$?
		case $rc in
		0) echo "PASS: $name ($(sed -n 's/.*PASS (\(.*\))$/\1/p' "$out/$name.log"))" ;;
		77) echo "SKIP: $name" ;;
		*) echo "FAIL: $name (mix/$name.log)"; failed="$failed $name" ;;
		esac
	done
done
[ -z "$failed" ] || { echo "failed:$failed"; exit 1; }
