#!/usr/bin/env python3
"""test-tls-blocked-thread.py: a thread-local variable of a thread whose
last instruction is a system call, at the crash and at a past position.

tls-key-prog: main sets its __thread t_count to 100, then runs two
session threads one after the other (pthread_create, pthread_join); the
second's pthread_key destructor dies of SIGSEGV at its exit.  Valgrind
runs one thread at a time and never runs main again after its second
clone, so main's history ends with that `syscall`: its fs_base at the end
comes from the data log, and the server took any system call as one that
may set it, leaving main's TLS unknown ("the thread's fs_base or memory
is not known") wherever main stands at its end.  Only arch_prctl and its
like set the caller's base; clone sets the child's.

Oracles: GDB on the recording's core (`thread apply all p t_count`, which
finds each thread's TLS through libthread_db), and GDB on the live
program at the second session's start (main's t_count).  The replay must
print the same values: at the crash, and after `reverse-continue` to the
second session's start, in main.

Exit 0 when all agree, 1 otherwise, 77 without `hwtrec record`.
"""
import os
import re

from checks import check, finish, gdb_batch, recorded

TESTDIR = os.environ.get("TESTDIR", os.getcwd())
SERVER = os.environ.get("HWTREC_SERVER", "")
PROG = os.path.join(TESTDIR, "tls-key-prog")

# Each thread's LWP and t_count, whatever GDB numbers it.
NOTE = r"""
set pagination off
set confirm off
define counts
  python [print("COUNT lwp=%d %s" % (t.ptid[1], (t.switch(), gdb.execute("output t_count", to_string=True))[1])) for t in sorted(gdb.selected_inferior().threads(), key=lambda t: t.ptid[1])]
end
define main_count
  python t = min(gdb.selected_inferior().threads(), key=lambda t: t.ptid[1]); t.switch(); print("MAIN %s" % gdb.execute("output t_count", to_string=True))
end
"""


def gdb(work, cmds, *files):
    return gdb_batch(work, "note.gdb", cmds, PROG, *files)


def main():
    with recorded(PROG, "t.hwtrec", "hwtrec-tls-blocked-") as (work, rec):
        with open(os.path.join(work, "note.gdb"), "w") as f:
            f.write(NOTE)
        core = os.path.join(rec, "core")
        on_core = gdb(work, ["counts"], core)
        core_counts = re.findall(r"^COUNT (.*)$", on_core, re.M)
        check(len(core_counts) == 2 and "lwp" in core_counts[0],
              "GDB on the core: two threads' t_count (%s)" % core_counts,
              on_core)
        remote = "target remote | %s %s" % (SERVER, rec)
        replay = gdb(work, [remote, "counts", "break session_thread",
                            "reverse-continue", "main_count"])
        at_end = re.findall(r"^COUNT (.*)$", replay, re.M)
        check(at_end == core_counts,
              "at the crash every thread's t_count is the core's "
              "(%s, core %s)" % (at_end, core_counts), replay)
        live = gdb(work, ["break session_thread", "run", "continue",
                          "main_count", "kill"])
        live_main = re.findall(r"^MAIN (.*)$", live, re.M)
        check(live_main == ["100"],
              "live: main's t_count at the second session's start (%s)"
              % live_main, live)
        past_main = re.findall(r"^MAIN (.*)$", replay, re.M)
        check(past_main == live_main,
              "at the second session's start main's t_count is the live "
              "one (%s, live %s)" % (past_main, live_main), replay)
    finish()


main()
