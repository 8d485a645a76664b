#!/usr/bin/env python3
"""perf's view of an exported cs_etm perf.data against the recording.

usage: perf-compare.py units RECORDING PERF_REPORT_D
       perf-compare.py insns RECORDING HWTREC PERF_SCRIPT

units: the AUXTRACE_INFO blocks perf's own reader prints (`perf report -D`)
are one per trace unit of the recording: its CPU and trace ID, and its
TRCCONFIGR and TRCIDR0..2 (the manifest's registers).

insns: `perf script --itrace=i1i -F cpu,ip` (perf's decoder, through
OpenCSD but with perf's own frame handling, queues and memory reads) lists
per CPU the instruction addresses our history of the unit on that CPU has,
in order (gaps are not instructions; perf skips what it cannot decode).
"""

import json
import re
import subprocess
import sys


def units(recording):
    with open(recording + "/manifest.json") as f:
        m = json.load(f)
    got = {}
    for t in m["threads"]:
        e = t["etm"]
        got[e["trace_id"]] = (t["tid"], e["cpu"], {
            k: int(e["regs"][k], 16) for k in
            ("TRCCONFIGR", "TRCIDR0", "TRCIDR1", "TRCIDR2")})
    return got


def check_units(recording, report):
    want = units(recording)
    blocks, cur = [], None
    for line in open(report, errors="replace"):
        m = re.match(r"\s+(Magic number|CPU|TRCTRACEIDR|TRCCONFIGR|TRCIDR0|"
                     r"TRCIDR1|TRCIDR2)\s+([0-9a-fA-F]+)\s*$", line)
        if not m:
            continue
        key, val = m[1], int(m[2], 16) if m[1] != "CPU" else int(m[2])
        if key == "Magic number":
            cur = {}
            blocks.append(cur)
        elif cur is not None:
            cur[key] = val
    if len(blocks) != len(want):
        sys.exit("perf lists %d trace units, the recording has %d" %
                 (len(blocks), len(want)))
    for b in blocks:
        tid = b.get("TRCTRACEIDR", 0) & 0x7f
        if tid not in want:
            sys.exit("perf lists trace ID 0x%x, not in the recording" % tid)
        _, cpu, regs = want[tid]
        if cpu >= 0 and b["CPU"] != cpu:
            sys.exit("trace ID 0x%x: perf says CPU %d, the recording %d" %
                     (tid, b["CPU"], cpu))
        for k, v in regs.items():
            if b.get(k) != v:
                sys.exit("trace ID 0x%x: perf reads %s 0x%x, the recording "
                         "has 0x%x" % (tid, k, b.get(k, -1), v))
    print("perf reads %d trace units as the recording has them" % len(blocks))


def check_insns(recording, hwtrec, script):
    perf = {}
    for line in open(script):
        m = re.match(r"\s*\[(\d+)\]\s+([0-9a-f]+)", line)
        if m:
            perf.setdefault(int(m[1]), []).append(int(m[2], 16))
    by_cpu = {cpu: tid for tid, cpu, _ in units(recording).values()}
    if not perf:
        sys.exit("perf script listed no instructions")
    for cpu, ips in sorted(perf.items()):
        if cpu not in by_cpu:
            sys.exit("perf lists CPU %d, no trace unit of the recording" % cpu)
        out = subprocess.run([hwtrec, "dump", recording, "--insn", "--json",
                              "--thread", str(by_cpu[cpu])],
                             capture_output=True, text=True, check=True)
        ours = [int(o["ip"], 16) for o in map(json.loads, out.stdout.splitlines())
                if "ip" in o]
        if ours != ips:
            n = next((i for i, (a, b) in enumerate(zip(ours, ips)) if a != b),
                     min(len(ours), len(ips)))
            sys.exit("CPU %d: ours %d instructions, perf %d; first difference "
                     "at %d" % (cpu, len(ours), len(ips), n))
        print("CPU %d: %d instructions, the same as perf's" % (cpu, len(ips)))


if __name__ == "__main__":
    if sys.argv[1:2] == ["units"] and len(sys.argv) == 4:
        check_units(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["insns"] and len(sys.argv) == 5:
        check_insns(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
