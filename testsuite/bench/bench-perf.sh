#!/bin/sh
# bench-perf.sh BUILDDIR: decoding the same Intel PT with perf's decoder and
# with hwtrec.  A program that runs about 70 million instructions is
# recorded (Valgrind source), exported with `hwtrec export --perf`, and the
# whole instruction history is listed both ways to /dev/null:
#   perf script --itrace=i1i -i rec.data      (one sample per instruction)
#   hwtrec dump rec.hwtrec --insn             (GDB's instruction-history format)
# Times (wall and CPU) and the ratio are printed beside the goal (hwtrec at
# least 10x faster); timing never fails the run.  WORK_ITERATIONS scales the
# program (about 2,800 instructions each).
set -eu
build=$(cd "${1:-../..}" && pwd)
hwtrec=$build/tools/hwtrec
command -v perf >/dev/null 2>&1 || { echo "bench-perf: perf is not installed; skipped"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-perf.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export HOME="$work" PERF_BUILDID_DIR="$work/.debug"

cat > work.c <<'C'
#include <stdlib.h>
volatile long sink;
__attribute__((noinline)) long work(long i)
{
	long s = 0;
	for (int k = 0; k < 400; k++)
		s += (i ^ k) * 3;
	return s;
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 25000, total = 0;
	for (long i = 0; i < n; i++)
		total += work(i);
	sink = total;
	return 0;
}
C
cc -O1 -g work.c -o work
"$hwtrec" record -q --source=valgrind -o rec.hwtrec -- ./work "${WORK_ITERATIONS:-25000}"
"$hwtrec" export --perf rec.hwtrec -o rec.data 2>/dev/null

# timed LABEL CMD...: run CMD with stdout to /dev/null; "wall cpu" seconds.
timed() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall:.2f} {ru.ru_utime + ru.ru_stime:.2f} {rc}")
PY
}
set -- $(timed perf script -i rec.data --itrace=i1i); perf_wall=$1 perf_cpu=$2 perf_rc=$3
set -- $(timed "$hwtrec" dump rec.hwtrec --insn); ours_wall=$1 ours_cpu=$2 ours_rc=$3
[ "$perf_rc" = 0 ] && [ "$ours_rc" = 0 ] || { echo "bench-perf: a decoder failed (perf $perf_rc, hwtrec $ours_rc)"; exit 1; }

insns=$("$hwtrec" info rec.hwtrec | awk '/instructions,/ { print $3 }')
echo "recording: $insns instructions, $(du -k rec.hwtrec/trace | cut -f1) KB of trace, perf.data $(du -k rec.data | cut -f1) KB; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-46s %12s %12s\n' "" "wall" "CPU"
printf '%-46s %11ss %11ss\n' "perf script --itrace=i1i > /dev/null" "$perf_wall" "$perf_cpu"
printf '%-46s %11ss %11ss\n' "hwtrec dump --insn > /dev/null" "$ours_wall" "$ours_cpu"
awk -v pw="$perf_wall" -v pc="$perf_cpu" -v ow="$ours_wall" -v oc="$ours_cpu" -v n="$insns" 'BEGIN {
	printf "%-46s %11.1fx %11.1fx   (goal: >= 10x)\n", "hwtrec faster than perf by", pw / ow, pc / oc
	printf "%-46s %12.0f %12.0f\n", "perf: instructions per second", n / pw, n / pc
	printf "%-46s %12.0f %12.0f\n", "hwtrec: instructions per second", n / ow, n / oc
}'
