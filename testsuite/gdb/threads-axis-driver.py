"""threads-axis-driver.py: run inside GDB by test-threads-time-axis.py.

Notes every stop at turns-prog's L:deposit breakpoint as "HIT id:round"
(the stopped thread's job->id and round), with whether the PC is the
breakpoint's and the thread GDB says stopped; it stops at the first stop
elsewhere (the end of the history, which GDB says on its terminal only).  AXIS_MODE says what to do:
  live     run the program forward to its end (the oracle)
  replay   from the end of a recording: reverse-continue to the start,
           then continue to the end
  hop      as replay, but before each reverse-continue and continue
           select another thread than the one that stopped (`thread N`)
"""
import re

import gdb

MODE = gdb.parse_and_eval("$axis_mode").string()
LINE = int(gdb.parse_and_eval("$axis_line"))


def say(text):
    gdb.write(text + "\n")
    gdb.flush()


def note_stop(output):
    frame = gdb.selected_frame()
    sal = frame.find_sal()
    if sal.line != LINE or frame.name() != "deposit":
        say("AXIS OTHER %s:%d" % (frame.name(), sal.line))
        return False
    job = int(gdb.parse_and_eval("job->id"))
    rnd = int(gdb.parse_and_eval("round"))
    say("AXIS HIT %d:%d thread=%d pc-at-break=%s" % (
        job, rnd, gdb.selected_thread().num,
        int(gdb.parse_and_eval("$pc")) == BREAK_PC))
    return True


def run(cmd):
    try:
        return gdb.execute(cmd, to_string=True)
    except gdb.error as e:
        return str(e)


def select_another():
    """Select a thread other than the one that stopped (`thread N`)."""
    here = gdb.selected_thread().num
    others = [t.num for t in gdb.selected_inferior().threads()
              if t.num != here]
    run("thread %d" % min(others))


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.Breakpoint("turns-prog.c:%d" % LINE)
BREAK_PC = int(re.search(r"starts at address (0x[0-9a-f]+)",
                         gdb.execute("info line turns-prog.c:%d" % LINE,
                                     to_string=True)).group(1), 16)

if MODE == "live":
    out = run("run")
    while note_stop(out):
        out = run("continue")
else:
    for _ in range(12):
        if MODE == "hop":
            select_another()
        if not note_stop(run("reverse-continue")):
            break
    say("AXIS FORWARD")
    for _ in range(12):
        if MODE == "hop":
            select_another()
        if not note_stop(run("continue")):
            break
say("AXIS DONE")
