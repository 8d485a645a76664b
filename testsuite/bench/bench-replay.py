# bench-replay.py: runs inside GDB at the crash of the bench-replay program,
# connected to hwtrec-server either through the hwtrec plugin (BENCH_MODE=hwtrec)
# or with GDB's own `record btrace pt` reading the same Intel PT through the
# server's btrace mode (BENCH_MODE=btrace).  Times each command the same way
# in both and writes one "name value" line per figure to BENCH_OUT.
# BENCH_T0 is the wall time at which the shell started GDB.
import os
import re
import time

import gdb

mode = os.environ["BENCH_MODE"]
out = open(os.environ["BENCH_OUT"], "w")


def figure(name, value):
    out.write("%s %s\n" % (name, value))
    out.flush()


def timed(command):
    start = time.perf_counter()
    text = gdb.execute(command, to_string=True)
    return time.perf_counter() - start, text


def where():
    frame = gdb.selected_frame()
    return "%s %#x" % (frame.name(), frame.pc())


if mode == "btrace":
    gdb.execute("set record btrace pt buffer-size unlimited")
    gdb.execute("record btrace pt")
gdb.execute("bt", to_string=True)
figure("ready", time.time() - float(os.environ["BENCH_T0"]))
crash_at = where()
figure("crash_at", crash_at)

seconds, _ = timed("reverse-stepi")
figure("first_reverse_stepi", seconds)
if mode != "btrace" and where() == crash_at:
    # hwtrec, as record full, has a position before the instruction at the
    # signal's stop (logged, never run); btrace has none: one more step
    # back (untimed) so that both sides stand at the same instruction.
    gdb.execute("reverse-stepi", to_string=True)
figure("after_first_reverse_stepi", where())
steps = sorted(timed("reverse-stepi")[0] for _ in range(20))
figure("reverse_stepi_median", steps[len(steps) // 2])
steps = sorted(timed("reverse-step")[0] for _ in range(5))
figure("reverse_step_median", steps[len(steps) // 2])
figure("after_reverse_steps", where())

gdb.execute("break mark_start")
seconds, _ = timed("reverse-continue")
figure("reverse_continue", seconds)
figure("reverse_continue_at", where())
gdb.execute("delete")

seconds, text = timed("info record")
figure("info_record", seconds)
m = re.search(r"[Rr]ecorded (\d+) instructions in (\d+) functions", text)
if m:
    figure("instructions", m.group(1))
    figure("functions", m.group(2))
total = int(m.group(2)) if m else 100000
seconds, text = timed("record function-call-history /c 1,%d" % total)
figure("call_history", seconds)
figure("call_history_lines", len(text.splitlines()))


def peak_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def servers():
    """hwtrec-server processes started by this GDB (through the shell of
    `target remote | ...`)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                argv = f.read().split(b"\0")
            pid = int(name)
            ancestor = pid
            for _ in range(3):
                with open("/proc/%d/stat" % ancestor) as f:
                    ancestor = int(f.read().rsplit(")", 1)[1].split()[1])
                if ancestor == os.getpid():
                    break
        except (OSError, ValueError, IndexError):
            continue
        if ancestor == os.getpid() and argv[0].endswith(b"hwtrec-server"):
            found.append(pid)
    return found


figure("gdb_peak_kb", peak_kb(os.getpid()))
figure("server_peak_kb", sum(peak_kb(pid) for pid in servers()))
out.close()
