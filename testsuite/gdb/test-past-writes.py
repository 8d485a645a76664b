#!/usr/bin/env python3
"""test-past-writes.py: commands that would change the program at a past
position say what hwtrec does instead, in `hwtrec replay` and live.

record full, at a past position, writes (`set var x = 5`, after asking),
cuts its log there (`record delete`) or goes on from there (`record
stop`).  hwtrec cannot: a recording is read-only, and live the process is
where the history ends.  Before, `set var` said only GDB's "Cannot access
memory at address ..." (GDB 13 shows no text of a refused memory write),
and `record stop` / `record delete` in a replay said "No recording is
currently active", which `info record` contradicts; live, `record stop` at
a past position moved GDB to the live state without showing it.  Now the
server says why a write is refused, the two commands say what they cannot
do, and a live `record stop` prints the frame the program goes on from.

roster-prog (scenarios/roster-prog.c): lucky = rand() % 100 after
srand(7), checked against this libc's rand (ctypes) before and after the
refused write; the live process goes on from the line marked L:crash.

Exit 0 when all is as expected, 1 otherwise, 77 without `hwtrec record`.
"""
import ctypes
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish

HWTREC = os.environ.get("HWTREC", "")
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
SRCDIR = os.environ.get("SRCDIR", os.path.dirname(os.path.abspath(__file__)))
PROG = os.path.join(TESTDIR, "roster-prog")
SOURCE = os.path.join(SRCDIR, "scenarios", "roster-prog.c")
WRITE_NOTE = re.compile(r"hwtrec-server: memory at 0x[0-9a-f]+ not written: "
                        r"(the recording is read-only|cannot write registers "
                        r"or memory while replaying)")
REPLAY_REFUSAL = ("hwtrec replays a recording, which cannot be %s: its "
                  "program ran when it was recorded")
LIVE_DELETE = ("hwtrec cannot delete the history after this position and "
               "record on from here: the live process is where the history "
               "ends.")
NO_RECORDING = "No recording is currently active"


def lucky():
    libc = ctypes.CDLL("libc.so.6")
    libc.srand(7)
    return libc.rand() % 100


def crash_line():
    with open(SOURCE) as f:
        for number, text in enumerate(f, 1):
            if "L:crash" in text:
                return number
    raise SystemExit("no L:crash in " + SOURCE)


def gdb_args(cmds):
    args = ["-nx", "-batch", "-ex", "set confirm off"]
    for c in cmds:
        args += ["-ex", c]
    return args


def run(args, work):
    # One pipe for GDB's and the server's output: in order.
    return subprocess.run(args, cwd=work, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300).stdout


def part(out, tag, until):
    return out.split(tag + "\n", 1)[-1].split(until + "\n", 1)[0]


def past_commands(live):
    """At the end, then at compute()'s breakpoint in the past."""
    return ["echo DELETE-AT-END\\n", "record delete",
            "break compute", "reverse-continue",
            "echo SET-VAR\\n", "p lucky", "set var lucky = 5",
            "echo PRINT-ASSIGN\\n", "print lucky = 6",
            "echo AFTER\\n", "p lucky",
            "echo DELETE\\n", "record delete",
            "echo STOP\\n", "record stop",
            "echo STOPPED\\n", "bt 1", "p lucky", "info record",
            "echo END\\n"]


def check_common(mode, out, expect):
    check("Already at end of record list." in part(out, "DELETE-AT-END",
                                                   "SET-VAR"),
          "%s: record delete at the end says GDB's words" % mode, out)
    for tag, until in (("SET-VAR", "PRINT-ASSIGN"), ("PRINT-ASSIGN", "AFTER")):
        text = part(out, tag, until)
        note = WRITE_NOTE.search(text)
        check(note is not None and "Cannot access memory" in text and
              note.start() < text.index("Cannot access memory") and
              len(WRITE_NOTE.findall(text)) == 1,
              "%s: %s in the past says once why before GDB's error"
              % (mode, tag.lower()), text)
    values = re.findall(r"^\$\d+ = (-?\d+)$", part(out, "SET-VAR", "DELETE"),
                        re.M)
    check(values == [str(expect)] * 2,
          "%s: lucky is %d before and after (%s)" % (mode, expect, values),
          out)


def main():
    if not os.access(HWTREC, os.X_OK):
        print("SKIP: no hwtrec")
        sys.exit(77)
    expect, line = lucky(), crash_line()
    with tempfile.TemporaryDirectory(prefix="hwtrec-writes-") as work:
        rec = os.path.join(work, "r.hwtrec")
        subprocess.run([HWTREC, "record", "-q", "-o", rec, "--", PROG],
                       cwd=work, capture_output=True, timeout=300)
        out = run([HWTREC, "replay", rec, "--"] +
                  gdb_args(past_commands(False)), work)
        check_common("replay", out, expect)
        check(REPLAY_REFUSAL % "cut here" in part(out, "DELETE", "STOP"),
              "replay: record delete in the past says it cannot", out)
        check(REPLAY_REFUSAL % "stopped" in part(out, "STOP", "STOPPED"),
              "replay: record stop says it cannot", out)
        stopped = part(out, "STOPPED", "END")
        check(re.search(r"^#0 .*compute \(", stopped, re.M) and
              "Replay in progress" in stopped and NO_RECORDING not in stopped,
              "replay: still at compute(), replaying", stopped)

        out = run([HWTREC, "gdb"] + gdb_args(
            ["break main", "continue", "record hwt", "delete", "continue"] +
            past_commands(True)) + ["--", PROG], work)
        check_common("live", out, expect)
        check(LIVE_DELETE in part(out, "DELETE", "STOP"),
              "live: record delete in the past says it cannot", out)
        stop = part(out, "STOP", "STOPPED")
        check("Process record is stopped" in stop and
              re.search(r"^#0 .* main \(.*roster-prog\.c:%d$" % line, stop,
                        re.M),
              "live: record stop in the past shows main at line %d, where "
              "the program goes on" % line, stop)
        stopped = part(out, "STOPPED", "END")
        check(re.search(r"^#0 .* main \(", stopped, re.M) and
              NO_RECORDING in stopped and
              re.search(r"^\$\d+ = %d$" % expect, stopped, re.M),
              "live: after record stop, main, lucky %d, no recording"
              % expect, stopped)
    finish()


main()
