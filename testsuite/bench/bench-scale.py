# bench-scale.py: runs inside GDB under `hwtrec replay` at the crash of a
# bench-scale.sh program.  Writes "name value" lines to BENCH_OUT: the time
# from GDB's start (BENCH_T0) to the prompt, the first reverse-stepi and a
# print of report's argument and of $rsp there (with a data log, its
# values: both runs of bench-scale.sh must print the same), then
# reverse-finish, `info registers` and a print of main's total there (the
# first values at a past position), and reverse-step, then (once the whole
# history is built) a reverse-continue across it to a breakpoint at main
# (run once, at the start; its line is where the hot function ends), and
# where each stopped, and the whole `record function-call-history` (to
# /dev/null); hwtrec-server's resident memory (anonymous and file-backed,
# from /proc/PID/smaps_rollup) at the prompt, after the reverse-continue
# and after that listing, and its peak (VmHWM).
import os
import time

import gdb

out = open(os.environ["BENCH_OUT"], "w")


def server_pid():
    """The hwtrec-server whose command line names BENCH_REC."""
    rec = os.environ.get("BENCH_REC")
    for pid in os.listdir("/proc") if rec else []:
        try:
            argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
            if b"hwtrec-server" in argv[0] and \
                    rec.encode() in b" ".join(argv):
                return pid
        except (OSError, IndexError):
            continue
    return None


def server_memory(name):
    """The server's resident KB now: all, anonymous, file-backed."""
    kb = {}
    try:
        for line in open("/proc/%s/smaps_rollup" % server_pid()):
            f = line.split()
            if len(f) == 3 and f[2] == "kB":
                kb[f[0].rstrip(":")] = int(f[1])
    except (OSError, TypeError):
        return
    figure(name + "_kb", "%d/%d/%d" % (kb["Rss"], kb["Anonymous"],
                                       kb["Rss"] - kb["Anonymous"]))


def figure(name, value):
    out.write("%s %s\n" % (name, value))
    out.flush()


def timed(name, command):
    start = time.perf_counter()
    gdb.execute(command, to_string=True)
    figure(name, time.perf_counter() - start)
    frame = gdb.selected_frame()
    figure(name + "_at", "%s %#x" % (frame.name(), frame.pc()))


gdb.execute("bt", to_string=True)
figure("ready", time.time() - float(os.environ["BENCH_T0"]))
server_memory("server_prompt")
timed("first_reverse_stepi", "reverse-stepi")
start = time.perf_counter()
shown = gdb.execute("print total", to_string=True).split("=")[-1].strip()
shown += "," + gdb.execute("print/x $rsp", to_string=True).split("=")[-1].strip()
figure("first_print", time.perf_counter() - start)
figure("first_print_shows", shown.replace(" ", "_"))
timed("reverse_finish", "reverse-finish")
# The first values at a past position (the first reverse-stepi stops
# before the crashing store, at the end state): registers and main's
# local from the data log, which bench-scale.sh compares between runs.
start = time.perf_counter()
regs = gdb.execute("info registers rax rbx rsp rip", to_string=True)
figure("past_info_registers", time.perf_counter() - start)
start = time.perf_counter()
shown = gdb.execute("print total", to_string=True).split("=")[-1].strip()
figure("past_print", time.perf_counter() - start)
figure("past_values_show", (shown + "," + ",".join(
    line.split()[1] for line in regs.splitlines() if line.strip())).replace(" ", "_"))
timed("reverse_step", "reverse-step")
# The search alone: the whole history first (info record waits for the
# build the server runs in the background), then the reverse-continue.
start = time.perf_counter()
gdb.execute("info record", to_string=True)
figure("history_wait", time.perf_counter() - start)
gdb.execute("break main", to_string=True)
timed("reverse_continue", "reverse-continue")
server_memory("server_rcont")
# The whole function-call history, GDB's printing to /dev/null: the
# server streams it (BENCH_FCH=0: skipped, as at 1 G, where GDB prints
# 140 M lines for an hour).
if os.environ.get("BENCH_FCH", "1") != "0":
    recorded = gdb.execute("info record", to_string=True)
    functions = int(recorded.split(" functions")[0].split()[-1])
    gdb.execute("set logging file /dev/null")
    gdb.execute("set logging redirect on")
    gdb.execute("set logging enabled on")
    start = time.perf_counter()
    gdb.execute("record function-call-history 1,%d" % functions)
    gdb.execute("set logging enabled off")
    figure("call_history", time.perf_counter() - start)
    server_memory("server_fch")


def server_peak_kb():
    """VmHWM of the server."""
    try:
        for line in open("/proc/%s/status" % server_pid()):
            if line.startswith("VmHWM:"):
                return line.split()[1]
    except (OSError, TypeError):
        pass
    return "-1"


figure("server_peak_kb", server_peak_kb())
