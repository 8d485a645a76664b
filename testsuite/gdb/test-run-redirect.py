#!/usr/bin/env python3
"""test-run-redirect.py: `run ARGS < FILE > FILE` under `hwtrec gdb` gives
the program what a native `run` gives it, and values in the past are that
run's.

Natively GDB starts the program through a shell, which makes the
redirections; GDB 13 sends them to a remote `run` as arguments, so the
program got argv "<" "in.txt" and read /dev/null.  hwtrec-server now makes
them (run-request.c).  roster-prog reads "name score" lines from stdin.
The oracle is native GDB on the same program with the same `run`: argc,
the number of students read, and, after `record hwt` and a
reverse-continue to add_student with score 12, the name read then; the
output file exists; a missing input file is named.

Exit 0 when all is as expected, 1 otherwise, 77 without `hwtrec`.
"""
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish

HWTREC = os.environ.get("HWTREC", "")
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
PROG = os.path.join(TESTDIR, "roster-prog")
GDB = os.environ.get("HWTREC_GDB", "gdb")
INPUT = "zed 99\nyan 12\nxia 77\n"
PRINTS = ["echo VALUES\\n", "up", "p argc", "p n", "p tree->key",
          "p roster->name", "echo END\\n"]


def values(out):
    text = out.split("VALUES\n", 1)[-1].split("END\n", 1)[0]
    return re.findall(r"^\$\d+ = (.*)$", text, re.M)


def gdb(cmd, cmds, work, tail=()):
    args = list(cmd) + ["-nx", "-batch", "-ex", "set confirm off"]
    for c in cmds:
        args += ["-ex", c]
    args += list(tail)
    return subprocess.run(args, cwd=work, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=300).stdout


def main():
    if not os.access(HWTREC, os.X_OK):
        print("SKIP: no hwtrec")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="hwtrec-redirect-") as work:
        with open(os.path.join(work, "in.txt"), "w") as f:
            f.write(INPUT)
        run = "run one two < in.txt > native.txt"
        native = gdb([GDB, PROG], ["break compute", run] + PRINTS +
                     ["delete", "break add_student if score == 12", run,
                      "echo VALUES\\n", "p name[0]@3", "echo END\\n"], work)
        want = values(native)
        check(want[:2] == ["3", "3"], "native: argc 3, 3 students read "
              "(%s)" % want, native)
        want_past = values("VALUES\n" + native.rsplit("VALUES\n", 1)[-1])

        live = gdb([HWTREC, "gdb"],
                   ["break main", run.replace("native", "live"),
                    "record hwt", "break compute", "continue"] + PRINTS +
                   ["delete", "break add_student if score == 12",
                    "reverse-continue", "echo VALUES\\n", "p name[0]@3",
                    "echo END\\n", "kill", "run < missing.txt"],
                   work, ["--", PROG])
        got = values(live)
        check(got == want, "hwtrec gdb: argc, students read, tree and list "
              "as native (%s, native %s)" % (got, want), live)
        got_past = values("VALUES\n" + live.rsplit("VALUES\n", 1)[-1])
        check(got_past and got_past == want_past,
              "hwtrec gdb: in the past, add_student's name as native "
              "(%s, native %s)" % (got_past, want_past), live)
        check(os.path.exists(os.path.join(work, "live.txt")),
              "hwtrec gdb: > live.txt made the file", live)
        check("input from missing.txt: No such file or directory" in live,
              "hwtrec gdb: a missing input file is named", live)
    finish()


main()
