#!/usr/bin/env python3
"""test-thread-resume.py: a reverse step in the thread the user selected
moves that thread, not the thread of the last stop.

GDB selects a thread with Hg and resumes with Hc0 ("any thread") before
`bs`; gdbserver then steps its current thread, the one Hg chose.  The
server used to step the thread of the last stop (thread 1), so after
`thread 2`, `reverse-stepi` GDB reported a stop in thread 1 and thread 2
never moved.  turns-prog is recorded with the Valgrind source (it crashes
with all three threads alive: thread 1 the crashing worker, thread 2 the
worker waiting in read()); plain GDB (no plugin) on hwtrec-server.  Checks: the stop is in thread 2; thread 2's
PC moved back by exactly the length of the instruction GDB disassembles
there (GDB's disassembler over the binaries is the oracle of that
instruction); thread 1's PC did not move.
"""
import os
import re
import subprocess
import tempfile

from checks import check, finish

HWTREC = os.environ["HWTREC"]
SERVER = os.environ["HWTREC_SERVER"]
TESTDIR = os.environ["TESTDIR"]
PROG = os.path.join(TESTDIR, "turns-prog")


def main():
    with tempfile.TemporaryDirectory(prefix="hwtrec-thread-resume-") as work:
        rec = os.path.join(work, "tp.hwtrec")
        # The program crashes: hwtrec record exits as it did.
        subprocess.run([HWTREC, "record", "-q", "-o", rec, "--", PROG],
                       capture_output=True)
        check(os.path.exists(os.path.join(rec, "core")),
              "the recording ends at the crash (a core)")
        cmds = ["set pagination off", "set width 0",
                "target remote | %s %s" % (SERVER, rec),
                "thread 1", "echo T1BEFORE \n", "p/x $pc",
                "thread 2", "echo T2BEFORE \n", "p/x $pc",
                "reverse-stepi",
                "echo STOPTHREAD \n", "p $_thread",
                "echo T2AFTER \n", "p/x $pc",
                "echo INSN \n", "x/2i $pc",
                "thread 1", "echo T1AFTER \n", "p/x $pc"]
        args = ["gdb", "-nx", "-batch"]
        for c in cmds:
            args += ["-ex", c]
        out = subprocess.run(args + [PROG], capture_output=True, text=True,
                             timeout=120).stdout

        def value(tag):
            m = re.search(tag + r" \n\$\d+ = (\S+)", out)
            return m.group(1) if m else None

        t1b, t2b = value("T1BEFORE"), value("T2BEFORE")
        t2a, t1a = value("T2AFTER"), value("T1AFTER")
        check(value("STOPTHREAD") == "2", "the stop is in thread 2", out)
        check(t1b is not None and t1a == t1b,
              "thread 1 did not move (%s -> %s)" % (t1b, t1a), out)
        # x/2i at the new PC: the first instruction ends where the second
        # starts; that one is where thread 2 stood before.
        insns = re.findall(r"^\s*(?:=> )?(0x[0-9a-f]+)", out.split("INSN \n", 1)[-1],
                           re.M)[:2]
        check(t2a is not None and t2b is not None and len(insns) == 2 and
              int(insns[0], 16) == int(t2a, 16) and
              int(insns[1], 16) == int(t2b, 16),
              "thread 2 went back by one instruction (%s -> %s, GDB: %s)"
              % (t2b, t2a, insns), out)
    finish()


main()
