#!/usr/bin/env python3
"""test-live-thread-end.py: live, forward to the end of the history after
GDB read other threads in the past, the registers shown are the stopped
thread's own.

GDB takes the thread of a stop reply for the stub's general thread and
sends no Hg for it.  A replay stop comes from hwtrec-server, not from
Valgrind's gdbserver, whose general thread stayed the last one an Hg chose
(`info threads` in the past lists every thread); at its end a thread's
registers come from the stub, so `continue` back to the end showed another
thread's PC (thread 2 in __lll_lock_wait in a worker pool).  turns-prog
(its threads take turns, so the stops are the same every run) under `hwtrec
gdb`: record hwt in start_turns, three deposits, then `info threads`,
reverse-continue, `info threads`, continue.  The oracle: the thread, PC and
locals GDB read from the live program at the last deposit, before going
back.
"""
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish

HWTREC = os.environ["HWTREC"]
TESTDIR = os.environ["TESTDIR"]
SRCDIR = os.environ["SRCDIR"]
PROG = os.path.join(TESTDIR, "turns-prog")
TUNABLES = "glibc.pthread.rseq=0"


def line_of(label):
    with open(os.path.join(SRCDIR, "scenarios", "turns-prog.c")) as f:
        for number, text in enumerate(f, 1):
            if "L:%s " % label in text:
                return number
    sys.exit("no L:%s in turns-prog.c" % label)


def state(text, tag):
    """The thread, PC and round printed after `echo TAG`."""
    at = text.find(tag + "\n")
    values = re.findall(r"^\$\d+ = (.*)$", text[at:], re.M)[:3]
    return values if at >= 0 and len(values) == 3 else None


def main():
    deposit = line_of("deposit")
    script = ["set pagination off", "set width 0", "set confirm off",
              "break start_turns", "run", "record hwt",
              "break turns-prog.c:%d" % deposit,
              "continue", "continue", "continue",
              "echo LIVE\\n", "p $_thread", "p/x $pc", "p round",
              "info threads", "reverse-continue", "info threads",
              "continue",
              "echo END\\n", "p $_thread", "p/x $pc", "p round", "kill"]
    with tempfile.TemporaryDirectory(prefix="hwtrec-thread-end-") as work:
        path = os.path.join(work, "cmds.gdb")
        with open(path, "w") as f:
            f.write("\n".join(script) + "\n")
        env = dict(os.environ, GLIBC_TUNABLES=TUNABLES)
        out = subprocess.run([HWTREC, "gdb", "-nx", "-batch", "-x", path,
                              "--", PROG], env=env, cwd=work,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=300)
        text = out.stdout.decode("utf-8", "replace")
    live, end = state(text, "LIVE"), state(text, "END")
    check(live is not None, "GDB printed the live thread, PC and round", text)
    check(end is not None, "GDB printed them back at the end", text)
    check(live == end, "back at the end: thread, PC and round %s as read "
          "live (%s)" % (end, live), text)
    finish()


if __name__ == "__main__":
    main()
