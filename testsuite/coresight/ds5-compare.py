#!/usr/bin/env python3
"""Our ETM histories against Arm DS-5's per-instruction trace reports.

usage: ds5-compare.py DS5_DIR RECORDING HWTREC

DS5_DIR holds DS-5's reports of the juno_r1_1 snapshot, one per core
(Trace_Report_0xID_cpu_N_*.txt): a line per instruction (`EL1N:0xADDR<TAB>
OPCODE<TAB>disassembly`) and lines for events (`Return from exception`,
`Cannot access target memory`, ...).  DS-5 is an independent decoder: our
instruction addresses for each of those sources must be DS-5's, in order.

One difference is known and checked rather than ignored: where DS-5 writes
"Return from exception", it does not list the instructions that led to the
exception return (the tail of the range that ends in the ERET; OpenCSD lists
them, and so do we).  There, and only there, our history may hold
instructions DS-5 lacks, and they must end with an `eret`.
"""

import json
import os
import re
import subprocess
import sys

REPORT = re.compile(r"Trace_Report_0x([0-9a-fA-F]+)_")
INSN = re.compile(r"EL\w+:0x([0-9A-Fa-f]+)\t([0-9A-Fa-f]{4,8})\t")


def ds5(path):
    items = []
    with open(path, errors="replace") as f:
        for line in f:
            m = INSN.match(line)
            if m:
                items.append(("insn", int(m[1], 16)))
            elif "Return from exception" in line:
                items.append(("eret",))
    return items


def ours(hwtrec, recording, tid):
    out = subprocess.run([hwtrec, "dump", recording, "--insn", "--json",
                          "--thread", str(tid)], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit("hwtrec dump --thread %d: %s" % (tid, out.stderr))
    return [json.loads(l) for l in out.stdout.splitlines()
            if '"ip"' in l]


def compare(tid, want, got):
    i = j = matched = skipped = returns = 0
    while i < len(want):
        w = want[i]
        if w[0] == "eret":
            # Our extra instructions up to the next one DS-5 lists.
            nxt = next((x[1] for x in want[i + 1:] if x[0] == "insn"), None)
            k = j
            while k < len(got) and (nxt is None or int(got[k]["ip"], 16) != nxt):
                k += 1
            if k > j:
                if got[k - 1]["insn"] != "eret":
                    raise SystemExit(
                        "source 0x%x: before DS-5's exception return at our "
                        "instruction %d we have %d instructions DS-5 does not "
                        "list, ending with %s, not an eret" %
                        (tid, got[j]["number"], k - j, got[k - 1]["insn"]))
                skipped += k - j
                returns += 1
            j = k
            i += 1
            continue
        if j >= len(got) or int(got[j]["ip"], 16) != w[1]:
            raise SystemExit("source 0x%x: DS-5's instruction %d is 0x%x, ours "
                             "is %s" % (tid, matched + 1, w[1],
                                        got[j]["ip"] if j < len(got) else "none"))
        matched += 1
        i += 1
        j += 1
    if j != len(got):
        raise SystemExit("source 0x%x: we have %d instructions after DS-5's "
                         "last (from %s)" % (tid, len(got) - j, got[j]["ip"]))
    return matched, skipped, returns


def main():
    dsdir, recording, hwtrec = sys.argv[1:4]
    reports = sorted(f for f in os.listdir(dsdir) if REPORT.match(f))
    if not reports:
        raise SystemExit("%s: no DS-5 trace reports" % dsdir)
    for name in reports:
        tid = int(REPORT.match(name)[1], 16)
        matched, skipped, returns = compare(tid, ds5(os.path.join(dsdir, name)),
                                            ours(hwtrec, recording, tid))
        if not matched:
            raise SystemExit("source 0x%x: no instruction compared" % tid)
        print("source 0x%x: %d instructions agree with DS-5; %d more of ours "
              "before %d exception returns DS-5 does not list" %
              (tid, matched, skipped, returns))


if __name__ == "__main__":
    main()
