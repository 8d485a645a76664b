#!/usr/bin/env python3
"""test-thread-step.py: a reverse step moves the thread GDB steps.

GDB names no thread when it steps backwards ("Hc0" then "bs"), and at
connect it sends Hg for each other thread, so the server used to step the
last of those: the first reverse-stepi after opening a crash of a
multi-threaded program moved a thread waiting in pause(), and GDB said
"Thread N received signal SIGTRAP".  Now the server steps the thread whose
registers GDB read last since the stop (`thread N` reads N's), else the
thread of the stop, and the plugin sets `scheduler-locking step` so that
GDB names the thread it steps.

exited-thread-prog dies of SIGSEGV in main while a sleeper waits in
pause().  Oracle: GDB on the recording's core (which thread crashed, and
every thread's PC there).  Checks, with plain GDB and with the plugin:
the first reverse-stepis stop in the crashed thread, one instruction before
its core PC (the second: the first stays at the fault, as record full's
does), and leaves the sleeper at its core PC; with the plugin, also
after `info threads` (which reads every thread's registers), and
`thread <sleeper>` + reverse-stepi moves the sleeper and leaves main at
its core PC.

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
PYDIR = os.environ.get("HWTREC_PYTHONDIR", "")
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
PROG = os.path.join(TESTDIR, "exited-thread-prog")

# Each thread's LWP and PC, and the selected thread's LWP.
PCS = r"""
define pcs
  python
for t in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
    t.switch()
    print("PC lwp=%d pc=0x%x" % (t.ptid[1], int(gdb.parse_and_eval("$pc"))))
  end
end
define sel
  python print("SEL lwp=%d" % gdb.selected_thread().ptid[1])
end
"""


def gdb(work, cmds, *files, plugin=False):
    pre = ["-iex", "python import sys; sys.path.insert(0, %r)" % PYDIR,
           "-iex", "python import hwtrecord"] if plugin else []
    return gdb_batch(work, "pcs.gdb", cmds, PROG, *files, pre=pre)


def pcs(out):
    """Each `pcs` output: {lwp: pc}, in order."""
    found, current = [], None
    for line in out.splitlines():
        m = re.match(r"PC lwp=(\d+) pc=(0x[0-9a-f]+)$", line)
        if m:
            if current is None:
                current = {}
                found.append(current)
            current[int(m.group(1))] = int(m.group(2), 16)
        else:
            current = None
    return found


def selected(out):
    return [int(x) for x in re.findall(r"^SEL lwp=(\d+)$", out, re.M)]


def main():
    if not os.access(HWTREC, os.X_OK) or not os.access(SERVER, os.X_OK):
        print("SKIP: no hwtrec or hwtrec-server")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="hwtrec-tstep-") as work:
        with open(os.path.join(work, "pcs.gdb"), "w") as f:
            f.write(PCS)
        rec = os.path.join(work, "e.hwtrec")
        subprocess.run([HWTREC, "record", "-q", "-o", rec, "--", PROG],
                       cwd=work, capture_output=True, timeout=300)
        core = os.path.join(rec, "core")
        if not os.path.exists(core):
            check(False, "the recording ends at the crash (a core)")
            sys.exit(1)
        out = gdb(work, ["sel", "pcs"], core)
        crashed = selected(out)
        at_core = pcs(out)
        ok = len(crashed) == 1 and len(at_core) == 1 and len(at_core[0]) == 2
        check(ok, "GDB on the core: the crashed thread and two PCs (%s %s)"
              % (crashed, at_core), out)
        if not ok:
            sys.exit(1)
        crashed = crashed[0]
        core_pcs = at_core[0]
        sleeper = [lwp for lwp in core_pcs if lwp != crashed][0]
        target = "target remote | %s %s" % (SERVER, rec)

        for plugin in (False, True):
            how = "with the plugin" if plugin else "plain GDB"
            # The first reverse-stepi from a fault stays at its PC, as
            # record full's does (the faulting instruction did not run).
            out = gdb(work, [target, "reverse-stepi", "reverse-stepi", "sel",
                             "pcs"], plugin=plugin)
            after = pcs(out)
            check(selected(out) == [crashed] and len(after) == 1 and
                  after[0].get(sleeper) == core_pcs[sleeper] and
                  after[0].get(crashed) not in (None, core_pcs[crashed]) and
                  "SIGTRAP" not in out,
                  "%s: the first reverse-stepis move the crashed thread %d "
                  "(%s), not the sleeper %d (core %s)"
                  % (how, crashed, after, sleeper, core_pcs), out)

        # `info threads` reads every thread's registers: plain GDB then
        # gives the server nothing to tell which thread a step is for; with
        # the plugin GDB names it (scheduler-locking step).
        out = gdb(work, [target, "info threads", "reverse-stepi",
                         "reverse-stepi", "sel", "pcs"], plugin=True)
        after = pcs(out)
        check(selected(out) == [crashed] and len(after) == 1 and
              after[0].get(sleeper) == core_pcs[sleeper] and
              after[0].get(crashed) not in (None, core_pcs[crashed]),
              "with the plugin: info threads, then reverse-stepis move the "
              "crashed thread %d (%s, core %s)" % (crashed, after, core_pcs),
              out)

        out = gdb(work, [target, "show scheduler-locking", "info threads",
                         ] +
                  ["python gdb.execute('thread %%d' %% "
                   "[t.num for t in gdb.selected_inferior().threads() "
                   "if t.ptid[1] == %d][0])" % sleeper,
                   "reverse-stepi", "sel", "pcs", "disconnect",
                   "show scheduler-locking"], plugin=True)
        after = pcs(out)
        check(selected(out) == [sleeper] and len(after) == 1 and
              after[0].get(crashed) == core_pcs[crashed] and
              after[0].get(sleeper) not in (None, core_pcs[sleeper]),
              "with the plugin: thread <sleeper> + reverse-stepi moves the "
              "sleeper %d, not %d (%s, core %s)"
              % (sleeper, crashed, after, core_pcs), out)
        locking = re.findall(r'scheduler during execution is "(\w+)"', out)
        check(locking[:1] == ["step"],
              "with the plugin: scheduler-locking is step while connected "
              "(%s)" % locking, out)
    finish()


main()
