#!/usr/bin/env python3
"""test-tls-said-once.py: hwtrec-server says why it cannot place a
thread-local variable once, not at every request.

GDB asks qGetTLSAddr at every `print` of a TLS variable, and a software
watchpoint on one asks at every step: before the thread's TLS is set up
each failure printed "hwtrec-server: thread-local storage of thread N: ..."
(thousands of lines in a random command mix).  Now a failure is said once
until the reason changes or a request succeeds.  tls-prog's recording at
its 2000th instruction (TLS not set up): three prints fail (GDB's error
each time, the server's line once), one at the end succeeds, and one more
failure after it is said again.

Exit 0 when all is as expected, 1 otherwise, 77 without `hwtrec record`.
"""
import os
import subprocess

from checks import check, finish, recorded

HWTREC = os.environ.get("HWTREC", "")
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
PROG = os.path.join(TESTDIR, "tls-prog")
SAID = "hwtrec-server: thread-local storage of thread "
SCRIPT = """
import gdb
for c in ["record goto begin", "stepi 2000", "p linked_calls",
          "p linked_calls", "p linked_last", "record goto end",
          "p linked_calls", "record goto begin", "stepi 2000",
          "p linked_calls"]:
    try:
        gdb.execute(c)
    except gdb.error as e:
        print("GDB-ERROR " + str(e).splitlines()[0])
"""


def main():
    with recorded(PROG, "t.hwtrec", "hwtrec-tls-") as (work, rec):
        script = os.path.join(work, "cmds.py")
        with open(script, "w") as f:
            f.write(SCRIPT)
        out = subprocess.run([HWTREC, "replay", rec, "--", "-batch", "-x",
                              script], cwd=work,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             timeout=300).stdout
        errors = [line for line in out.splitlines()
                  if line.startswith("GDB-ERROR Cannot find thread-local")]
        said = [line for line in out.splitlines() if line.startswith(SAID)]
        check(len(errors) == 4, "GDB failed 4 of the 5 prints (%d)"
              % len(errors), out)
        check(len(said) == 2, "the server said why twice: once for the "
              "first three failures, once after the success (%d)"
              % len(said), out)
    finish()


if __name__ == "__main__":
    main()
