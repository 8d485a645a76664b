#!/usr/bin/env python3
"""etm-compare.py SNAPSHOT SOURCE RECORDING HWTREC: a recording made through
the stand-in's coresight backend, which played SNAPSHOT's source SOURCE (a
trace ID, e.g. 0x16) as the traced thread, against OpenCSD's own
trc_pkt_lister decoding SNAPSHOT.

Without losses in the recording's sideband, the thread's history must be the
lister's decode of SOURCE item for item: every instruction of every
INSTR_RANGE, every NACC and loss of sync at the same index (the recorded
buffer is the capture with its ID bytes rewritten in place, so indexes are
the capture's).  That is ../coresight/lister-compare.py's comparison.

With losses, the history is cut where the buffer was overwritten:
  - every loss after the stream's start is a "trace-loss" gap at its offset;
  - before the first of them the stream is the capture, byte for byte at the
    same offsets: our instructions and NACC gaps there (address, index) are
    the lister's first ones, in order;
  - after it, every run of instructions between gaps is a stretch of the
    lister's instruction sequence, the runs in the lister's order (each
    matched at its earliest place after the previous one);
  - some instructions were kept after the first loss.
Prints one line of figures; exits 1 on the first difference.
"""

import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORESIGHT = os.path.join(HERE, "..", "coresight")
sys.path.insert(0, CORESIGHT)
from lister import expected, lister  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "lister_compare", os.path.join(CORESIGHT, "lister-compare.py"))
lister_compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lister_compare)


def fail(what):
    raise SystemExit("etm-compare: " + what)


def prefix(want, got):
    """Our items before the first loss: the lister's first ones.  Returns
    how many instructions they hold."""
    mine = [("insn", g[1]) if g[0] == "insn" else ("nacc", g[2])
            for g in got if g[0] == "insn" or g[1] == "address not accessible"]
    theirs = [("insn", w[1]) if w[0] == "insn" else ("nacc", w[2])
              for w in want if w[0] in ("insn", "nacc")]
    for i, item in enumerate(mine):
        if i >= len(theirs) or theirs[i] != item:
            fail("before the first loss, item %d is %s, the lister's %s" %
                 (i, item, theirs[i] if i < len(theirs) else "nothing"))
    return sum(1 for m in mine if m[0] == "insn")


def runs_in_order(want, got, cursor):
    """Our runs of instructions (split at every gap) as stretches of the
    lister's instruction sequence from its CURSORth on, in order.  Returns
    (runs, instructions)."""
    seq = [w[1] for w in want if w[0] == "insn"]
    where = {}
    for i, ip in enumerate(seq):
        where.setdefault(ip, []).append(i)
    runs, run = [], []
    for g in got + [("gap",)]:
        if g[0] == "insn":
            run.append(g[1])
        elif run:
            runs.append(run)
            run = []
    insns = 0
    for k, r in enumerate(runs):
        found = None
        for i in where.get(r[0], []):
            if i >= cursor and seq[i:i + len(r)] == r:
                found = i
                break
        if found is None:
            fail("run %d (%d instructions from 0x%x) is not a stretch of the "
                 "lister's sequence after its position %d" %
                 (k, len(r), r[0], cursor))
        cursor = found + len(r)
        insns += len(r)
    return runs, insns


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    snapshot, source, recording, hwtrec = sys.argv[1:5]
    source = int(source, 0)
    manifest = json.load(open(os.path.join(recording, "manifest.json")))
    if len(manifest["threads"]) != 1:
        fail("%d threads in the recording, the capture has one" %
             len(manifest["threads"]))
    tid = manifest["threads"][0]["tid"]
    losses = []
    for line in open(os.path.join(recording, "sideband.jsonl")):
        ev = json.loads(line)
        if ev.get("event") == "loss":
            losses.append(ev["offset"])
    elements, first_async = lister(snapshot)
    if source not in elements:
        fail("the lister decodes no source 0x%x in %s" % (source, snapshot))
    want, ranges = expected(elements[source], first_async.get(source))
    got = lister_compare.ours(hwtrec, recording, tid)
    if not losses:
        insns, gaps = lister_compare.compare(source, want, got)
        print("thread %d = source 0x%x: %d ranges (%d instructions) and %d "
              "gaps agree with the lister" % (tid, source, ranges, insns, gaps))
        return 0
    lost = {g[2] for g in got if g[0] == "gap" and g[1] == "trace-loss"}
    cuts = sorted(o for o in losses if o > 0)
    for o in cuts:
        if o not in lost:
            fail("the loss at stream offset %d is no trace-loss gap" % o)
    if lost - set(cuts):
        fail("trace-loss gaps where the sideband has no loss: %s" %
             sorted(lost - set(cuts)))
    first = next(i for i, g in enumerate(got) if g[0] == "gap" and
                 g[1] == "trace-loss" and g[2] == cuts[0]) if cuts else len(got)
    before = prefix(want, got[:first])
    runs, insns = runs_in_order(want, got[first:], before)
    if cuts and not insns:
        fail("nothing was kept after the first loss")
    insns += before
    total = sum(1 for w in want if w[0] == "insn")
    print("thread %d = source 0x%x: %d losses (%d cutting the stream, each a "
          "trace-loss gap); %d instructions before the first as the lister's, "
          "%d runs after it, %d of the lister's %d instructions kept, each "
          "run a stretch of its sequence in order" %
          (tid, source, len(losses), len(cuts), before, len(runs), insns,
           total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
