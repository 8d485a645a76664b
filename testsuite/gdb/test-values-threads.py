#!/usr/bin/env python3
"""Values at past positions of a multi-threaded program, per thread.

turns-prog: two workers change shared accounts under a mutex, strictly in
turn, and keep a sum each; worker 2 crashes while worker 1 waits in
pthread_cond_wait and main in pthread_join.  GDB's record full cannot be the
oracle here (it cannot record clone3, and with threads blocked in futexes
it does not get to the crash), so the oracle is GDB on the live program run
forward (native, no hwtrec): at three deposits (worker 1's rounds 0 and 2
before the change, worker 2's round 1 after it: conditional breakpoints) and at the crash it prints the
thread's arguments and locals, the shared accounts and log, and its call
stack; at the crash every thread's call stack.  The replay of the recording
(`hwtrec replay`) goes back to the same deposits, each in its own thread
(`thread N`, a conditional breakpoint, `reverse-continue`), and must print
the same.  Without the data log (--no-data) the values and stacks at the
crash must be the live program's (the conditions of the past stops cannot
be tested without data).

Exit 0 when all agree, 1 otherwise, 77 without `hwtrec record`.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

BUILDDIR = os.environ.get("TESTDIR", os.getcwd())
HWTREC = os.environ.get("HWTREC", "")
PROG = os.path.join(BUILDDIR, "turns-prog")
SOURCE = os.path.join(os.environ.get("SRCDIR", ""), "scenarios",
                      "turns-prog.c")

PROBES = r"""
set pagination off
set confirm off
set width 0
define probe_deposit
  printf "deposit job=%d round=%d amount=%ld to=%s %ld/%d\n", job->id, round, amount, to->owner, to->balance, to->updates
  printf "  alice=%ld/%d bob=%ld/%d log_len=%d turn=%d local=%ld\n", g_accounts[0].balance, g_accounts[0].updates, g_accounts[1].balance, g_accounts[1].updates, g_log_len, g_turn, job->local_sum
  echo \040 log=
  output g_log
  echo \n
  bt -frame-arguments none -frame-info short-location
end
define probe_crash
  printf "crash job=%d rounds=%d local=%ld\n", job->id, job->rounds, job->local_sum
  printf "  alice=%ld/%d bob=%ld/%d log_len=%d turn=%d\n", g_accounts[0].balance, g_accounts[0].updates, g_accounts[1].balance, g_accounts[1].updates, g_log_len, g_turn
  echo \040 log=
  output g_log
  echo \n
  bt -frame-arguments none -frame-info short-location
  echo stacks:\n
  thread apply all -q bt -frame-arguments none -frame-info short-location
  echo end-stacks\n
end
"""

def run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=300)
    return proc.stdout.decode("utf-8", "replace")


# Under Valgrind glibc's clone3 fails (ENOSYS) and threads start through
# clone: the outermost frame's name.
CLONE3 = re.compile(r"\bclone3 \(\)")


def probes(text):
    """The probe blocks GDB printed: {first line: block}, the crash's
    per-thread stacks as a sorted list of stacks; PCs left out (the
    outermost frame's differs, see CLONE3)."""
    blocks = {}
    text = re.sub(r"0x[0-9a-f]+ in ", "", CLONE3.sub("clone ()", text))
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(("deposit job=", "crash job=")):
            block = [line]
            i += 1
            while i < len(lines) and (lines[i].startswith(("  ", "#"))):
                block.append(lines[i].rstrip())
                i += 1
            if i < len(lines) and lines[i] == "stacks:":
                stacks, current = [], []
                i += 1
                while i < len(lines) and lines[i] != "end-stacks":
                    if lines[i].startswith("#0 ") and current:
                        stacks.append("\n".join(current))
                        current = []
                    if lines[i].startswith("#"):
                        current.append(lines[i].rstrip())
                    i += 1
                if current:
                    stacks.append("\n".join(current))
                block.append("threads: %d" % len(stacks))
                block += sorted(stacks)
            blocks[line.split(" amount=")[0].split(" rounds=")[0]] = block
        else:
            i += 1
    return blocks


UNKNOWN = re.compile(r"<unavailable>|Cannot access memory|value is not "
                     r"available|not available")


def compare(name, expected, got, data):
    failures = []
    if len(expected) != 4:
        failures.append("%s: the live run printed %d probes, not 4"
                        % (name, len(expected)))
    if not data:
        # Without data the conditions cannot be tested (GDB stops at the
        # first hit, "Error in testing condition"): the end only.
        expected = {k: v for k, v in expected.items() if k.startswith("crash")}
    for key in sorted(expected):
        if key not in got:
            failures.append("%s: hwtrec printed nothing for `%s'"
                            % (name, key))
            continue
        want, have = expected[key], got[key]
        if data:
            if want != have:
                failures.append("%s: at `%s':\n  live:   %s\n  hwtrec: %s"
                                % (name, key, "\n          ".join(want),
                                   "\n          ".join(have)))
            continue
        # Without data: each line the live one, or one saying a value is
        # not known (GDB stops a printf at the first value it cannot
        # read), never another value.
        for a, b in zip(want, have):
            if a != b and not UNKNOWN.search(b):
                failures.append("%s: at `%s': live `%s', hwtrec `%s'"
                                % (name, key, a, b))
    return failures


def main():
    if not HWTREC or not os.access(HWTREC, os.X_OK):
        print("SKIP: no hwtrec tool (%s)" % HWTREC)
        return 77
    with open(SOURCE) as f:
        text = f.read()
    # The lines marked L:deposit (before the shared account changes) and
    # L:counted (after its balance changed): both under the lock, in the
    # thread's turn, so the other worker cannot run between.
    at = {name: "turns-prog.c:%d" % (text[:text.index("L:%s " % name)]
                                     .count("\n") + 1)
          for name in ("deposit", "counted")}
    work = tempfile.mkdtemp(prefix="hwtrec-values-threads.")
    failures = []
    try:
        with open(os.path.join(work, "probes.gdb"), "w") as f:
            f.write(PROBES)
        # Forward: worker 1's deposits 0 and 2 before the change, worker
        # 2's deposit 1 after it, in the order they run, then the crash.
        live = run(["gdb", "-nx", "-batch", "-x", "probes.gdb",
                    "-ex", "break %s if job->id == 1 && (round == 0 || "
                    "round == 2)" % at["deposit"],
                    "-ex", "break %s if job->id == 2 && round == 1"
                    % at["counted"],
                    "-ex", "run", "-ex", "probe_deposit",
                    "-ex", "continue", "-ex", "probe_deposit",
                    "-ex", "continue", "-ex", "probe_deposit",
                    "-ex", "delete", "-ex", "continue", "-ex", "probe_crash",
                    PROG], work)
        expected = probes(live)
        for data in (True, False):
            name = "data log" if data else "--no-data"
            rec = os.path.join(work, "rec%d.hwtrec" % data)
            out = run([HWTREC, "record", "-q", "-o", rec] +
                      ([] if data else ["--no-data"]) + ["--", PROG], work)
            if not os.path.isdir(rec):
                failures.append("%s: hwtrec record made no recording:\n%s"
                                % (name, out))
                continue
            # Thread 1 is the one the signal stopped (the core's first):
            # worker 2; thread 2 is worker 1 (the probes print job->id).
            # Back in time, as record full goes: the threads share one
            # time axis, so worker 2's round 1 (after worker 1's round 0)
            # comes before worker 1's round 0.
            replay = run([HWTREC, "replay", rec, "--", "-batch",
                          "-x", "probes.gdb", "-ex", "probe_crash",
                          "-ex", "thread 2",
                          "-ex", "break %s if job->id == 1 && round == 2"
                          % at["deposit"],
                          "-ex", "reverse-continue", "-ex", "probe_deposit",
                          "-ex", "delete", "-ex", "thread 1",
                          "-ex", "break %s if job->id == 2 && round == 1"
                          % at["counted"],
                          "-ex", "reverse-continue", "-ex", "probe_deposit",
                          "-ex", "delete",
                          "-ex", "break %s if job->id == 1 && round == 0"
                          % at["deposit"],
                          "-ex", "reverse-continue", "-ex", "probe_deposit"],
                         work)
            got = probes(replay)
            print("%s: live run:" % name)
            for key in sorted(expected):
                print("  " + "\n  ".join(expected[key]))
            print("%s: hwtrec replay:" % name)
            for key in sorted(got):
                print("  " + "\n  ".join(got[key]))
            found = compare(name, expected, got, data)
            if found:
                print("%s: the end of the replay's output:\n  %s"
                      % (name, "\n  ".join(replay.splitlines()[-30:])))
            failures += found
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print("FAIL: " + failure)
    if failures:
        return 1
    print("PASS: values of each thread at past positions are the live run's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
