#!/usr/bin/env python3
"""test-threads-alive.py: the server lists the threads alive at the time
GDB stands at, as GDB on the live program and on the core list them.

exited-thread-prog: main calls work(0), runs a thread that calls work(1)
and joins it, calls work(3), starts a thread that calls work(2) then waits
in pause(), calls work(4) and dies of SIGSEGV.  Oracles: GDB on the live
program run forward (at each stop in work: the caller's id and how many
threads `info threads` lists), and GDB on the recording's core (the LWPs
of its threads).  The replay (plain GDB on hwtrec-server) must list the
core's threads at the crash (the server used to list the short-lived
thread too, and three threads everywhere), and at each work() stop going
back the live count: 2, 2, 1, 2, 1 for ids 4, 2, 3, 1, 0.

Exit 0 when all agree, 1 otherwise, 77 without `hwtrec record`.
"""
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish, gdb_batch

HWTREC = os.environ.get("HWTREC", "")
SERVER = os.environ.get("HWTREC_SERVER", "")
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
PROG = os.path.join(TESTDIR, "exited-thread-prog")

NOTE = r"""
set pagination off
set confirm off
define note
  info threads
  python print("NOTE id=%d threads=%d" % (int(gdb.parse_and_eval("id")), len(gdb.selected_inferior().threads())))
end
define lwps
  info threads
  python print("LWPS %s" % sorted(t.ptid[1] for t in gdb.selected_inferior().threads()))
end
"""


def gdb(work, cmds, *files):
    return gdb_batch(work, "note.gdb", cmds, PROG, *files)


def notes(out):
    return re.findall(r"^NOTE (id=\d+ threads=\d+)$", out, re.M)


def lwps(out):
    return re.findall(r"^LWPS (\[.*\])$", out, re.M)


def main():
    if not os.access(HWTREC, os.X_OK) or not os.access(SERVER, os.X_OK):
        print("SKIP: no hwtrec or hwtrec-server")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="hwtrec-alive-") as work:
        with open(os.path.join(work, "note.gdb"), "w") as f:
            f.write(NOTE)
        live = gdb(work, ["break work", "run"] +
                   ["note", "continue"] * 5 + ["echo CRASH\\n", "info threads"])
        order = notes(live)
        check(len(order) == 5 and "received signal SIGSEGV" in live,
              "live: five stops in work, then the crash (%s)" % order, live)
        rec = os.path.join(work, "e.hwtrec")
        subprocess.run([HWTREC, "record", "-q", "-o", rec, "--", PROG],
                       cwd=work, capture_output=True, timeout=300)
        core = os.path.join(rec, "core")
        check(os.path.exists(core), "the recording ends at the crash (a core)")
        on_core = lwps(gdb(work, ["lwps"], core))
        check(len(on_core) == 1 and on_core[0].count(",") == 1,
              "GDB on the core: two threads (%s)" % on_core)
        replay = gdb(work, ["target remote | %s %s" % (SERVER, rec), "lwps",
                            "break work"] +
                     ["reverse-continue", "note"] * 5)
        at_end = lwps(replay)
        check(at_end == on_core,
              "at the crash the server lists the core's threads (%s, core %s)"
              % (at_end, on_core), replay)
        back = notes(replay)
        check(back == list(reversed(order)),
              "going back, each stop lists the threads alive there "
              "(%s, live forward %s)" % (back, order), replay)
    finish()


main()
