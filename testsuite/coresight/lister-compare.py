#!/usr/bin/env python3
"""Our ETM histories against OpenCSD's own lister, source by source.

usage: lister-compare.py SNAPSHOT_DIR RECORDING HWTREC [THREAD_BASE]

Runs `trc_pkt_lister -ss_dir SNAPSHOT_DIR -decode -logstdout` (Debian's
libopencsd-bin) and `hwtrec dump RECORDING --insn --json` for every trace ID
the lister decodes, and checks that the two say the same thing in the same
order:

- the lister's OCSD_GEN_TRC_ELEM_INSTR_RANGE elements, expanded into their
  instructions (A64 and A32: 4 bytes each), are our instructions, address by
  address, and every range's first and last instruction is ours;
- every ADDR_NACC element is a gap of ours at that point that names the
  address, with the lister's index as its offset;
- every NO_SYNC for an overflow or a bad packet is a gap of ours there; the
  first NO_SYNC (init-decoder) is our "precede the first A-sync" gap exactly
  when the stream has bytes before its first A-sync (when the lister lists
  no packets for the source, as for a single-source buffer, the gap may be
  there or not);
- a gap of ours for trace turned on again ("disabled") stands where the
  lister says TRACE_ON;
- a buffer cut short ends our history with one "truncated" gap, where the
  lister stops with an error instead of an element;
- we have no other gaps and no other instructions.

Prints one line per source (ranges, instructions and gaps compared) and
exits 1 on the first difference, naming it.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lister import expected, lister  # noqa: E402

def ours(hwtrec, recording, tid):
    out = subprocess.run([hwtrec, "dump", recording, "--insn", "--json",
                          "--thread", str(tid)], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit("hwtrec dump --thread %d: %s" % (tid, out.stderr))
    items = []
    for line in out.stdout.splitlines():
        o = json.loads(line)
        if "gap" in o:
            g = o["gap"]
            items.append(("gap", g["error"], g["offset"], g["message"], o["number"]))
        else:
            items.append(("insn", int(o["ip"], 16), o["number"]))
    return items


def compare(tid, want, got):
    """Walk both; return (instructions, gaps) compared, or exit."""
    i = j = insns = gaps = 0

    def bad(what):
        near = got[j][-1] if j < len(got) else "the end"
        raise SystemExit("source 0x%x: %s (our instruction number %s)" %
                         (tid, what, near))

    while i < len(want) or j < len(got):
        w = want[i] if i < len(want) else None
        g = got[j] if j < len(got) else None
        if w and w[0] == "unsynced?":
            if g and g[0] == "gap" and "precede the first A-sync" in g[3] and \
                    g[2] == w[1]:
                gaps += 1
                j += 1
            i += 1
            continue
        if w and w[0] == "trace-on":
            if g and g[0] == "gap" and g[1] == "disabled":
                gaps += 1
                j += 1
            i += 1
            continue
        if w is None and g and g[0] == "gap" and g[1] == "truncated" and \
                j == len(got) - 1:
            gaps += 1
            j += 1
            continue
        if w is None or g is None:
            bad("the lister has %s where we have %s" % (w, g))
        if w[0] == "insn":
            if g[0] != "insn" or g[1] != w[1]:
                bad("the lister executes 0x%x, we have %s" % (w[1], g[:4]))
            insns += 1
        elif w[0] == "nacc":
            if (g[0] != "gap" or g[1] != "address not accessible" or
                    ("at 0x%x " % w[1]) not in g[3] or g[2] != w[2]):
                bad("the lister has NACC 0x%x at index %d, we have %s" %
                    (w[1], w[2], g[:4]))
            gaps += 1
        elif w[0] == "unsynced":
            if g[0] != "gap" or "precede the first A-sync" not in g[3] or g[2] != w[1]:
                bad("the lister starts unsynchronised at index %d, we have %s" %
                    (w[1], g[:4]))
            gaps += 1
        elif w[0] in ("overflow", "bad"):
            kind = "overflow" if w[0] == "overflow" else "bad packet sequence"
            if g[0] != "gap" or g[1] != kind:
                bad("the lister loses sync (%s) at index %d, we have %s" %
                    (w[0], w[1], g[:4]))
            gaps += 1
        i += 1
        j += 1
    return insns, gaps


def main():
    snapshot, recording, hwtrec = sys.argv[1:4]
    # THREAD_BASE: our thread is THREAD_BASE | trace ID (a later session of
    # a multi-session snapshot; LISTER_ARGS=-src_name BUFFER picks it).
    base = int(sys.argv[4], 0) if len(sys.argv) > 4 else 0
    elements, first_async = lister(snapshot)
    total = 0
    for tid in sorted(elements):
        want, ranges = expected(elements[tid], first_async.get(tid))
        got = ours(hwtrec, recording, base | tid)
        insns, gaps = compare(tid, want, got)
        total += ranges
        print("source 0x%x: %d ranges (%d instructions) and %d gaps agree" %
              (tid, ranges, insns, gaps))
    if not total:
        raise SystemExit("the lister decoded no instruction range: nothing compared")


if __name__ == "__main__":
    main()
