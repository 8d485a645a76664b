"""checks.py: what the gdb tests written in Python share.

check() prints "ok: WHAT" or "FAIL: WHAT" (with DETAIL, indented, such as
GDB's output) and remembers each failure; finish() ends the test: exit 1
after any failure.  A test imports it from its own folder (Python puts the
script's folder first on sys.path).
"""

import sys

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
