#!/usr/bin/env python3
"""test-threads-time-axis.py: reverse-continue and continue of "any thread"
stop at the nearest breakpoint hit of any thread in recording time.

turns-prog's two workers deposit strictly in turn (worker 1 round 0, worker
2 round 0, worker 1 round 1, ...).  The oracle is GDB on the live program
run forward (record full cannot record clone3): the order of the stops at
the deposit breakpoint, each named by the stopped thread's job->id and
round.  The replay of a recording (plain GDB on hwtrec-server, values from
the data log) must stop at the same deposits in reverse order going back
from the crash, then in the same order going forward again, each time in
the thread that deposits (its job->id, its PC at the breakpoint), with "No
more reverse-execution history" at both ends; and the same when
another thread is selected before every resume (GDB first steps
the stopped thread over its breakpoint, then resumes "any thread": the
server used to move only the stopped thread, so worker 2's deposits were
never reached from worker 1's).  Without time stamps (the recording
exported to perf.data without TSC and imported back) the threads cannot be
ordered, and a reverse-continue moves the selected thread alone: each
worker meets its own three deposits, main none.

Exit 0 when all agree, 1 otherwise, 77 without `hwtrec record`.
"""
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish

HWTREC = os.environ.get("HWTREC", "")
SERVER = os.environ.get("HWTREC_SERVER", "")
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
SRCDIR = os.environ.get("SRCDIR", os.path.dirname(os.path.abspath(__file__)))
PROG = os.path.join(TESTDIR, "turns-prog")
DRIVER = os.path.join(SRCDIR, "threads-axis-driver.py")
SOURCE = os.path.join(SRCDIR, "scenarios", "turns-prog.c")


def gdb(mode, line, target=None):
    args = ["gdb", "-nx", "-batch", "-ex", "set pagination off",
            "-ex", "set $axis_mode = \"%s\"" % mode,
            "-ex", "set $axis_line = %d" % line]
    if target:
        args += ["-ex", target]
    args += ["-ex", "source " + DRIVER, PROG]
    proc = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=300)
    return proc.stdout + proc.stderr


def run_gdb(cmds):
    args = ["gdb", "-nx", "-batch", "-ex", "set pagination off"]
    for c in cmds:
        args += ["-ex", c]
    proc = subprocess.run(args + [PROG], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300)
    return proc.stdout


def axis(out):
    """(hits before AXIS FORWARD, hits after, the whole AXIS lines)."""
    # GDB prints "No more reverse-execution history." on its terminal
    # only, in order with the driver's lines.
    lines = [l for l in out.splitlines() if l.startswith("AXIS ") or
             l == "No more reverse-execution history."]
    back, fwd, cur = [], [], None
    cur = back
    for l in lines:
        if l == "AXIS FORWARD":
            cur = fwd
        elif l.startswith("AXIS HIT "):
            cur.append(l.split()[2] + (" " if "pc-at-break=True" in l
                                       else " pc-not-at-break"))
        elif l == "No more reverse-execution history.":
            cur.append("end")
    return back, fwd, "\n".join(lines)


def main():
    if not os.access(HWTREC, os.X_OK) or not os.access(SERVER, os.X_OK):
        print("SKIP: no hwtrec or hwtrec-server")
        sys.exit(77)
    with open(SOURCE) as f:
        line = next(i for i, l in enumerate(f, 1) if "L:deposit " in l)
    live = gdb("live", line)
    order, _, live_lines = axis(live)
    check(len(order) == 6 and all(h.endswith(" ") for h in order),
          "live: six deposits at the breakpoint (%s)" % order, live)
    with tempfile.TemporaryDirectory(prefix="hwtrec-axis-") as work:
        rec = os.path.join(work, "turns.hwtrec")
        # The program crashes: hwtrec record exits as it did.
        subprocess.run([HWTREC, "record", "-q", "-o", rec, "--", PROG],
                       capture_output=True, timeout=300)
        check(os.path.exists(os.path.join(rec, "core")),
              "the recording ends at the crash (a core)")
        target = "target remote | %s %s" % (SERVER, rec)
        back_expected = list(reversed(order)) + ["end"]
        fwd_expected = order + ["end"]
        for mode in ("replay", "hop"):
            out = gdb(mode, line, target)
            back, fwd, lines = axis(out)
            check(back == back_expected,
                  "%s: reverse-continue from the crash meets the live "
                  "deposits in reverse (%s, live %s)" % (mode, back, order),
                  out)
            check(fwd == fwd_expected,
                  "%s: continue from the start meets them in the live "
                  "order (%s)" % (mode, fwd), out)
        # Without time stamps (exported without TSC, imported back: no
        # core, no data log) the threads cannot be ordered: a
        # reverse-continue moves the selected thread alone, to its own
        # deposits (three each, as on the live program), then to its start.
        nt_data = os.path.join(work, "nt.data")
        nt_rec = os.path.join(work, "nt.hwtrec")
        subprocess.run([HWTREC, "export", "--perf", rec, "--no-tsc", "-o",
                        nt_data], capture_output=True, timeout=300)
        subprocess.run([HWTREC, "import", nt_data, "-o", nt_rec],
                       capture_output=True, timeout=300)
        per_thread = {}
        for num in (1, 2, 3):
            out = run_gdb(["target remote | %s %s" % (SERVER, nt_rec),
                           "break turns-prog.c:%d" % line,
                           "thread %d" % num] + ["reverse-continue"] * 4)
            stops = re.findall(r"Thread (\d+) hit Breakpoint 1, deposit", out)
            per_thread[num] = (stops, out.count(
                "No more reverse-execution history."))
        hits = sorted(len(v[0]) for v in per_thread.values())
        check(hits == [0, 3, 3] and
              all(set(v[0]) <= {str(k)} for k, v in per_thread.items()) and
              all(v[1] >= 1 for v in per_thread.values()),
              "without time stamps each thread goes back alone: its three "
              "deposits, main none, then its start (%s)" % per_thread)
    finish()


main()
