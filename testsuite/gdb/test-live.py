#!/usr/bin/env python3
"""Live mode (`hwtrec gdb`) beyond the scenarios: threads, the session's
commands, `run` (arguments, environment, signals settings, kill, detach,
the recordings of killed runs), and what is left behind when a session ends.

Each case runs `hwtrec gdb -batch` on a small program with a GDB script and
checks what GDB printed against what the program's structure dictates
(threads-prog: the second worker calls step_of five times, so from its
fourth call three reverse-continues reach the three earlier ones and a
fourth runs out of history; printf and a shell print the arguments and
environment they got; record full counts the instructions), and after every case that no process of the
session (valgrind, vgdb, hwtrec-server, the recorder) is left: every case
runs with its own TMPDIR, and no process may still name it.

Exit 0 when all pass, 1 otherwise, 77 without valgrind.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BUILDDIR = os.environ.get("TESTDIR", os.getcwd())
HWTREC = os.environ.get("HWTREC", "")
PYTHONDIR = os.environ.get("HWTREC_PYTHONDIR", "")
THREADS = os.path.join(BUILDDIR, "threads-prog")
SPIN = os.path.join(BUILDDIR, "spin-prog")
SIGNAL = os.path.join(BUILDDIR, "signal-prog")
SCENARIO = os.path.join(BUILDDIR, "scenario-prog")
VALUES = os.path.join(BUILDDIR, "values-prog")
VALUES_SOURCE = os.path.join(os.environ.get("SRCDIR", ""), "scenarios",
                             "values-prog.c")
PRINTF = "/usr/bin/printf"
failures = []
passes = []


def check(cond, what, output=""):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if cond:
        passes.append(what)
    if not cond:
        failures.append(what)
        if output:
            print("  | " + output[-3000:].replace("\n", "\n  | "))


def processes_naming(text):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmd:
            found.append("%s: %s" % (pid, cmd[:120]))
    return found


def no_leftovers(tmp, what):
    deadline = time.time() + 15
    left = processes_naming(tmp)
    while left and time.time() < deadline:
        time.sleep(0.2)
        left = processes_naming(tmp)
    check(not left, "%s: no process left behind" % what, "\n".join(left))


def hwtrec_gdb(tmp, script, prog, options=(), timeout=240):
    """PROG: the program, or a list of it and its arguments."""
    argv = [prog] if isinstance(prog, str) else list(prog)
    path = os.path.join(tmp, "script.gdb")
    with open(path, "w") as f:
        f.write("set pagination off\nset confirm off\n" + script)
    env = dict(os.environ, TMPDIR=tmp)
    proc = subprocess.run([HWTREC, "gdb"] + list(options) +
                          ["-nx", "-batch", "-x", path, "--"] + argv,
                          env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=timeout, cwd=tmp)
    return proc.stdout.decode("utf-8", "replace")


def tolerate(command):
    """COMMAND in a script, printing its error instead of ending -batch."""
    return ("python\ntry:\n    gdb.execute(%r)\nexcept gdb.error as err:\n"
            "    print(\"ERROR:\", err)\nend\n" % command)


def info(rec):
    proc = subprocess.run([HWTREC, "info", rec], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    return proc.stdout.decode("utf-8", "replace")


def case_threads(tmp):
    out = hwtrec_gdb(tmp, """break main
continue
record hwt
break step_of if id == 2 && i == 3
continue
print i
python print("THREAD", gdb.selected_thread().num)
delete
break step_of
reverse-continue
python print("THREAD", gdb.selected_thread().num)
info threads
reverse-continue
python print("THREAD", gdb.selected_thread().num)
reverse-continue
python print("THREAD", gdb.selected_thread().num)
reverse-continue
python print("THREAD", gdb.selected_thread().num)
record goto end
continue
print i
""", THREADS)
    threads = re.findall(r"^THREAD (\d+)", out, re.M)
    check(re.search(r"^\$1 = 3$", out, re.M) is not None,
          "threads: live stop in the second worker at i == 3", out)
    check(len(threads) == 5 and len(set(threads)) == 1,
          "threads: every reverse-continue stays in the stopping thread "
          "(%s)" % threads, out)
    backwards = out.split("No more reverse-execution history.")[0]
    hits = len(re.findall(r"hit Breakpoint 3, step_of", backwards))
    check(hits == 3,
          "threads: three earlier calls of step_of in that thread (%d)"
          % hits, out)
    check("No more reverse-execution history." in out,
          "threads: a fourth reverse-continue reaches the thread's start", out)
    check(re.search(r"replaying: instruction \d+ of \d+", out) is not None
          and "at the end of its history (live)" in out,
          "threads: info threads shows each thread's position", out)
    check(re.search(r"^\$2 = 4$", out, re.M) is not None,
          "threads: record goto end, continue: live again at i == 4", out)


def case_commands(tmp):
    saved = os.path.join(tmp, "saved.hwtrec")
    out = hwtrec_gdb(tmp, """break main
continue
record hwt
%sbreak worker
continue
record save %s
reverse-stepi
record stop
%sdelete
continue
""" % (tolerate("record hwt"), saved, tolerate("reverse-stepi")), THREADS)
    check("The process is already being recorded." in out,
          "record hwt twice: refused as record btrace does", out)
    check("Saved recording" in out, "record save", out)
    text = info(saved)
    check("exited" not in text and "cut off" not in text.lower()
          and re.search(r"thread \d+: [1-9]\d* instructions", text),
          "record save: a finished recording with the history so far", text)
    check("Process record is stopped and all execution logs are deleted."
          in out, "record stop in replay", out)
    check("not recording" in out,
          "after record stop: reverse execution says there is no history", out)
    check("exited normally" in out,
          "after record stop: the program runs live to its end", out)


def case_exit(tmp):
    """While recording, the program is stopped before it exits by itself, as
    record full stops before exit_group; the next continue lets it exit."""
    rec = os.path.join(tmp, "kept.hwtrec")
    out = hwtrec_gdb(tmp, """break main
continue
record hwt
continue
info record
reverse-stepi
x/i $pc
continue
continue
""", THREADS, ["-o", rec])
    stop = out.find("Program stopped.")
    exited = out.find("exited normally")
    check(0 <= stop < exited and "about to exit" in out,
          "exit while recording: stopped before the exit (\"Program "
          "stopped.\", as record full), then exits at the next continue",
          out)
    check(re.search(r"=> 0x[0-9a-f]+ <[^>]*_exit[^>]*>:\s+syscall", out),
          "exit while recording: one instruction back is exit_group's "
          "syscall instruction, the history's last", out)
    text = info(rec)
    check("exited with status 0" in text or re.search(r"exit(ed)?.* 0", text),
          "exit while recording: -o keeps a finished recording", text)
    out = hwtrec_gdb(tmp, """break main
continue
record hwt
continue
continue
""", THREADS)
    check("history is discarded" in out,
          "exit while recording: without -o the history is discarded", out)


def case_gdb_killed(tmp):
    rec = os.path.join(tmp, "cut.hwtrec")
    path = os.path.join(tmp, "script.gdb")
    with open(path, "w") as f:
        f.write("set confirm off\nbreak main\ncontinue\nrecord hwt\n"
                "continue\n")
    env = dict(os.environ, TMPDIR=tmp)
    gdb = subprocess.Popen([HWTREC, "gdb", "-o", rec, "-nx", "-batch", "-x",
                            path, "--", SPIN], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, cwd=tmp)
    deadline = time.time() + 60
    while time.time() < deadline and not os.path.isdir(rec):
        time.sleep(0.2)
    time.sleep(3)
    gdb.send_signal(signal.SIGKILL)
    gdb.communicate()
    no_leftovers(tmp, "GDB killed mid-recording")
    text = info(rec)
    check("cut off" in text.lower(),
          "GDB killed mid-recording: the recording says it was cut off", text)


def case_run_args(tmp):
    """`run` restarts the program with hwtrec gdb's arguments (GDB's `set
    args`, split as GDB splits them for a remote run), `run ARGS` replaces
    them and a later `run` keeps them, as GDB does; the program's own output
    is the oracle.  Every run after the first follows an exit."""
    out = hwtrec_gdb(tmp, """run
run '[%s|]' x 'y z'
run
""", [PRINTF, "<%s>", "a", "b c", ""])
    check(out.count("<a><b c><>") == 1,
          "run: the program's arguments, an empty one and one with a space "
          "(%d)" % out.count("<a><b c><>"), out)
    check(out.count("[x|][y z|]") == 2,
          "run ARGS replaces them, a later run keeps them (%d)"
          % out.count("[x|][y z|]"), out)
    check(out.count("exited normally") == 3,
          "run after the program exited: three runs to the end (%d)"
          % out.count("exited normally"), out)


def record_full_count(commands):
    """Instructions GDB's own record full logs for COMMANDS after `break
    main`, `run`, `record full` on scenario-prog (the oracle)."""
    args = ["gdb", "-nx", "-batch", "-ex", "break main", "-ex", "run",
            "-ex", "record full"]
    for command in commands:
        args += ["-ex", command]
    args += ["-ex", "info record", SCENARIO]
    proc = subprocess.run(args, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.decode("utf-8", "replace")
    match = re.search(r"Log contains (\d+) instructions", out)
    return int(match.group(1)) if match else None, out


def recorded_count(rec):
    match = re.search(r"thread \d+: (\d+) instructions", info(rec))
    return int(match.group(1)) if match else None


def case_run_recordings(tmp):
    """-o with `run`: the killed run's recording is kept, finished, holding
    what was recorded up to the stop where `run` killed it (as many
    instructions as record full logs for the same commands); the next run's
    goes beside it (NAME-2.hwtrec, also when -o says NAME.hwtrec/), and GDB
    says nothing is recorded between."""
    rec = os.path.join(tmp, "rec.hwtrec")
    rec2 = os.path.join(tmp, "rec-2.hwtrec")
    want, oracle = record_full_count(["next", "next"])
    check(want is not None and want > 0,
          "record full logs main's first two lines (%s)" % want, oracle)
    out = hwtrec_gdb(tmp, """break main
run
record hwt
next
next
run
info record
record hwt
next
next
""", SCENARIO, ["-o", rec + "/"])
    check("No recording is currently active." in out,
          "run: the new process is not recorded until record hwt", out)
    for path in (rec, rec2):
        text = info(path)
        check("killed by signal 9" in text,
              "run: %s is finished, killed" % os.path.basename(path), text)
        check(recorded_count(path) == want,
              "run: %s holds the %s instructions record full logs (%s)"
              % (os.path.basename(path), want, recorded_count(path)), text)
    pids = re.findall(r"^Process: +(\d+)", info(rec) + info(rec2), re.M)
    check(len(pids) == 2 and pids[0] != pids[1],
          "run: the two recordings are of two processes (%s)" % pids)


def case_run_discards(tmp):
    """Without -o the killed run's recording is removed when `run` (or
    `kill`) kills the process; reverse execution then has no history; `kill`
    leaves GDB connected for another `run`."""
    count = ("shell echo RECORDINGS $(ls -d $TMPDIR/*.hwtrec 2>/dev/null "
             "| wc -l)\n")
    out = hwtrec_gdb(tmp, """break main
run
record hwt
next
%srun
%s%srecord hwt
next
%skill
%srun
""" % (count, count, tolerate("reverse-step"), count, count), SCENARIO)
    counts = re.findall(r"^RECORDINGS (\d+)", out, re.M)
    check(counts == ["1", "0", "1", "0"],
          "run, kill: the recording goes with the process (%s)" % counts, out)
    check("not recording" in out,
          "run: reverse execution says nothing is recorded", out)
    check(out.count("Breakpoint 1, main ()") == 3,
          "kill, then run: the program runs again to main", out)


def case_run_signals(tmp):
    """Each run's new stub is told what GDB told the stub before it: GDB
    sends QPassSignals when its set changes and remembers it (here before
    the first vRun, to the stub of the program hwtrec gdb started), so
    without the server's replay Valgrind's gdbserver stops both runs at each
    SIGUSR1 that `handle SIGUSR1 nostop noprint pass` passes silently (stop
    replies in the packet log; GDB's output looks the same)."""
    log = os.path.join(tmp, "packets.log")
    os.environ["HWTREC_SERVER_LOG"] = log
    try:
        out = hwtrec_gdb(tmp, """handle SIGUSR1 nostop noprint pass
run
run
""", SIGNAL)
    finally:
        del os.environ["HWTREC_SERVER_LOG"]
    check(len(re.findall(r"^caught$", out, re.M)) == 4
          and len(re.findall(r"^over$", out, re.M)) == 2,
          "run twice: the program handles both SIGUSR1 each time", out)
    with open(log, errors="replace") as f:
        text = f.read()
    runs = text.split("<- vRun")
    stops = [len(re.findall(r"^stub <- T1e", part, re.M)) for part in runs]
    check(len(runs) == 3 and stops == [0, 0, 0],
          "run twice: no SIGUSR1 stop from either run's stub (%s)" % stops,
          text[-3000:])


def case_run_environment(tmp):
    """set environment, unset environment and set cwd reach the program of
    the next run, and a later run gets GDB's changed set (GDB resets and
    sends it all again); the shell run says what it got."""
    sub = os.path.join(tmp, "sub")
    os.mkdir(sub)
    os.environ["HWTREC_GONE"] = "inherited"
    try:
        out = hwtrec_gdb(tmp, """set environment HWTREC_RUN_VAR=from gdb
unset environment HWTREC_GONE
set cwd %s
run
unset environment HWTREC_RUN_VAR
set environment HWTREC_GONE=back
set cwd
run
""" % sub, ["/bin/sh", "-c", 'echo "var=[$HWTREC_RUN_VAR] '
            'gone=[${HWTREC_GONE-unset}] cwd=[$(pwd)]"'])
    finally:
        del os.environ["HWTREC_GONE"]
    runs = re.findall(r"^var=.*$", out, re.M)
    check(runs == ["var=[from gdb] gone=[unset] cwd=[%s]" % sub,
                   "var=[] gone=[back] cwd=[%s]" % tmp],
          "run: GDB's environment and working directory (%s)" % runs, out)


def case_run_after_detach(tmp):
    """detach leaves GDB connected (extended-remote): the detached program
    runs to its end on its own while `run` starts another."""
    out = hwtrec_gdb(tmp, """break main
run
detach
run
""", THREADS)
    check("[Inferior 1 (Remote target) detached]" in out,
          "detach: GDB detaches", out)
    check(out.count("Breakpoint 1, main ()") == 2,
          "detach, then run: the program runs again to main", out)


def case_watch(tmp):
    """`watch` with no setting given: the tool under Valgrind's gdbserver
    has no hardware watchpoints, so hwtrec gdb makes GDB use software ones
    (which read the data log's values in the past); reverse-continue stops
    where record full's software watchpoint does, with its old and new
    values."""
    with open(VALUES_SOURCE) as f:
        line = next(n for n, text in enumerate(f, 1) if "L:main_last" in text)
    commands = ["watch counter", "reverse-continue", "print i"]
    full = subprocess.run(
        ["gdb", "-nx", "-batch", "-ex", "break main", "-ex", "run",
         "-ex", "record full", "-ex", "break %d" % line, "-ex", "continue",
         "-ex", "set can-use-hw-watchpoints 0"] +
        [arg for c in commands for arg in ("-ex", c)] + [VALUES],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT).stdout.decode("utf-8", "replace")
    out = hwtrec_gdb(tmp, "break main\ncontinue\nrecord hwt\nbreak %d\n"
                     "continue\n%s\n" % (line, "\n".join(commands)), VALUES)
    want = re.findall(r"Old value = .*\nNew value = .*|^\$\d+ = .*", full,
                      re.M)
    got = re.findall(r"Old value = .*\nNew value = .*|^\$\d+ = .*", out,
                     re.M)
    check(len(want) == 2 and got == want,
          "watch, reverse-continue: the stop and values of record full's "
          "software watchpoint (%s)" % want, out + "\n--- record full:\n" + full)


def case_messages(tmp):
    path = os.path.join(tmp, "native.gdb")
    with open(path, "w") as f:
        f.write("set confirm off\nbreak main\nrun\nrecord hwt\nkill\n")
    proc = subprocess.run(["gdb", "-nx", "-batch",
                           "-iex", "python import sys; sys.path.insert(0, %r)"
                           % PYTHONDIR, "-iex", "python import hwtrecord",
                           "-x", path, THREADS], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.decode("utf-8", "replace")
    check("hwtrec gdb -- PROGRAM ARGS" in out and "hwtrec gdb -p PID" in out,
          "record hwt on a native target says how to get it", out)
    proc = subprocess.run([HWTREC, "gdb", "-p", "1"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    out = proc.stdout.decode("utf-8", "replace")
    check(proc.returncode == 2 and "needs the program started under it" in out,
          "hwtrec gdb -p: the software source cannot attach", out)


def case_record_full(tmp):
    """`record` and `record full` on hwtrec-server: refused, naming `record
    hwt`, where GDB 13's record full died with an internal error
    (thread_architecture: Assertion `inf != NULL'), the session with it.
    Reverse commands before `record hwt`: an error, as record full's GDB
    gives one, not a warning and "Program stopped."; right after it at the first
    instruction, before anything ran: the history's start."""
    out = hwtrec_gdb(tmp, """break main
run
next
%s%s%s%s%srecord hwt
next
reverse-next
echo SESSION-ALIVE\n
""" % (tolerate("record"), tolerate("record full"), tolerate("record stop"),
       tolerate("reverse-next"), tolerate("rc")), SCENARIO)
    check("internal-error" not in out,
          "record, record full: no internal error of GDB's", out)
    check(out.count("ERROR: record full: GDB's own recording cannot run on "
                    "hwtrec-server") == 2 and 'Use "record hwt"' in out,
          "record, record full: refused, naming record hwt", out)
    check('ERROR: No recording is currently active.\nUse the "record hwt" '
          'command first.' in out,
          "record stop before record hwt: names record hwt", out)
    # Not the server's refusal of the packet, which GDB took for a stop.
    check(out.count("ERROR: hwtrec: not recording: `record hwt` starts the "
                    "history.") == 2 and "Remote failure reply" not in out
          and "Program stopped." not in out,
          "reverse-next, rc before record hwt: refused as errors", out)
    check("No more reverse-execution history." in out
          and "SESSION-ALIVE" in out,
          "record hwt after the refusals: reverse-next goes back", out)
    # record hwt at the first instruction, before the program ever ran:
    # reverse-stepi is at the history's start, as in record full's empty
    # log, not the server's "no history yet" taken for a stop.
    out = hwtrec_gdb(tmp, "record hwt\n%sstepi\nreverse-stepi\n"
                     % tolerate("reverse-stepi"), SCENARIO)
    check(out.count("No more reverse-execution history.") == 2
          and "Remote failure reply" not in out
          and "Program stopped." not in out,
          "reverse-stepi before anything was recorded: the history's start",
          out)


def main():
    if not shutil.which("valgrind"):
        print("SKIP: valgrind not installed")
        return 77
    for case in (case_threads, case_commands, case_exit, case_gdb_killed,
                 case_run_args, case_run_recordings, case_run_discards,
                 case_run_signals, case_run_environment, case_run_after_detach,
                 case_watch, case_messages, case_record_full):
        # test-live.py CASE...: only those.
        if sys.argv[1:] and case.__name__ not in sys.argv[1:]:
            continue
        tmp = tempfile.mkdtemp(prefix="hwtrec-live-test-")
        try:
            case(tmp)
            no_leftovers(tmp, case.__name__)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (len(passes), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
