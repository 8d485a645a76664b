"""real-driver.py: inside GDB, bring a real program to the end of its run and
write, as JSON, what GDB shows there: every thread's backtrace, the shared
libraries, and where each of a few reverse-execution commands lands.

Loaded by run-real with `gdb -batch -x real-driver.py`.  Environment:

  REAL_MODE     "oracle": run REAL_PROG live under GDB (natively or through
                gdbserver, ../oracle/record_full.py) with `record full` on
                a short stretch before the end (the oracle);
                "hwtrec": GDB was opened by `hwtrec replay` at the end of
                the recording: just look.
  REAL_PROG, REAL_ARGS (JSON list)   the program (oracle mode)
  REAL_FIFO     the FIFO the program reads its input from; run-real wrote
                the first part of the input into it
  REAL_REST     the rest of the input (a file), written once the program
                waits for more; empty for the "signal" ending
  REAL_END      "exit": the program reads the rest and exits normally; the
                end is its exit_group system call and record full covers
                the run from `exit` on.
                "signal": the end is the system call in which it waits for
                input that never comes (where run-real's `kill -SEGV` finds
                the recorded run); record full covers the run from the read
                that drained the FIFO on.
  REAL_COMMANDS the reverse-execution commands (JSON list)
  REAL_OUT      where to write the JSON

The program's point of waiting is the same in both runs: it has consumed
exactly the first part of the input, which was in the FIFO before it
started, and blocks for more (read, or poll for non-blocking readers).
"""

import fcntl
import json
import os
import re
import signal
import struct
import termios
import threading
import time

import gdb

import elf_layout  # testsuite/real, on sys.path (run-real)

MODE = os.environ["REAL_MODE"]
END = os.environ.get("REAL_END", "exit")
FIFO = os.environ.get("REAL_FIFO", "")
NO_HISTORY = "No more reverse-execution history."


def fifo_bytes(fd):
    """Bytes waiting in the FIFO (our O_RDWR descriptor keeps it open)."""
    raw = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    return struct.unpack("i", raw)[0]


def inferior_fd_is_fifo(fd):
    pid = gdb.selected_inferior().pid
    try:
        return os.path.samefile("/proc/%d/fd/%d" % (pid, fd), FIFO)
    except OSError:
        return False


def inferior_fd_blocks(fd):
    """Whether the program's descriptor FD is in blocking mode."""
    pid = gdb.selected_inferior().pid
    with open("/proc/%d/fdinfo/%d" % (pid, fd)) as f:
        for line in f:
            if line.startswith("flags:"):
                return not int(line.split()[1], 8) & os.O_NONBLOCK
    return True


class InputBreakpoint(gdb.Breakpoint):
    """Stops at read() on the FIFO and at poll(); `kind` says which."""

    def __init__(self, spec, kind):
        super().__init__(spec, internal=True)
        self.kind = kind
        self.hit = None

    def stop(self):
        if self.kind == "read":
            fd = int(gdb.parse_and_eval("$rdi"))
            if not inferior_fd_is_fifo(fd):
                return False
            self.hit = {"fd": fd, "count": int(gdb.parse_and_eval("$rdx")),
                        "blocks": inferior_fd_blocks(fd)}
        else:
            self.hit = {}
        return True


def continue_to_input(fifo_fd, breakpoints):
    """Continue to the next stop of one of BREAKPOINTS; returns it and the
    bytes then waiting in the FIFO."""
    for bp in breakpoints:
        bp.hit = None
    resume("continue")
    for bp in breakpoints:
        if bp.hit is not None:
            return bp, fifo_bytes(fifo_fd)
    raise gdb.GdbError("the program stopped elsewhere than at its input:\n%s"
                       % gdb.execute("bt 3", to_string=True))


def resume(command):
    """Run COMMAND with its output left on GDB's stdout: through gdbserver
    the program's own output (gzip's, binary) comes with it, which
    to_string would have to decode."""
    gdb.execute(command)


def run_to_wait(fifo_fd, points, also=()):
    """Continue until the program enters the call in which it waits: a
    blocking read of the empty FIFO, or poll with the FIFO empty.  ALSO:
    more breakpoints whose stops are returned."""
    while True:
        bp, waiting = continue_to_input(fifo_fd, list(points) + list(also))
        if bp in also:
            return bp
        if waiting == 0 and (bp.kind == "poll" or bp.hit["blocks"]):
            return bp


def call_site():
    """The call instruction that entered the selected frame's function."""
    ret = gdb.selected_frame().older().pc()
    arch = gdb.selected_frame().architecture()
    for length in (5, 6, 7, 2, 3, 4):
        insn = arch.disassemble(ret - length)[0]
        if insn["length"] == length and insn["asm"].startswith("call"):
            return ret - length
    raise gdb.GdbError("no call instruction before 0x%x" % ret)


class SiteBreakpoint(gdb.Breakpoint):
    """The waiting call's call site, once the FIFO is empty."""

    def __init__(self, address, fifo_fd):
        super().__init__("*0x%x" % address, internal=True)
        self.fifo_fd = fifo_fd
        self.hit = None
        self.kind = "site"

    def stop(self):
        if fifo_bytes(self.fifo_fd):
            return False
        self.hit = {}
        return True


def start_with_input(fifo_fd, prog, args):
    import record_full
    with open(os.environ["REAL_CHUNK"], "rb") as f:
        os.write(fifo_fd, f.read())
    record_full.start(prog, args)
    return [InputBreakpoint("read", "read"), InputBreakpoint("poll", "poll")]


def tgkill(pid, tid, sig):
    """Signal one thread of another process (os.kill picks any thread)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(234, pid, tid, sig) != 0:       # SYS_tgkill
        raise OSError(ctypes.get_errno(), "tgkill %d %d" % (pid, tid))


def blocked_in_system_call(pid, tid):
    """Whether thread TID of PID sleeps in a system call (not running, not
    stopped by GDB between the single steps of record full)."""
    base = "/proc/%d/task/%d/" % (pid, tid)
    try:
        with open(base + "stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        with open(base + "syscall") as f:
            call = f.read().split()[0]
    except (OSError, IndexError):
        return False
    return state == "S" and call.isdigit()


def segv_once_blocked(pid, tid, timeout=60.0):
    """SIGSEGV to TID once it waits in the system call (record full steps
    up to it first: how long that takes depends on the machine's load)."""
    deadline = time.monotonic() + timeout
    while not blocked_in_system_call(pid, tid):
        if time.monotonic() > deadline:
            break           # signalled anyway: the stop check says why
        time.sleep(0.02)
    tgkill(pid, tid, signal.SIGSEGV)


def deliver_segv_and_continue():
    """SIGSEGV to the main thread (from another thread, while GDB waits in
    `continue`): it is blocked in the system call, as the recorded run was
    when run-real sent its signal."""
    pid = gdb.selected_inferior().pid
    tid = main_thread().ptid[1]
    signals = []

    def note(event):
        signals.append(getattr(event, "stop_signal", None))
    gdb.events.stop.connect(note)
    sender = threading.Thread(target=segv_once_blocked, args=(pid, tid))
    sender.start()
    resume("continue")
    sender.join()
    gdb.events.stop.disconnect(note)
    if signals != ["SIGSEGV"]:
        raise gdb.GdbError("the program did not stop with SIGSEGV (stops: %s)"
                           % signals)
    # record full logs the instruction at the signal's stop as an entry of
    # its own (never run): its first reverse-stepi here stays put.  hwtrec
    # replays a recording's signal stop the same way (hwtrec-server's
    # signal_before_tail_insn), so the commands start at the end in both.


def oracle_to_end():
    import record_full
    prog = os.environ["REAL_PROG"]
    args = json.loads(os.environ["REAL_ARGS"])
    fifo_fd = os.open(FIFO, os.O_RDWR | os.O_NONBLOCK)
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    points = start_with_input(fifo_fd, prog, args)
    gdb.execute("set record full insn-number-max unlimited")
    run_to_wait(fifo_fd, points)
    # The other threads as they wait too (record full below runs only the
    # main thread, and GDB cannot read the others once it has).
    others = other_threads()
    if END == "signal":
        # Record from the call that waits: a second run, to its call site
        # (noted now) after the first read of the FIFO (past any exec).
        site = call_site()
        gdb.execute("kill", to_string=True)
        for bp in points:
            bp.delete()
        points = start_with_input(fifo_fd, prog, args)
        continue_to_input(fifo_fd, points)
        site_bp = SiteBreakpoint(site, fifo_fd)
        run_to_wait(fifo_fd, points, also=[site_bp])
        # Only this thread runs from here (record full does not follow
        # other threads; a multithreaded program's others wait anyway).
        gdb.execute("set scheduler-locking on")
        gdb.execute("record full")
        run_to_wait(fifo_fd, points)
        for bp in points + [site_bp]:
            bp.delete()
        deliver_segv_and_continue()
    else:
        for bp in points:
            bp.delete()
        with open(os.environ["REAL_REST"], "rb") as f:
            rest = f.read()
        os.set_blocking(fifo_fd, True)
        os.write(fifo_fd, rest)
        os.close(fifo_fd)
        gdb.execute("break exit", to_string=True)
        resume("continue")
        gdb.execute("delete", to_string=True)
        others = other_threads()
        gdb.execute("set scheduler-locking on")
        gdb.execute("record full")
        # record full stops before the exit_group system call ("The next
        # instruction is syscall exit_group", answered yes by confirm off).
        resume("continue")
        insn = gdb.execute("x/i $pc", to_string=True)
        if not re.search(r"\ssyscall\s*$", insn) or \
                int(gdb.parse_and_eval("$rax")) != 231:     # exit_group
            raise gdb.GdbError("record full did not stop at exit_group: "
                               + insn)
    return record_full.describe(), others


def local(path):
    """PATH as a file here: GDB names a file it read over the target's
    vFile packets "target:PATH" (hwtrec-server serves the recording's)."""
    return path[len("target:"):] if path.startswith("target:") else path


def load_bias(path):
    """What GDB added to PATH's link-time addresses: for a library, its
    listed .text start minus the ELF's; for the executable, the relocated
    entry point (`info files`) minus e_entry."""
    if path == gdb.current_progspace().filename:
        m = re.search(r"Entry point: (0x[0-9a-f]+)",
                      gdb.execute("info files", to_string=True))
        return int(m.group(1), 16) - elf_layout.entry(local(path))
    for line in gdb.execute("info sharedlibrary", to_string=True).splitlines():
        fields = line.split()
        if fields and fields[-1] == path and fields[0].startswith("0x"):
            return int(fields[0], 16) - elf_layout.text_section(local(path))[0]
    raise ValueError("%s is not listed" % path)


def symbolic(pc):
    """`info symbol PC`, comparable across load addresses: the symbol and
    offset and the object's base name; without a symbol (stripped code),
    the object and the link-time address."""
    try:
        text = gdb.execute("info symbol 0x%x" % pc, to_string=True).strip()
    except gdb.error as err:
        return "<%s>" % err
    if text.startswith("No symbol matches"):
        path = gdb.solib_name(pc) or gdb.current_progspace().filename
        if path is None:
            return "?? (GDB has no executable)"
        try:
            return "%s:0x%x" % (os.path.basename(local(path)), pc - load_bias(path))
        except (ValueError, OSError, AttributeError, TypeError) as err:
            return "?? in %s (%s)" % (path, err)
    text = re.sub(r" in section \S+", "", text)
    return re.sub(r" of (\S+)$", lambda m: " of " +
                  os.path.basename(m.group(1)), text)


def backtrace(limit=40):
    frames = []
    try:
        frame = gdb.newest_frame()
        while frame is not None and len(frames) < limit:
            frames.append({"name": frame.name() or "??",
                           "where": symbolic(frame.pc()),
                           "pc": "0x%x" % frame.pc()})
            frame = frame.older()
    except gdb.error as err:
        frames.append({"name": "<%s>" % err, "where": "", "pc": ""})
    return frames


def main_thread():
    """The first thread (lowest LWP): the one that waits for input; which
    thread a process-directed signal lands on varies."""
    return min(gdb.selected_inferior().threads(), key=lambda t: t.ptid[1])


def other_threads():
    """Backtraces of every thread but the main one."""
    stacks = []
    main, selected = main_thread(), gdb.selected_thread()
    for thread in gdb.selected_inferior().threads():
        if thread.ptid != main.ptid:
            thread.switch()
            stacks.append(backtrace())
    selected.switch()
    return stacks


def shared_libraries():
    libs = []
    text = gdb.execute("info sharedlibrary", to_string=True)
    for line in text.splitlines():
        m = re.match(r"^(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+\S+(?:\s+\(\*\))?"
                     r"\s+(?:target:)?(/\S+)$", line)
        if m:
            libs.append({"from": m.group(1), "to": m.group(2),
                         "path": m.group(3)})
    return libs, text


def record_numbers():
    """The instruction numbers `info record` shows: record full's lowest,
    highest and current (when replaying); hwtrec's recorded count and
    current (btrace's numbering, when replaying)."""
    text = gdb.execute("info record", to_string=True)
    numbers = {}
    for name, pattern in (
            ("lowest", r"Lowest recorded instruction number is (\d+)"),
            ("highest", r"Highest recorded instruction number is (\d+)"),
            ("current", r"Current instruction number is (\d+)"),
            ("recorded", r"Recorded (\d+) instructions"),
            ("current", r"At instruction (\d+)")):
        m = re.search(pattern, text)
        if m:
            numbers[name] = int(m.group(1))
    return numbers


class HistoryPlace:
    """How far back from where the commands start each step stands, in
    instructions (`back`), and how far back the history reaches (`reach`),
    from `info record`.  The numbers count the same instructions in both
    runs (a system call as one), so `back` is comparable.  record full's
    current number N means that log entry N+1 runs next: below the lowest,
    the program stands at the instruction record full started at, the
    start of its stretch (`at_first`).  A command that runs out of history
    stops there too, and GDB reports that on its terminal only, not in
    gdb.execute's string: at_first is how the oracle knows it (GDB 13's
    stop events carry no reason).  The signal's arrival, an entry of record
    full's log, is behind the start (deliver_segv_and_continue)."""

    def __init__(self):
        numbers = record_numbers()
        if "highest" in numbers:        # record full
            self.first = numbers["lowest"]
            self.start = numbers.get("current", numbers["highest"] + 1)
        elif "recorded" in numbers:     # hwtrec: instructions 1..recorded
            self.first = 2        # btrace's instruction 1 is the first
            # At a signal's stop record full's log has two positions where
            # btrace's numbers (hwtrec's) have one: the instruction at the
            # stop (never run; hwtrec replays it too) and the end; and the
            # oracle's start counts the end as one past its highest entry.
            # So an instruction k before the stop is k + 2 back in both.
            end = numbers["recorded"] + (3 if END == "signal" else 1)
            self.start = numbers.get("current", end)
        else:
            raise gdb.GdbError("`info record' gives no instruction numbers:\n"
                               + gdb.execute("info record", to_string=True))

    def now(self):
        numbers = record_numbers()
        current = numbers.get("current", self.start)
        return {"back": self.start - current,
                "reach": self.start - self.first + 1,
                "at_first": current < self.first}


def position():
    try:
        frame = gdb.selected_frame()
    except gdb.error as err:
        return {"where": "<%s>" % err}
    sal = frame.find_sal()
    line = None
    if sal.symtab is not None and sal.line:
        line = "%s:%d" % (os.path.basename(sal.symtab.filename), sal.line)
    return {"name": frame.name() or "??", "where": symbolic(frame.pc()),
            "line": line, "stack": [f["name"] for f in backtrace(8)]}


def main():
    result = {"mode": MODE, "failures": []}
    try:
        others = None
        if MODE == "oracle":
            result["oracle"], others = oracle_to_end()
        gdb.execute("set pagination off")
        gdb.execute("set width 0")
        if others is None:
            others = other_threads()
        main_thread().switch()
        result["backtrace"] = backtrace()
        result["threads"] = [result["backtrace"]] + others
        result["libraries"], result["libraries_text"] = shared_libraries()
        steps = []
        place = HistoryPlace()
        for command in json.loads(os.environ.get("REAL_COMMANDS", "[]")):
            try:
                out = gdb.execute(command, to_string=True)
                error = None
            except gdb.error as err:
                out, error = "", str(err)
            step = position()
            step.update(command=command, error=error,
                        no_history=NO_HISTORY in out, history=place.now())
            steps.append(step)
        result["steps"] = steps
    except Exception as err:  # report, never hang the test
        result["failures"].append("%s: %s" % (type(err).__name__, err))
    with open(os.environ["REAL_OUT"], "w") as f:
        json.dump(result, f, indent=1)


main()
