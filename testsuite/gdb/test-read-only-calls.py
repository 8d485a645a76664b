#!/usr/bin/env python3
"""test-read-only-calls.py: a function call or a register write in a
replayed recording fails saying why.

`print f(x)` makes GDB write the call's frame and arguments; hwtrec-server
refuses (the recording is read-only).  GDB 13 printed only "Cannot access
memory at address ..." (it shows no text for a refused memory write), and
for `print $rax = N` it printed no reason either.  Now the plugin says why
before GDB's error, and the server's refusal of a register write (an E.
reply to P, whose text GDB 13 prints) says it too.  exited-thread-prog's
recording, `hwtrec replay`: at the crash and at a past stop in work();
the register and the global keep their values; `jump` and `return` there
are refused with the reason and leave the PC and the stack pointer.

Exit 0 when all is as expected, 1 otherwise, 77 without `hwtrec record`.
"""
import os
import re
import subprocess

from checks import check, finish, recorded

HWTREC = os.environ.get("HWTREC", "")
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
PROG = os.path.join(TESTDIR, "exited-thread-prog")
NOTE = "hwtrec: a function call cannot run here: the recording is read-only"
REFUSED = ("Could not write register \"rax\"; remote failure reply "
           "'E.the recording is read-only")
READ_ONLY = "remote failure reply 'E.the recording is read-only"


def main():
    with recorded(PROG, "e.hwtrec", "hwtrec-calls-") as (work, rec):
        cmds = ["echo CALL-AT-END\\n", "p work(7)",
                "break work", "reverse-continue",
                "echo SINK-BEFORE\\n", "p g_sink", "p/x $rax", "p/x $pc",
                "p/x $sp",
                "echo CALL-IN-PAST\\n", "p work(5)",
                "echo REG-WRITE\\n", "p $rax = 12345",
                "echo JUMP\\n", "jump work",
                "echo RETURN\\n", "return",
                "echo AFTER\\n", "p g_sink", "p/x $rax", "p/x $pc",
                "p/x $sp"]
        args = [HWTREC, "replay", rec, "--", "-batch"]
        for c in cmds:
            args += ["-ex", c]
        # One pipe for both: GDB's errors in order with its output.
        out = subprocess.run(args, cwd=work, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=300).stdout

        def part(tag, until):
            return out.split(tag + "\n", 1)[-1].split(until + "\n", 1)[0]

        at_end = part("CALL-AT-END", "SINK-BEFORE")
        past = part("CALL-IN-PAST", "REG-WRITE")
        for name, text in (("at the crash", at_end), ("in the past", past)):
            check(NOTE in text and "Cannot access memory" in text and
                  text.index(NOTE) < text.index("Cannot access memory"),
                  "%s, p work(N) says why before GDB's error" % name, out)
        check(REFUSED in part("REG-WRITE", "JUMP"),
              "p $rax = 12345 is refused with the reason", out)
        # `jump` writes the PC (GDB writes orig_rax first), `return` (its
        # query answered yes in batch mode) pops the frame: record full
        # would write both and drop its log from there; hwtrec refuses.
        for tag, until in (("JUMP", "RETURN"), ("RETURN", "AFTER")):
            check(READ_ONLY in part(tag, until),
                  "%s is refused with the reason" % tag.lower(), out)
        before = re.findall(r"^\$\d+ = (\S+)$", part("SINK-BEFORE", "CALL-IN-PAST"), re.M)
        after = re.findall(r"^\$\d+ = (\S+)$", out.split("AFTER\n", 1)[-1], re.M)
        check(len(before) == 4 and before == after,
              "g_sink, $rax, $pc and $sp unchanged (%s, %s)"
              % (before, after), out)
    finish()


main()
