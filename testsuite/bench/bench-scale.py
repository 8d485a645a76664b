# bench-scale.py: runs inside GDB under `hwtrec replay` at the crash of a
# bench-scale.sh program.  Writes "name value" lines to BENCH_OUT: the time
# from GDB's start (BENCH_T0) to the prompt, the first reverse-stepi and a
# print of report's argument and of $rsp there (with a data log, its
# values: both runs of bench-scale.sh must print the same), then
# reverse-finish, `info registers` and a print of main's total there (the
# first values at a past position), and reverse-step, then (once the whole
# history is built) a reverse-continue across it to a breakpoint at main
# (run once, at the start; its line is where the hot function ends), and
# where each stopped; last, hwtrec-server's peak resident memory (VmHWM).
import os
import time

import gdb

out = open(os.environ["BENCH_OUT"], "w")


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


def server_peak_kb():
    """VmHWM of the hwtrec-server whose command line names BENCH_REC."""
    rec = os.environ.get("BENCH_REC")
    for pid in os.listdir("/proc") if rec else []:
        try:
            argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
            if b"hwtrec-server" in argv[0] and \
                    rec.encode() in b" ".join(argv):
                for line in open("/proc/%s/status" % pid):
                    if line.startswith("VmHWM:"):
                        return line.split()[1]
        except (OSError, IndexError):
            continue
    return "-1"


figure("server_peak_kb", server_peak_kb())
