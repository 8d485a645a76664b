#!/usr/bin/env python3
"""GDB (gdb-multiarch, through `hwtrec replay`) going back and forth in the
Arm code of the juno-uname-002 snapshot, every stop checked against OpenCSD's
lister.

usage: replay-arm.py SNAPSHOT_DIR RECORDING HWTREC

The recording's source 0x16 (user-space uname on a Cortex-A53, with
ld.so, libc and the vDSO) was first checked item for item against
trc_pkt_lister (lister-compare.py); so instruction number N of our history is
the lister's item N, and the PC GDB must show at N is the lister's.  GDB
runs one script; after each command it prints the PC and the position
(`info record`), and this script checks them:

- at the start: the last instruction the lister decodes;
- reverse-stepi, five times: the lister's previous instructions; and from
  an instruction right after kernel code (gaps: no image), over all the
  gaps to the instruction before them;
- reverse-continue to a breakpoint at __libc_memalign's entry (ld.so's
  dynamic symbol table, read with readelf): the last time the lister enters
  it, then the time before; continue: the time after again;
- reverse-step inside __libc_memalign (ld.so has symbols but no line
  information): GDB steps out backwards, through the PLT stub that jumped
  there (code no symbol holds), to the call in the function before it: the
  lister's last instruction before this activation's entry that a symbol
  holds (no call happens in between);
- record instruction-history over the stop: the lister's addresses, with
  GDB's "=>" at the stop; record function-call-history /i: the segment
  there is __libc_memalign from its entry.
"""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lister import expected, lister  # noqa: E402

SOURCE = 0x16
FUNCTION = "__libc_memalign"


def dynsyms(path):
    """NAME -> [start, end) of PATH's dynamic function symbols (readelf)."""
    out = subprocess.run(["readelf", "-W", "--dyn-syms", path],
                         capture_output=True, text=True, check=True).stdout
    funcs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
            start = int(f[1], 16)
            funcs[f[7].split("@")[0]] = (start, start + int(f[2], 0))
    return funcs


def main():
    snapshot, recording, hwtrec = sys.argv[1:4]
    elements, first_async = lister(snapshot)
    items, _ = expected(elements[SOURCE], first_async.get(SOURCE))
    items = [i for i in items if i[0] != "trace-on"]
    # Our instruction numbers: item N is number N + 1.
    pcs = {n + 1: it[1] for n, it in enumerate(items) if it[0] == "insn"}
    numbers = sorted(pcs)
    end = numbers[-1]

    ld = os.path.join(recording, "objects", "ld-2.21.bin")
    base = None
    for line in open(os.path.join(recording, "sideband.jsonl")):
        if '"ld-2.21.bin"' in line:
            base = int(re.search(r'"addr":"(0x[0-9a-f]+)"', line)[1], 16)
    funcs = {name: (a + base, b + base) for name, (a, b) in dynsyms(ld).items()}
    if FUNCTION not in funcs:
        raise SystemExit("%s: no dynamic symbol %s" % (ld, FUNCTION))
    lo, hi = funcs[FUNCTION]

    def named(pc):
        return any(a <= pc < b for a, b in funcs.values())
    entries = [n for n in numbers if pcs[n] == lo]
    if len(entries) < 3:
        raise SystemExit("the lister enters %s %d times: too few to test"
                         % (FUNCTION, len(entries)))
    # Five instructions into the second-to-last activation, none of them
    # outside the function: reverse-step lands on the instruction before.
    inside = entries[-2] + 4
    if not all(lo <= pcs.get(n, 0) < hi for n in range(entries[-2], inside + 1)):
        raise SystemExit("the lister leaves %s right after entering it"
                         % FUNCTION)
    # The last user instruction after a run of at least 3 gaps.
    after_gaps = max(n for n in numbers[1:] if all(
        k not in pcs for k in range(n - 3, n)))
    below_gaps = max(k for k in numbers if k < after_gaps)
    before = max(n for n in numbers if n < entries[-2] and named(pcs[n]))
    if any(named(pcs[n]) for n in numbers if before < n < entries[-2]):
        raise SystemExit("unexpected symbols between the call and the entry")

    script = [
        "echo @@start\\n", "p/x $pc", "info record",
    ]
    for k in range(5):
        script += ["reverse-stepi", "echo @@rsi%d\\n" % k, "p/x $pc", "info record"]
    script += [
        "break *0x%x" % lo,
        "reverse-continue", "echo @@rc1\\n", "p/x $pc", "info record",
        "reverse-continue", "echo @@rc2\\n", "p/x $pc", "info record",
        "continue", "echo @@c1\\n", "p/x $pc", "info record",
        "delete",
        "record goto %d" % after_gaps, "reverse-stepi", "echo @@over\\n",
        "p/x $pc", "info record",
        "record goto %d" % inside, "echo @@goto\\n", "p/x $pc", "info record",
        "reverse-step", "echo @@rs\\n", "p/x $pc", "info record",
        "echo @@ih\\n", "record instruction-history %d,%d" % (before - 2, before + 3),
        "echo @@ch\\n", "record function-call-history /i",
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
        f.write("\n".join(script) + "\n")
        path = f.name
    try:
        out = subprocess.run([hwtrec, "replay", recording, "--", "-batch", "-x",
                              path], capture_output=True, text=True,
                             timeout=300)
    finally:
        os.unlink(path)
    text = out.stdout + out.stderr
    stops = {}
    for mark, pc, at in re.findall(r"@@(\w+)\n\$\d+ = (0x[0-9a-f]+)\n"
                                   r"(?:(?!@@).*\n)*?Replay in progress\.  "
                                   r"At instruction (\d+)\.", text):
        stops[mark] = (int(pc, 16), int(at))
    # (The plugin's one-time note on memory in the past may follow the
    # first stop before the end.)
    start = re.search(r"@@start\n\$\d+ = (0x[0-9a-f]+)\n((?:.*\n)*?)"
                      r"0x[0-9a-f]+ in \?\? \(\)\n(?:hwtrec: .*\n)?@@rsi0", text)

    failures = []

    def check(what, got, want):
        if got != want:
            failures.append("%s: GDB says %s, the lister %s" % (what, got, want))
        else:
            print("ok: %s: %s" % (what, want))

    if not start:
        print(text)
        raise SystemExit("no start position in GDB's output")
    # At the end GDB is not replaying: info record gives no position.
    check("start: pc, and at the end", (int(start[1], 16),
                                        "Replay in progress" in start[2]),
          (pcs[end], False))
    back = [n for n in numbers if n < end][::-1]
    for k in range(5):
        check("reverse-stepi %d" % (k + 1), stops.get("rsi%d" % k),
              (pcs[back[k]], back[k]))
    check("reverse-continue to %s (last entry)" % FUNCTION, stops.get("rc1"),
          (lo, entries[-1]))
    check("reverse-continue again", stops.get("rc2"), (lo, entries[-2]))
    check("continue", stops.get("c1"), (lo, entries[-1]))
    check("reverse-stepi from %d over %d gaps" % (after_gaps,
                                                   after_gaps - below_gaps - 1),
          stops.get("over"), (pcs[below_gaps], below_gaps))
    check("record goto %d" % inside, stops.get("goto"), (pcs[inside], inside))
    check("reverse-step out of %s" % FUNCTION, stops.get("rs"),
          (pcs[before], before))
    # The listing: lines "N\t[=> ]0xADDR ..." or gaps.
    listing = text.split("@@ih\n", 1)[1].split("@@ch\n", 1)[0]
    lines = re.findall(r"^(\d+)\t(=> |   )0x([0-9a-f]+)", listing, re.M)
    want = [(n, pcs[n]) for n in range(before - 2, before + 4) if n in pcs]
    check("instruction-history addresses", [(int(n), int(a, 16)) for n, _, a in lines],
          want)
    check("instruction-history mark", [int(n) for n, m, _ in lines if m == "=> "],
          [n for n, pc in want if pc == pcs[before]])
    calls = text.split("@@ch\n", 1)[1]
    seg = re.search(r"^\d+\t%s\tinst (\d+),(\d+)$" % FUNCTION, calls, re.M)
    check("function-call-history: the segment after the stop",
          (FUNCTION, int(seg[1])) if seg else None, (FUNCTION, entries[-2]))
    if failures:
        print(text)
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
