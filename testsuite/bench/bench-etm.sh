#!/bin/sh
# bench-etm.sh BUILDDIR [RUNS]: ETM decode throughput on the OpenCSD
# snapshots of the shared test data, ours beside OpenCSD's trc_pkt_lister on
# the same input, in one run.
#
# Ours: `hwtrec info` on the imported recording, which builds the history of
# every source (deformatting the buffer, the packet scan, the full decode,
# the function segments) and prints its counts.  The lister: `trc_pkt_lister
# -ss_dir DIR -decode` (its listing to /dev/null), and `-decode_only`.  Each
# is run RUNS times (default 20) and the mean wall and CPU time per run are
# printed, with instructions per CPU-second (the lister's count: the sum of
# its INSTR_RANGE elements, which ours equals, see test-lister.sh) and trace
# MB per CPU-second (the snapshot's trace buffers).  The snapshots are small
# (64 KB, 100 KB), so process start-up weighs on every figure, for both; a
# third input, uname x40, is juno-uname-002 with its trace buffer repeated
# 40 times (whole frames, each copy starting with an A-sync), where decoding
# dominates.  Times never fail it; a difference in instruction counts does.
set -eu
top_builddir=$(cd "${1:?usage: bench-etm.sh BUILDDIR [RUNS]}" && pwd)
runs=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
srcroot=$(cd "$here/../.." && pwd)
data=${HWTR_TESTDATA:-$srcroot/../shared/testdata}/opencsd
hwtrec=$top_builddir/tools/hwtrec
if [ ! -f "$data/juno_r1_1/snapshot.ini" ]; then
	echo "bench-etm: SKIP: no OpenCSD snapshots in $data (set HWTR_TESTDATA)"
	exit 77
fi
if ! command -v trc_pkt_lister >/dev/null 2>&1; then
	echo "bench-etm: SKIP: trc_pkt_lister not found (apt-get install libopencsd-bin)"
	exit 77
fi
tmp=$(mktemp -d /tmp/hwtr-bench-etm-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

status=0
python3 - "$hwtrec" "$data" "$tmp" "$runs" <<'EOF' || status=$?
import os, re, resource, subprocess, sys, time

hwtrec, data, tmp, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def timed(cmd):
    """Mean wall and CPU seconds per run of CMD over RUNS runs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    for _ in range(runs):
        # (the lister always writes trc_pkt_lister.ppl where it runs)
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True, cwd=tmp)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall / runs, cpu / runs


def lister_insns(snap):
    out = subprocess.run(["trc_pkt_lister", "-ss_dir", snap, "-decode_only",
                          "-logstdout"], capture_output=True, text=True,
                         check=True, cwd=tmp).stdout
    return sum(int(n) for n in re.findall(r"INSTR_RANGE\(.*num_i\((\d+)\)", out))


def trace_bytes(snap):
    total = 0
    for line in open(os.path.join(snap, "trace.ini")):
        m = re.match(r"\s*file\s*=\s*(\S+)", line)
        if m:
            total += os.path.getsize(os.path.join(snap, m[1]))
    return total


print("ETM decode throughput, %d runs each, mean per run (load %s)" %
      (runs, open("/proc/loadavg").read().split()[0]))
print("%-16s %-28s %9s %9s %14s %10s" % ("snapshot", "decoder", "wall ms",
                                          "CPU ms", "insn/CPU-s", "MB/CPU-s"))
# uname x40: the same snapshot, its buffer 40 times over.
big = os.path.join(tmp, "uname-x40")
os.mkdir(big)
for f in os.listdir(os.path.join(data, "juno-uname-002")):
    src = os.path.join(data, "juno-uname-002", f)
    if f == "trace.bin":
        blob = open(src, "rb").read()
        open(os.path.join(big, f), "wb").write(blob * 40)
    else:
        os.symlink(src, os.path.join(big, f))

status = 0
for name, snap in (("juno_r1_1", os.path.join(data, "juno_r1_1")),
                   ("juno-uname-002", os.path.join(data, "juno-uname-002")),
                   ("uname x40", big)):
    rec = os.path.join(tmp, name.replace(" ", "-") + ".hwtrec")
    subprocess.run([hwtrec, "import", "--opencsd-snapshot", snap, "-o", rec],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    info = subprocess.run([hwtrec, "info", rec], capture_output=True, text=True,
                          check=True).stdout
    gaps = sum(int(g) for g in re.findall(r"(\d+) gaps", info))
    want = lister_insns(snap)
    # Our instruction numbers include the gaps (one each, as GDB's btrace).
    ours = sum(int(n) for n in re.findall(r"(\d+) instructions", info)) - gaps
    if ours != want:
        print("%s: we decode %d instructions, the lister %d" % (name, ours, want))
        status = 1
    mb = trace_bytes(snap) / 1e6
    for label, cmd in (
            ("hwtrec info (history)", [hwtrec, "info", rec]),
            ("trc_pkt_lister -decode", ["trc_pkt_lister", "-ss_dir", snap,
                                        "-decode", "-logfilename", "/dev/null"]),
            ("trc_pkt_lister -decode_only", ["trc_pkt_lister", "-ss_dir", snap,
                                             "-decode_only", "-logfilename",
                                             "/dev/null"])):
        wall, cpu = timed(cmd)
        print("%-16s %-28s %9.2f %9.2f %14.0f %10.2f" % (
            name, label, wall * 1e3, cpu * 1e3, want / cpu if cpu else 0,
            mb / cpu if cpu else 0))
    print("%-16s %d instructions, %d gaps, %.3f MB of trace buffers" %
          ("", want, gaps, mb))
sys.exit(status)
EOF
exit $status
