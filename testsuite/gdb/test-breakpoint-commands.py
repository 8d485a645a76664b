#!/usr/bin/env python3
"""test-breakpoint-commands.py: a breakpoint with `commands` hit in a replay
runs them after the stop is printed, as GDB does live, and GDB lives.

GDB 13's gdb.execute runs the commands of the breakpoint the thread stopped
at (bpstat_do_actions) when it returns.  The plugin's unwinder sends its
packets with `maintenance packet`, so at a stop at a breakpoint with
commands they ran inside the unwinder, while GDB printed the stop or a
stop handler asked for the selected frame: `p` of a local then killed GDB
("Fatal signal: Segmentation fault"), `echo` printed in the middle of the
"Breakpoint 1, " line.  The plugin now builds the thread's chain when
GDB counts the hit, before the commands are pending (unwinder.py).

tls-key-prog (two session threads run one after the other, each calling
note_event five times, the second's key destructor crashing).  Oracle:
GDB on the live program run forward with the same commands on note_event
(`printf` of v and the thread's __thread t_count, then `continue`): the
ten hits in order.  The replay (`hwtrec replay`) must print, from the
crash, the last three with three `reverse-continue`s (commands without
`continue`), each after its stop line; and from main's start the ten in
order with `continue` in the commands.

Exit 0 when all agree, 1 otherwise, 77 without `hwtrec record`.
"""
import os
import re
import subprocess

from checks import check, finish, recorded

HWTREC = os.environ.get("HWTREC", "")
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
PROG = os.path.join(TESTDIR, "tls-key-prog")

NOTE = r'printf "NOTE v=%d t_count=%d\n", v, t_count'
BACK = """set pagination off
break note_event
commands
%s
end
reverse-continue
reverse-continue
reverse-continue
""" % NOTE
FORWARD = """set pagination off
break main
reverse-continue
delete
break note_event
commands
silent
%s
continue
end
continue
""" % NOTE
LIVE = """set pagination off
break note_event
commands
silent
%s
continue
end
run
""" % NOTE


def gdb(work, script, args):
    """ARGS (a GDB command line) with SCRIPT as a command file."""
    path = os.path.join(work, "cmds.gdb")
    with open(path, "w") as f:
        f.write(script)
    proc = subprocess.run(args + ["-x", path], cwd=work,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    return proc.stdout


def notes(out):
    return re.findall(r"^NOTE (.*)$", out, re.M)


def main():
    with recorded(PROG, "t.hwtrec", "hwtrec-bpcmds-") as (work, rec):
        live = gdb(work, LIVE, ["gdb", "-nx", "-batch", PROG])
        order = notes(live)
        check(len(order) == 10, "live: ten hits of note_event (%s)" % order,
              live)
        replay = [HWTREC, "replay", rec, "--", "-batch"]
        back = gdb(work, BACK, replay)
        check("Fatal signal" not in back and
              notes(back) == list(reversed(order[-3:])),
              "three reverse-continues from the crash: the last three hits "
              "(%s, live %s)" % (notes(back), order[-3:]), back)
        stops = re.findall(r"^Thread \d+ hit Breakpoint 1, note_event "
                           r"\(v=\d+\) at .*\n.*\nNOTE ", back, re.M)
        check(len(stops) == 3,
              "each hit's commands run after its stop is printed", back)
        forward = gdb(work, FORWARD, replay)
        check("Fatal signal" not in forward and notes(forward) == order,
              "continue from main's start: the ten hits in order (%s)"
              % notes(forward), forward)
    finish()


main()
