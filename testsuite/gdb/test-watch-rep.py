#!/usr/bin/env python3
"""Watchpoints on memory that x86 string instructions (rep movsb, rep
stosq, a rep movsb run down with the direction flag set) read and write,
served by hwtrec-server from the data log, vs GDB's hardware watchpoints
on the live rep-prog.

The oracle: GDB runs rep-prog from main with `record full` on (natively,
or through gdbserver where native GDB cannot undo an SSE instruction:
testsuite/oracle/record_full.py), recording, so that the CPU's debug
registers trap, and the same watchpoints; at each stop it notes the PC,
whether the instruction there is a rep string one (`x/2i $pc`: then the
trap came between two of its iterations, and the next instruction's
address), what GDB printed, and, one `reverse-stepi` back, the PC of the
accessing instruction.

The trace knows a rep instruction as one instruction, so the replay has
no position between its iterations: where the live program stops inside
one, the replay must stop right after it (or, going back, at it),
printing the same lines.  One rep instruction may touch several watched
ranges (each at its own iteration, its own stop on hardware): the replay
must report each of them, one stop each.  Going back, the stops inside
one instruction are compared as a set (the replay does not order them by
iteration).

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
PROG = os.path.join(BUILDDIR, "rep-prog")
# (watchpoint commands, stops from main).  g_dst[40] is written and
# g_src[45] read by one rep movsb; g_words[5] and g_words[9] written by
# one rep stosq; g_src[10] read by rep movsb up and by rep movsb down;
# g_words[5] read and written (rep stosq twice, then main's load).
CASES = [(["watch g_dst[40]", "rwatch g_src[45]"], 2),
         (["watch g_words[5]", "watch g_words[9]"], 3),
         (["rwatch g_src[10]"], 2),
         (["awatch g_words[5]"], 3)]

# Ends what the commands setting the watchpoints printed.
START = "printf \"@@start 0x0\\n\"\n"


# The instructions `x/2i $pc` prints.
INSN = re.compile(r"^(=> )?\s*0x[0-9a-f]+ <")


def resumes_at(pc, insns):
    """Where the replay stands for a live stop at PC: after a rep string
    instruction the live program stopped inside of, else PC."""
    if len(insns) == 2 and re.search(r":\s+rep[a-z]* (movs|stos|lods|cmps|"
                                     r"scas)", insns[0]):
        return int(re.match(r"^\s*(0x[0-9a-f]+)", insns[1]).group(1), 16)
    return pc


def oracle(work, commands, n):
    script = record_full_at_main(PROG)
    script += "".join(c + "\n" for c in commands) + START
    for _ in range(n):
        script += ("continue\nx/2i $pc\nprintf \"@@after %#lx\\n\", $pc\n"
                   "reverse-stepi\nprintf \"@@insn %#lx\\n\", $pc\n"
                   "record goto end\n")
    path = os.path.join(work, "oracle.gdb")
    with open(path, "w") as f:
        f.write(script)
    out = run(["gdb", "-nx", "-batch", "-x", path, PROG], work, oracle=True)
    return (stops(out, "after", INSN), [pc for pc, _ in stops(out, "insn")],
            out)


def replay(work, rec, commands, n):
    script = PREAMBLE + "break main\nreverse-continue\ndelete\n"
    script += "".join(c + "\n" for c in commands) + START
    script += "continue\nprintf \"@@after %#lx\\n\", $pc\n" * n
    script += "reverse-continue\nprintf \"@@back %#lx\\n\", $pc\n" * n
    script += "reverse-continue\nprintf \"@@begin %#lx\\n\", $pc\n"
    script += "info watchpoints\n"
    path = os.path.join(work, "replay.gdb")
    with open(path, "w") as f:
        f.write(script)
    out = run([HWTREC, "replay", rec, "--", "-batch", "-x", path], work)
    return stops(out, "after"), stops(out, "back"), out


def grouped(found):
    """Consecutive stops at one PC as one (pc, sorted lines): the replay
    reports the watchpoints one instruction touched in an order of its
    own."""
    groups = []
    for pc, lines in found:
        if groups and groups[-1][0] == pc:
            groups[-1][1].extend(lines)
        else:
            groups.append((pc, list(lines)))
    return [(pc, sorted(lines)) for pc, lines in groups]


def undone(lines):
    """What GDB prints going back over a write it printed going forward:
    the old and new values swapped."""
    swap = {"Old value = ": "New value = ", "New value = ": "Old value = "}
    return [swap.get(l[:12], l[:12]) + l[12:] for l in lines]


def main():
    if not HWTREC or not os.access(HWTREC, os.X_OK):
        print("SKIP: no hwtrec tool (%s)" % HWTREC)
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="hwtrec-watch-rep.")
    try:
        rec = os.path.join(work, "rep.hwtrec")
        out = run([HWTREC, "record", "-q", "-o", rec, "--", PROG], work)
        check(os.path.isdir(rec), "hwtrec record made a recording", out)
        for commands, n in CASES:
            what = " + ".join(commands)
            want, insns, live = oracle(work, commands, n)
            check(len(want) == n and len(insns) == n,
                  "%s: the live program stops %d times (oracle)" % (what, n),
                  live[-3000:])
            after, back, out = replay(work, rec, commands, n)
            expect = [(resumes_at(pc, i), l) for pc, l, i in want]
            check(after == expect,
                  "%s: continue stops where the live program's hardware "
                  "watchpoints do (after a rep instruction it stopped "
                  "inside), printing the same" % what,
                  "live:   %s\nhwtrec: %s\n%s" % (
                      [(hex(pc), l) for pc, l in expect],
                      [(hex(pc), l) for pc, l in after], out[-3000:]))
            # Going back: at each accessing instruction, the last first.
            expect_back = grouped([(pc, undone(l)) for pc, (_, l, _) in
                                   zip(insns, want)][::-1])
            got_back = grouped(back)
            check(got_back == expect_back,
                  "%s: reverse-continue stops at each accessing instruction "
                  "(live: one reverse-stepi back from each stop), each "
                  "watchpoint once, printing the values undone" % what,
                  "want: %s\ngot:  %s\n%s" % (
                      [(hex(pc), l) for pc, l in expect_back],
                      [(hex(pc), l) for pc, l in got_back], out[-3000:]))
            check("No more reverse-execution history" in
                  out[out.rfind("@@back"):],
                  "%s: then the start of the history" % what, out[-1500:])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    finish()


main()
