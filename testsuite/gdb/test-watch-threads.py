#!/usr/bin/env python3
"""A watchpoint served from the data log across threads, on one time axis.

turns-prog: main hands the first turn out (g_turn = 1), then two workers
take turns under a mutex, each handing the turn to the other after its
deposit: g_turn is written seven times by three threads, in an order the
program fixes.  The oracle is GDB on the live program (native, hardware
watchpoint, which watches every thread), from start_turns: each stop's old
and new value and the function (with its arguments, pointers left out).

The replay of a recording of it (`hwtrec replay`, data log on) must stop
at the same changes: from the crash, `watch g_turn` and seven
reverse-continues meet them the last first, old and new swapped, each in
the thread that wrote (the function, its round, the worker's job->id);
then, from
start_turns, seven continues meet them in the live order.  GDB's record
full cannot record this program (clone3).

Exit 0 when all agree, 1 otherwise, 77 without `hwtrec record`.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from checks import check, finish

BUILDDIR = os.environ.get("TESTDIR", os.getcwd())
HWTREC = os.environ.get("HWTREC", "")
PROG = os.path.join(BUILDDIR, "turns-prog")
CHANGES = 7


def run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=120)
    return proc.stdout.decode("utf-8", "replace")


# After each stop: which worker stands there (job->id; "-" in main).
WHO = ("python f = gdb.selected_frame(); print('@@job', "
       "f.read_var('job')['id'] if f.name() == 'deposit' else '-')")


def changes(text):
    """[(old, new, frame, job)] for each watchpoint stop GDB printed;
    frame is `function (arguments)` with addresses left out, job WHO's."""
    found = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("Old value = ") or i + 2 >= len(lines):
            continue
        new = lines[i + 1]
        frame = re.sub(r"^0x[0-9a-f]+ in ", "", lines[i + 2])
        frame = re.sub(r" at .*", "", re.sub(r"0x[0-9a-f]+", "ADDR", frame))
        job = next((l.split()[1] for l in lines[i + 2:]
                    if l.startswith("@@job ")), None)
        found.append((line[len("Old value = "):],
                      new[len("New value = "):], frame, job))
    return found


def main():
    if not HWTREC or not os.access(HWTREC, os.X_OK):
        print("SKIP: no hwtrec tool (%s)" % HWTREC)
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="hwtrec-watch-threads.")
    try:
        live = run(["gdb", "-nx", "-batch", "-ex", "set pagination off",
                    "-ex", "break start_turns", "-ex", "run",
                    "-ex", "watch g_turn"] +
                   ["-ex", "continue", "-ex", WHO] * CHANGES + [PROG], work)
        want = changes(live)
        check(len(want) == CHANGES and "Hardware watchpoint" in live,
              "the live program's hardware watchpoint stops %d times "
              "(oracle)" % CHANGES, live[-3000:])
        rec = os.path.join(work, "rec.hwtrec")
        out = run([HWTREC, "record", "-q", "-o", rec, "--", PROG], work)
        check(os.path.isdir(rec), "hwtrec record made a recording", out)
        back = run([HWTREC, "replay", rec, "--", "-batch",
                    "-ex", "set pagination off", "-ex", "watch g_turn"] +
                   ["-ex", "reverse-continue", "-ex", WHO] * CHANGES +
                   ["-ex", "info watchpoints"], work)
        got = changes(back)
        check(got == [(new, old, frame, job)
                      for old, new, frame, job in want[::-1]],
              "reverse-continue meets the live run's changes the last "
              "first, old and new swapped, in the thread that wrote",
              "want: %s\ngot:  %s\n%s" % (want[::-1], got, back[-3000:]))
        check("hw watchpoint" in back,
              "GDB made the server's hardware watchpoint", back[-1500:])
        forward = run([HWTREC, "replay", rec, "--", "-batch",
                       "-ex", "set pagination off",
                       "-ex", "break start_turns", "-ex", "reverse-continue",
                       "-ex", "delete", "-ex", "watch g_turn"] +
                      ["-ex", "continue", "-ex", WHO] * CHANGES, work)
        got = changes(forward)
        check(got == want, "continue from start_turns meets the live "
              "run's changes in its order",
              "want: %s\ngot:  %s\n%s" % (want, got, forward[-3000:]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    finish()


main()
