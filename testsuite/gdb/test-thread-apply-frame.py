#!/usr/bin/env python3
"""test-thread-apply-frame.py: `thread apply` with an outer frame selected
keeps that frame selected, and GDB alive.

After `thread apply all bt`, `thread N` and back, and the like, GDB 13
re-finds the selected frame (frame 1 after `up`) by unwinding inside its
own lookup of the selected frame.  The plugin's unwinder sent its qHwtr
packets there with `maintenance packet`, a command, which asks for the
selected frame again: GDB died ("Recursive internal problem"), at the
crash as in the past, replayed and live.  The unwinder now reuses the
replies it had when the frame was selected (hwtrecord/target.py).

exited-thread-prog's recording, `hwtrec replay`: at the crash, `thread 2`
(the thread waiting in pause()), `up`, `thread apply all bt 1`, then
`frame` must show the frame GDB on the recording's core shows after
`thread 2`, `up`; at a past stop in work(), the frame selected before
`thread apply all bt 1`, and before `thread apply 2 p $pc` (which builds
no chain in thread 2), must be the one selected after it.

Exit 0 when all is as expected, 1 otherwise, 77 without `hwtrec record`.
"""
import os
import re
import subprocess

from checks import check, finish, recorded

HWTREC = os.environ.get("HWTREC", "")
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
PROG = os.path.join(TESTDIR, "exited-thread-prog")
FRAME = re.compile(r"^(#1 .*)$", re.M)


def run(args, cmds, work):
    for c in cmds:
        args += ["-ex", c]
    # One pipe for both: GDB's errors in order with its output.
    return subprocess.run(args, cwd=work, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300).stdout


def frame_line(text):
    """Frame 1's line, without its address (the core's and the server's
    agree, but only its function, arguments and line matter here)."""
    found = FRAME.findall(text)
    return re.sub(r"0x[0-9a-f]+ in ", "", found[-1]) if found else None


def main():
    with recorded(PROG, "e.hwtrec", "hwtrec-apply-") as (work, rec):
        core = os.path.join(rec, "core")
        check(os.path.exists(core), "the recording ends at the crash (a core)")
        on_core = run(["gdb", "-nx", "-batch", PROG, core],
                      ["thread 2", "up", "echo CORE\\n", "frame"], work)
        oracle = frame_line(on_core.split("CORE\n", 1)[-1])
        check(oracle is not None and "pause" not in oracle.split(" (")[0],
              "GDB on the core: thread 2's frame 1 (%s)" % oracle, on_core)
        out = run([HWTREC, "replay", rec, "--", "-batch"],
                  ["thread 2", "up",
                   "thread apply all bt 1",
                   "echo END\\n", "frame",
                   "thread 1", "break work", "reverse-continue",
                   "thread 2", "up",
                   "echo PAST-BEFORE\\n", "frame",
                   "thread apply all bt 1",
                   "echo PAST-AFTER\\n", "frame",
                   "echo PAST-END\\n", "thread 1", "up",
                   "echo ONE-BEFORE\\n", "frame",
                   "thread apply 2 p $pc",
                   "echo ONE-AFTER\\n", "frame",
                   "echo ALIVE\\n"], work)
        check("Recursive internal problem" not in out and "ALIVE\n" in out,
              "GDB survives `thread apply` with frame 1 selected", out)
        at_end = frame_line(out.split("END\n", 1)[-1].split("PAST-BEFORE\n")[0])
        check(at_end is not None and at_end == oracle,
              "at the crash frame 1 stays selected, as on the core "
              "(%s, core %s)" % (at_end, oracle), out)
        before = frame_line(out.split("PAST-BEFORE\n", 1)[-1]
                            .split("PAST-AFTER\n")[0].split("\nThread ")[0])
        after = frame_line(out.split("PAST-AFTER\n", 1)[-1]
                           .split("PAST-END\n")[0])
        check(before is not None and before == after,
              "in the past frame 1 stays selected (%s, after %s)"
              % (before, after), out)
        # Thread 2's frame 0 only (no chain of its own is built there).
        before = frame_line(out.split("ONE-BEFORE\n", 1)[-1]
                            .split("ONE-AFTER\n")[0].split("\nThread ")[0])
        after = frame_line(out.split("ONE-AFTER\n", 1)[-1])
        check(before is not None and before == after,
              "thread 1's frame 1 stays selected after `thread apply 2 p $pc` "
              "(%s, after %s)" % (before, after), out)
    finish()


main()
