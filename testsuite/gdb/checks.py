"""checks.py: what the gdb tests written in Python share.

check() prints "ok: WHAT" or "FAIL: WHAT" (with DETAIL, indented, such as
GDB's output) and remembers each failure; finish() ends the test: exit 1
after any failure.  recorded() makes a test's recording, or skips the
test where there is no hwtrec.  gdb_batch() runs GDB on a program with a
command file and commands.  A test imports it from its own folder
(Python puts the script's folder first on sys.path).
"""

import contextlib
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what, detail=""):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)
        if detail:
            print("  | " + detail.replace("\n", "\n  | "))


def finish():
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)


@contextlib.contextmanager
def recorded(prog, name, prefix):
    """`hwtrec record -q` of PROG (its exit status is the program's, so not
    checked) into WORK/NAME in a new temporary folder; yields (WORK, the
    recording's path).  Exits 77 (skipped) when $HWTREC is not a program."""
    hwtrec = os.environ.get("HWTREC", "")
    if not os.access(hwtrec, os.X_OK):
        print("SKIP: no hwtrec")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix=prefix) as work:
        rec = os.path.join(work, name)
        subprocess.run([hwtrec, "record", "-q", "-o", rec, "--", prog],
                       cwd=work, capture_output=True, timeout=300)
        yield work, rec


def gdb_batch(work, script, cmds, prog, *files, pre=()):
    """GDB in batch mode in WORK: arguments PRE, the command file WORK/SCRIPT,
    each of CMDS as -ex, on PROG and FILES (a core); its stdout and stderr."""
    args = ["gdb", "-nx", "-batch"] + list(pre) + \
        ["-x", os.path.join(work, script)]
    for c in cmds:
        args += ["-ex", c]
    proc = subprocess.run(args + [prog] + list(files), cwd=work,
                          stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=300)
    return proc.stdout + proc.stderr
