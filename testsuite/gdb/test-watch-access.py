#!/usr/bin/env python3
"""Read and access watchpoints (rwatch, awatch) that hwtrec-server serves
from the data log, vs GDB's hardware watchpoints on the live program.

The oracle: GDB runs watch-prog from main with `record full` on (natively,
or through gdbserver where native GDB cannot undo an SSE instruction:
testsuite/oracle/record_full.py), recording, not replaying: the CPU's debug
registers trap, and a hardware read or access watchpoint; at each stop it notes the PC (after the
accessing instruction, as x86 traps), what GDB printed (`Value = ...`, or
`Old value`/`New value` for a write), and, one `reverse-stepi` back, the
PC of the accessing instruction itself.  GDB's native rwatch is an access
watchpoint that ignores writes changing the value (x86 has no read-only
watchpoint): watch-prog never writes a watched value unchanged.

The replay (`hwtrec replay` of a recording of the same program, with its
data log) goes back to main, sets the same watchpoint and must stop at the
same places going forward, printing the same lines; then, with
reverse-continue from the last stop, at each accessing instruction in turn
(where record full stops going backward), a read watchpoint printing the
value read.  No software watchpoint may be made (GDB would single-step).

Without a data log (--no-data) the server has no watchpoints: `rwatch` is
refused by GDB ("Target does not support this type of hardware
watchpoint"), and `watch` makes a software watchpoint, as before.

Exit 0 when all agree, 1 otherwise, 77 without `hwtrec record`.
"""

import os
import re
import shutil
import sys
import tempfile

from checks import check, finish
from watch_stops import PREAMBLE, record_full_at_main, run, stops

BUILDDIR = os.environ.get("TESTDIR", os.getcwd())
HWTREC = os.environ.get("HWTREC", "")
PROG = os.path.join(BUILDDIR, "watch-prog")
# (command, expression, stops): each read of g_counter (look() four times,
# the store through NULL once), g_origin's write of y, read of y and write
# of x, g_text's reads by strlen and by the loop over it.
CASES = [("rwatch", "g_counter", 5), ("awatch", "g_origin", 3),
         ("rwatch", "g_text", 8)]

def oracle(work, kind, expr, n):
    script = record_full_at_main(PROG)
    script += "%s %s\n" % (kind, expr)
    for _ in range(n):
        script += ("continue\nprintf \"@@after %#lx\\n\", $pc\n"
                   "reverse-stepi\nprintf \"@@insn %#lx\\n\", $pc\n"
                   "record goto end\n")
    path = os.path.join(work, "oracle.gdb")
    with open(path, "w") as f:
        f.write(script)
    out = run(["gdb", "-nx", "-batch", "-x", path, PROG], work, oracle=True)
    return stops(out, "after"), [pc for pc, _ in stops(out, "insn")], out


def replay(work, rec, kind, expr, n):
    script = PREAMBLE + "break main\nreverse-continue\ndelete\n"
    script += "%s %s\n" % (kind, expr)
    script += "continue\nprintf \"@@after %#lx\\n\", $pc\n" * n
    script += "reverse-continue\nprintf \"@@back %#lx\\n\", $pc\n" * n
    script += "info watchpoints\n"
    path = os.path.join(work, "replay.gdb")
    with open(path, "w") as f:
        f.write(script)
    out = run([HWTREC, "replay", rec, "--", "-batch", "-x", path], work)
    return stops(out, "after"), stops(out, "back"), out


def main():
    if not HWTREC or not os.access(HWTREC, os.X_OK):
        print("SKIP: no hwtrec tool (%s)" % HWTREC)
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="hwtrec-watch-access.")
    try:
        rec = os.path.join(work, "data.hwtrec")
        out = run([HWTREC, "record", "-q", "-o", rec, "--", PROG], work)
        check(os.path.isdir(rec), "hwtrec record made a recording", out)
        for kind, expr, n in CASES:
            what = "%s %s" % (kind, expr)
            want, insns, live = oracle(work, kind, expr, n)
            check(len(want) == n and len(insns) == n,
                  "%s: the live program stops %d times (oracle)" % (what, n),
                  live[-3000:])
            after, back, out = replay(work, rec, kind, expr, n)
            check(after == want,
                  "%s: continue stops where the live program's hardware "
                  "watchpoint does, printing the same" % what,
                  "live:   %s\nhwtrec: %s\n%s" % (
                      [(hex(pc), l) for pc, l in want],
                      [(hex(pc), l) for pc, l in after], out[-3000:]))
            check([pc for pc, _ in back] == insns[::-1],
                  "%s: reverse-continue stops at each accessing "
                  "instruction (live: one reverse-stepi back from each "
                  "stop), the last first" % what,
                  "want: %s\ngot:  %s\n%s" % (
                      [hex(pc) for pc in insns[::-1]],
                      [hex(pc) for pc, _ in back], out[-3000:]))
            if kind == "rwatch":
                def values(found):
                    return [[v for v in l if v.startswith("Value = ")]
                            for _, l in found]
                check(values(back) == values(want)[::-1],
                      "%s: going back each stop prints the value read"
                      % what, "want: %s\ngot:  %s" % (
                          values(want)[::-1], values(back)))
            check("hw watchpoint" not in out and "acc watchpoint" in out
                  if kind == "awatch" else "read watchpoint" in out,
                  "%s: GDB made the server's hardware watchpoint" % what,
                  out[-1500:])

        nodata = os.path.join(work, "nodata.hwtrec")
        out = run([HWTREC, "record", "-q", "--no-data", "-o", nodata, "--",
                   PROG], work)
        check(os.path.isdir(nodata), "hwtrec record --no-data made a "
              "recording", out)
        # One -ex each: GDB goes on after a command that failed.
        commands = ["rwatch g_counter", "awatch g_counter",
                    "watch g_counter", "info watchpoints"]
        out = run([HWTREC, "replay", nodata, "--", "-batch"] +
                  [a for c in commands for a in ("-ex", c)], work)
        check(out.count("Target does not support this type of hardware "
                        "watchpoint.") == 2,
              "--no-data: rwatch and awatch are refused, saying why", out)
        check(re.search(r"^Watchpoint \d+: g_counter$", out, re.M) and
              re.search(r"^\d+\s+watchpoint\s+keep y\s+g_counter$", out,
                        re.M),
              "--no-data: watch makes a software watchpoint", out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    finish()


main()
