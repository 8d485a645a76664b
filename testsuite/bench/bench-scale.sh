#!/bin/sh
# bench-scale.sh BUILDDIR [SIZES]: issue 21's figures.  For each size (in
# millions of instructions; default "10 100", e.g. "10 100 1000") two
# programs are recorded with the software source, each ending in a crash:
# call-heavy (recursive calls, a function segment every 7 instructions) and
# loop-heavy (a 400-iteration loop per call).  Per recording it prints
# side by side: `hwtrec info` (the whole history build) CPU, wall and peak
# memory (/usr/bin/time), the same build on one thread (HWTREC_BUILD_THREADS=1;
# its index must be the same, byte for byte), and on one thread with every Intel
# PT chunk walked by libipt's block decoder (HWTREC_PT_WALK=block: the same index
# again) beside what the query walk did (chunks, fallbacks, block cache hit rate),
# libipt's block decoder alone over the same
# streams with the same settings (bench-libipt), and under `hwtrec replay`
# the time from GDB's start to its prompt at the crash (in report) and the
# first reverse-stepi, the first print after it (report's argument and $rsp:
# values from the data log, which `hwtrec record` writes by default),
# reverse-finish (out of report), `info registers` and a print of main's
# total there (the first values at a past position) and reverse-step after it, at a first open (no saved index) with the end of the trace decoded
# first and without (HWTREC_TAIL_BYTES=0: each waits for the whole build,
# as before issue 21 item 1; the two must stop at the same places and print
# the same values), and with the tail but without the data log's seek table
# (HWTREC_VALUES_SEEK=0: the tail's values wait for the pass over the whole
# log, as before the table), and a reverse-continue across the whole history to a breakpoint at
# main's start (bench-scale.py); with BENCH_BASELINE=ANOTHER_BUILDDIR (e.g.
# a build of an older commit), that reverse-continue again under its
# hwtrec replay, beside ours.  The first `hwtrec info` also saves the index
# in the recording (history.idx): its size, a second `hwtrec info` that
# reads it back (reopen) and the replay again with it present (prompt,
# first reverse-stepi) are printed too, and hwtrec-server's resident memory
# (all, anonymous, file-backed) at the prompt, after the reverse-continue
# and after the whole `record function-call-history` (at the first open and
# from the saved index; BENCH_FCH=0 skips that listing, which GDB prints
# at about 100,000 lines a second), and beside them the same program
# recorded --no-data under the same replay (first open, no listing): what
# the data log costs the server.  Figures only: it fails
# when the two decoders count different instructions, or a step fails.
set -eu
build=$(cd "${1:-../..}" && pwd)
sizes=${2:-10 100}
here=$(cd "$(dirname "$0")" && pwd)
hwtrec=$build/tools/hwtrec
libipt=$build/testsuite/bench/bench-libipt
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

cat > calls.c <<'C'
#include <stdlib.h>
volatile long sink;
int *volatile target;	/* NULL: the crash at the end */
__attribute__((noinline)) void report(long total)
{
	sink = total;
	*target = (int)total;
}
__attribute__((noinline)) long fib(long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
int main(int argc, char **argv)
{
	long n = atol(argv[1]), total = 0;
	for (long i = 0; i < n; i++)
		total += fib(15);	/* 1,973 calls */
	report(total);
	return 0;
}
C
cat > loops.c <<'C'
#include <stdlib.h>
volatile long sink;
int *volatile target;
__attribute__((noinline)) void report(long total)
{
	sink = total;
	*target = (int)total;
}
__attribute__((noinline)) long work(long i)
{
	long s = 0;
	for (int k = 0; k < 400; k++)
		s += (i ^ k) * 3;
	return s;
}
int main(int argc, char **argv)
{
	long n = atol(argv[1]), total = 0;
	for (long i = 0; i < n; i++)
		total += work(i);
	report(total);
	return 0;
}
C
cc -O1 -g calls.c -o calls
cc -O1 -g loops.c -o loops

# Instructions per iteration of each program's main loop, measured on a
# small recording (the rest is start-up).
per_iteration() {	# per_iteration PROGRAM
	for n in 10 110; do
		rm -rf probe.hwtrec
		(ulimit -c unlimited; "$hwtrec" record -q -o probe.hwtrec -- "./$1" $n \
			>/dev/null 2>&1) || true
		"$hwtrec" info probe.hwtrec | awk '/ instructions,/ { print $3 }'
	done | awk 'NR == 1 { a = $1 } NR == 2 { printf "%d\n", ($1 - a) / 100 }'
}

field() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
secs() { awk -v s="$1" 'BEGIN { if (s == "") print "-"; else printf "%.2f s", s }'; }
ms() { awk -v s="$1" 'BEGIN { printf "%.0f ms", s * 1000 }'; }
mb() { awk -v k="${1:--1}" 'BEGIN { if (k < 0) print "-"; else printf "%.0f", k / 1024 }'; }
# "RSS/ANON/FILE" in KB (bench-scale.py) as MB.
mb3() { echo "${1:--}" | awk -F/ 'NF == 3 { printf "%.0f/%.0f/%.0f", $1 / 1024, $2 / 1024, $3 / 1024; next } { print "-" }'; }

baseline=${BENCH_BASELINE:+$(cd "$BENCH_BASELINE" && pwd)}
printf '%-6s %-5s %12s %10s | %-22s %-22s %-22s %-26s %9s | %-18s | %8s %8s %8s %9s %8s %8s %9s | %8s %9s %8s %9s | %8s %9s %8s %8s | %8s %15s | %8s %-18s %8s %8s | %9s %9s | %-11s %-11s %-11s %8s | %-11s %-11s %8s | %8s %-11s %-11s\n' \
	program size instructions segments "hwtrec info CPU (wall)" "1 thread CPU (wall)" \
	"1t block walk CPU (wall)" "query walk (chunks, hits)" memory \
	"libipt alone CPU" prompt rstepi print rfinish regs pprint rstep "no tail:" rstepi print rfinish "no seek:" rfinish regs pprint \
	rcont "rcont baseline" index "reopen CPU (wall)" prompt rstepi "server" "srv saved" \
	"srv prompt" "srv rcont" "srv fch" fch "sv prompt" "sv fch" fch \
	"nodata" "nd prompt" "nd rcont"
for prog in calls loops; do
	per=$(per_iteration $prog)
	for size in $sizes; do
		iterations=$(awk -v s="$size" -v p="$per" 'BEGIN { printf "%d", s * 1e6 / p }')
		rec=$prog-$size.hwtrec
		(ulimit -c unlimited; "$hwtrec" record -q -o "$rec" -- "./$prog" \
			"$iterations" >/dev/null 2>record.err) || true
		[ -f "$rec/core" ] || { cat record.err; echo "bench-scale: no recording of $prog"; exit 1; }

		/usr/bin/time -f "%U %S %e %M" -o info.time "$hwtrec" info "$rec" > info.out
		read -r user sys wall kb < info.time
		insns=$(awk '/ instructions,/ { print $3 }' info.out)
		segs=$(awk '/ instructions,/ { print $5 }' info.out)
		gaps=$(awk '/ instructions,/ { print $8 }' info.out)
		[ -f "$rec/history.idx" ] || { echo "bench-scale: $rec: the first open saved no history.idx"; exit 1; }
		index_kb=$(( $(stat -c %s "$rec/history.idx") / 1024 ))
		# The same build on one thread (HWTREC_BUILD_THREADS=1): its
		# figures, and the same index byte for byte.
		cp "$rec/history.idx" index.many
		rm -f "$rec/history.idx"
		HWTREC_BUILD_THREADS=1 HWTREC_PT_STATS=1 /usr/bin/time -f "%U %S %e %M" -o info1.time \
			"$hwtrec" info "$rec" > info1.out 2> info1.err
		read -r user1 sys1 wall1 kb1 < info1.time
		cmp -s index.many "$rec/history.idx" || {
			echo "bench-scale: $rec: the index built on one thread differs"; exit 1; }
		query_walk=$(sed -n 's/^intel-pt query walk: \([0-9]*\) chunks, \([0-9]*\) left.*, \([0-9.]*%\) hits.*$/\1 q, \2 b, \3/p' info1.err)
		# Every chunk by libipt's block decoder: the same index.
		rm -f "$rec/history.idx"
		HWTREC_BUILD_THREADS=1 HWTREC_PT_WALK=block /usr/bin/time -f "%U %S %e %M" \
			-o infob.time "$hwtrec" info "$rec" > infob.out
		read -r userb sysb wallb kbb < infob.time
		cmp -s index.many "$rec/history.idx" || {
			echo "bench-scale: $rec: the index built with the block decoder differs"; exit 1; }
		threads=$(sed -n 's/^Index: *built (chunks decoded on \([0-9]*\) threads)$/\1/p' info.out)
		/usr/bin/time -f "%U %S %e %M" -o reopen.time "$hwtrec" info "$rec" > reopen.out
		read -r ruser rsys rwall rkb < reopen.time
		if ! grep -q '^Index: *saved' reopen.out ||
		   [ "$(grep ' instructions,' reopen.out)" != "$(grep ' instructions,' info.out)" ]; then
			echo "bench-scale: $rec: the reopen did not read the saved index, or counts differ"
			exit 1
		fi
		"$libipt" "$rec" > libipt.out
		ipt_insns=$(field libipt.out instructions)
		# A gap takes one instruction number in the history.
		if [ "$ipt_insns" != "$((insns - gaps))" ]; then
			echo "bench-scale: $rec: hwtrec counts $insns instructions ($gaps gaps), libipt $ipt_insns"
			exit 1
		fi

		# The replay as at a first open (no saved index; it saves one),
		# first without the tail decoded ahead (HWTREC_TAIL_BYTES=0: every
		# command waits for the whole history, as before issue 21 item 1),
		# then with it, then again reading the saved index.
		for replay in notail noseek replay saved; do
			[ $replay = saved ] || rm -f "$rec/history.idx"
			tail_bytes=
			[ $replay = notail ] && tail_bytes=0
			values_seek=
			[ $replay = noseek ] && values_seek=0
			# The whole function-call history at the first open and
			# from the saved index only.
			fch=${BENCH_FCH:-1}
			case $replay in notail|noseek) fch=0 ;; esac
			HWTREC_TAIL_BYTES=$tail_bytes HWTREC_VALUES_SEEK=$values_seek \
				BENCH_FCH=$fch BENCH_T0=$(date +%s.%N) \
				BENCH_OUT=$work/$replay.txt BENCH_REC=$rec \
				timeout 1800 "$hwtrec" replay "$rec" -- -batch \
				-x "$here/bench-scale.py" > replay.out 2>&1 || true
			if [ -z "$(field $replay.txt reverse_step)" ]; then
				tail -20 replay.out
				echo "bench-scale: $rec: the replay commands did not run"
				exit 1
			fi
			# The crash is in report, which main calls.
			case "$(field $replay.txt first_reverse_stepi_at) $(field $replay.txt reverse_finish_at) $(field $replay.txt reverse_continue_at)" in
			"report main main") ;;
			*) cat $replay.txt; echo "bench-scale: $rec: reverse-stepi did not stay in report, or reverse-finish or reverse-continue did not stop in main"; exit 1 ;;
			esac
		done
		# The same program without the data log (--no-data), the same
		# replay at a first open: the server's memory beside the above.
		recn=$prog-$size-nodata.hwtrec
		(ulimit -c unlimited; "$hwtrec" record -q --no-data -o "$recn" -- \
			"./$prog" "$iterations" >/dev/null 2>record.err) || true
		[ -f "$recn/core" ] || { cat record.err; echo "bench-scale: no --no-data recording of $prog"; exit 1; }
		BENCH_FCH=0 BENCH_T0=$(date +%s.%N) BENCH_OUT=$work/nodata.txt \
			BENCH_REC=$recn timeout 1800 "$hwtrec" replay "$recn" -- \
			-batch -x "$here/bench-scale.py" > replay.out 2>&1 || true
		[ "$(field nodata.txt reverse_continue_at)" = main ] || {
			tail -20 replay.out; cat nodata.txt
			echo "bench-scale: $recn: the replay without the data log did not reach main"; exit 1; }
		rm -rf "$recn"
		rcont_base=-
		if [ -n "$baseline" ]; then
			BENCH_T0=$(date +%s.%N) BENCH_OUT=$work/baseline.txt \
				timeout 1800 "$baseline/tools/hwtrec" replay "$rec" -- -batch \
				-x "$here/bench-scale.py" > baseline.out 2>&1 || true
			[ "$(field baseline.txt reverse_continue_at)" = "$(field replay.txt reverse_continue_at)" ] || {
				tail -20 baseline.out; cat baseline.txt
				echo "bench-scale: $rec: the baseline's reverse-continue stopped elsewhere"; exit 1; }
			rcont_base=$(ms "$(field baseline.txt reverse_continue)")
		fi
		# The tail must answer as the whole history does.
		for f in first_reverse_stepi_at first_print_shows reverse_finish_at past_values_show reverse_step_at reverse_continue_at; do
			[ "$(field notail.txt $f)" = "$(field replay.txt $f)" ] &&
			[ "$(field noseek.txt $f)" = "$(field replay.txt $f)" ] || {
				cat notail.txt noseek.txt replay.txt
				echo "bench-scale: $rec: $f differs with and without the tail or the seek table"; exit 1; }
		done
		printf '%-6s %4sM %12s %10s | %-22s %-22s %-22s %-26s %6s MB | %-18s | %8s %8s %8s %9s %8s %8s %9s | %8s %9s %8s %9s | %8s %9s %8s %8s | %8s %15s | %5s MB %-18s %8s %8s | %6s MB %6s MB | %-11s %-11s %-11s %8s | %-11s %-11s %8s | %5s MB %-11s %-11s\n' \
			$prog "$size" "$insns" "$segs" \
			"$(secs "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')") ($(secs "$wall")) ${threads:-1}t" \
			"$(secs "$(awk -v u="$user1" -v s="$sys1" 'BEGIN { print u + s }')") ($(secs "$wall1"))" \
			"$(secs "$(awk -v u="$userb" -v s="$sysb" 'BEGIN { print u + s }')") ($(secs "$wallb"))" \
			"${query_walk:--}" \
			"$((kb / 1024))" "$(secs "$(field libipt.out cpu_seconds)")" \
			"$(secs "$(field replay.txt ready)")" \
			"$(ms "$(field replay.txt first_reverse_stepi)")" \
			"$(ms "$(field replay.txt first_print)")" \
			"$(ms "$(field replay.txt reverse_finish)")" \
			"$(ms "$(field replay.txt past_info_registers)")" \
			"$(ms "$(field replay.txt past_print)")" \
			"$(ms "$(field replay.txt reverse_step)")" "" \
			"$(ms "$(field notail.txt first_reverse_stepi)")" \
			"$(ms "$(field notail.txt first_print)")" \
			"$(ms "$(field notail.txt reverse_finish)")" "" \
			"$(ms "$(field noseek.txt reverse_finish)")" \
			"$(ms "$(field noseek.txt past_info_registers)")" \
			"$(ms "$(field noseek.txt past_print)")" \
			"$(ms "$(field replay.txt reverse_continue)")" "$rcont_base" \
			"$(awk -v k="$index_kb" 'BEGIN { printf "%.1f", k / 1024 }')" \
			"$(secs "$(awk -v u="$ruser" -v s="$rsys" 'BEGIN { print u + s }')") ($(secs "$rwall"))" \
			"$(secs "$(field saved.txt ready)")" \
			"$(ms "$(field saved.txt first_reverse_stepi)")" \
			"$(mb "$(field replay.txt server_peak_kb)")" \
			"$(mb "$(field saved.txt server_peak_kb)")" \
			"$(mb3 "$(field replay.txt server_prompt_kb)")" \
			"$(mb3 "$(field replay.txt server_rcont_kb)")" \
			"$(mb3 "$(field replay.txt server_fch_kb)")" \
			"$(secs "$(field replay.txt call_history)")" \
			"$(mb3 "$(field saved.txt server_prompt_kb)")" \
			"$(mb3 "$(field saved.txt server_fch_kb)")" \
			"$(secs "$(field saved.txt call_history)")" \
			"$(mb "$(field nodata.txt server_peak_kb)")" \
			"$(mb3 "$(field nodata.txt server_prompt_kb)")" \
			"$(mb3 "$(field nodata.txt server_rcont_kb)")"
		rm -rf "$rec"
	done
done
echo "(hwtrec info: the whole history built with its chunks decoded on Nt threads (HWTREC_BUILD_THREADS,"
echo " default the online CPUs); 1 thread: the same build with HWTREC_BUILD_THREADS=1, which must save the same index;"
echo " 1t block walk: the same again with HWTREC_PT_WALK=block (every chunk by libipt's block decoder; the same index);"
echo " query walk: the 1-thread build's chunks walked by libipt's query decoder (q), left to the block decoder (b),"
echo "  and its block cache's hit rate (HWTREC_PT_STATS);"
echo " memory: peak RSS of hwtrec info; prompt: GDB start to prompt at the crash under hwtrec replay;"
echo " rstepi, print, rfinish, regs, pprint, rstep: the first reverse-stepi, a print there (the end state: the core),"
echo "  then reverse-finish out of report, info registers and print total there (the first values at a past position),"
echo "  then reverse-step, answered from the end of the trace decoded first while the whole history is built; with the"
echo "  data log (the default) the first past values come from the log's last part (its seek table), not the build;"
echo " no seek: the same reverse-finish, info registers and print with HWTREC_VALUES_SEEK=0: the values wait for the"
echo "  pass over the whole log (hwtr_values_load), as before the seek table;"
echo " no tail: the same first reverse-stepi, print and reverse-finish with HWTREC_TAIL_BYTES=0 (waiting for the whole build, as before);"
echo " rcont: then, the whole history built, reverse-continue to main's start across it (the search alone; main shares"
echo "  its 32-byte line with the hot function, so only the chunks' code ranges skip chunks); baseline: the same under BENCH_BASELINE's hwtrec;"
echo " index: history.idx saved by the first open; reopen: hwtrec info reading it; prompt, rstepi: the replay with it;"
echo " server, srv saved: hwtrec-server's peak resident memory (VmHWM) at the end of the replay at a first open"
echo "  (it builds the index) and of the one from the saved index;"
echo " srv prompt, srv rcont, srv fch: its resident MB (all/anonymous/file-backed, smaps_rollup) at the prompt, after"
echo "  the reverse-continue and after the whole record function-call-history (GDB printing it to /dev/null; fch: its"
echo "  seconds; BENCH_FCH=0 skips it), at the first open; sv prompt, sv fch: the same reading the saved index;"
echo " nodata, nd prompt, nd rcont: the server's peak and the same at the prompt and after the reverse-continue, for"
echo "  the same program recorded --no-data (first open): the data log's cost is the difference.)"
