"""`record hwt`, the history commands and `info record` on hwtrec-server.

On the hwtrec target these give GDB's record-btrace commands and output
formats: the server prints the lines (doc/gdb-packets.md), history.py picks
the window exactly as record-btrace does.

GDB cannot call a built-in command once a Python command of the same name
replaces it, so the replacements are installed only when the session first
meets an hwtrec-server (install_overrides, called from target.on_detect).
A session that never connects to hwtrec-server keeps GDB's own commands
untouched.  After that, on another target, the replacements give GDB's own
answers where there is no recording, and otherwise say that GDB's command is
no longer reachable in this session.
"""

import re

import gdb

from . import history, target

# `record stop` and `record delete` in `hwtrec replay`: GDB's own answer
# ("No recording is currently active") would contradict `info record`.
REPLAY_NO_PROCESS = (
    "hwtrec replays a recording, which cannot be %s: its program ran when "
    "it was recorded, and there is no process here to go on with.  "
    "`record goto end` goes to its end; `quit` ends the replay.")

RECORD_NO_TARGET = ("No recording is currently active.\n"
                    "Use the \"record full\" or \"record btrace\" command first.")

# GDB's answer as above, live on hwtrec-server, where record full and record
# btrace cannot run (RecordFull) and `record hwt` is what records.
LIVE_NO_RECORDING = ("No recording is currently active.\n"
                     "Use the \"record hwt\" command first.")

# `record full` (and `record`, which runs it) on hwtrec-server: GDB 13's
# record full on this target dies with an internal error
# (thread_architecture: Assertion `inf != NULL'), taking the session along.
RECORD_FULL_LIVE = (
    "record full: GDB's own recording cannot run on hwtrec-server, which "
    "records the program itself.  Use \"record hwt\": it starts the history "
    "that reverse execution and the record commands go through.")

# HWTR_INSN_* and HWTR_CALL_* (libhwtrecord/include/hwtrecord.h).
INSN_FLAGS = {"m": 1, "s": 1, "r": 2, "f": 4, "p": 8}
CALL_FLAGS = {"l": 1, "i": 2, "c": 4}
CALL_INSNS = 2

# Entries asked for per packet: a reply must fit the server's PacketSize.
CHUNK = 256

# (connection, tid, kind) -> (begin, end) of the last listing, as btrace's
# insn_history / call_history; forgotten whenever the thread moves.
_remembered = {}
# (connection, tid) -> whether the last segment holds only the current insn.
_single_insn_end = {}


def forget_windows(*_):
    _remembered.clear()
    # Live, the history grows at every stop.
    _single_insn_end.clear()


gdb.events.stop.connect(forget_windows)
gdb.events.cont.connect(forget_windows)


class Position:
    """Where the selected thread stands in its history."""

    def __init__(self):
        conn = target.remote_connection()
        self.conn = conn.num
        self.tid = target.thread_tid()
        data = target.info(wait=True)
        self.data = data
        entry = target.thread_info(self.tid, data)
        # As btrace numbers them: the current instruction at the end of the
        # history is the last number (the core's PC, executed or not).  The
        # server may have two positions there (a signal stopped the thread
        # before that instruction, which record full's log holds): btrace
        # numbers them as one.  END and RAW_POSITION are the server's.
        self.end = target.end_position(entry, conn)
        self.executed = int(entry["instructions"])
        self.instructions = min(self.end, self.executed + 1)
        self.segments = int(entry["segments"])
        self.gaps = int(entry.get("gaps", 0))
        self.raw_position = int(entry.get("position", self.end))
        self.position = min(self.raw_position, self.instructions)
        self.replaying = self.raw_position < self.end
        self.btrace_replaying = self.position < self.instructions

    def key(self, kind):
        return (self.conn, self.tid, kind)

    def current_segment(self):
        stack = target.frames(self.tid)
        if not stack:
            raise gdb.GdbError("hwtrec-server: no call stack at instruction %d."
                               % self.position)
        return int(stack[0]["segment"])

    def ends_with_single_insn(self):
        key = (self.conn, self.tid)
        if key not in _single_insn_end:
            last = self.segments
            text = target.request("qHwtr:call-history:%x:%x,%x:%x"
                                  % (self.tid, last, last, CALL_INSNS))
            match = re.search(r"inst (\d+),(\d+)", text)
            # Only the current instruction: possible only without a tail.
            _single_insn_end[key] = bool(
                match and match.group(1) == match.group(2)
                and int(match.group(2)) == self.instructions)
        return _single_insn_end[key]


def _fall_through(command):
    """What GDB's own COMMAND does on a target that is not hwtrec-server, as
    far as a replaced command can still know it."""
    recording = gdb.current_recording()
    if recording is None:
        if command == "info record":
            gdb.write("No recording is currently active.\n")
            return
        if target.is_hwtrec() and target.info().get("live"):
            raise gdb.GdbError(LIVE_NO_RECORDING)
        raise gdb.GdbError(RECORD_NO_TARGET)
    if recording.method == "full" and command.endswith("-history"):
        raise gdb.GdbError("You can't do that when your target is `record-full'")
    raise gdb.GdbError(
        "hwtrec: GDB's own `%s' was replaced when this session used "
        "hwtrec-server, and cannot be reached any more; use a new GDB "
        "session for record %s." % (command, recording.method))


def _print_chunks(kind, tid, first, last, flags):
    number = first
    while number <= last:
        upto = min(last, number + CHUNK - 1)
        text = target.request("qHwtr:%s:%x:%x,%x:%x"
                              % (kind, tid, number, upto, flags))
        if text:
            gdb.write(text if text.endswith("\n") else text + "\n")
        number = upto + 1


def _listing(kind, args, letters, flag_bits, size_parameter, command):
    mods, rest = history.parse_modifiers(args, letters)
    flags = 0
    for letter in mods:
        flags |= flag_bits[letter]
    request = history.parse_history_args(rest)
    size = history.default_size(size_parameter)
    what = ("record instruction-history" if kind == "insn-history"
            else "record function-call-history")

    pos = Position()
    if kind == "insn-history":
        space = history.InsnSpace(pos.instructions)
        start = pos.position
    else:
        space = history.CallSpace(pos.segments, pos.ends_with_single_insn())
        start = (pos.current_segment() - 1 if pos.btrace_replaying
                 else pos.segments)

    if request[0] == "size":
        signed = size * request[1]
        if size == 0:
            raise gdb.GdbError("Bad %s-size." % what)
        begin, end, covered = history.window(
            space, start, signed, _remembered.get(pos.key(kind)))
        if covered == 0:
            gdb.write("At the start of the branch trace record.\n"
                      if signed < 0 else
                      "At the end of the branch trace record.\n")
    else:
        command.dont_repeat()
        if request[0] == "range":
            low, high = request[1], request[2]
        else:
            origin, count = request[1], request[2]
            if count is None:
                count = size
            if count == 0:
                raise gdb.GdbError("Bad %s-size." % what)
            low, high = history.range_from(origin, count)
        begin, end = history.window_range(space, low, high)
        covered = 1
    _remembered[pos.key(kind)] = (begin, end)

    if covered:
        if kind == "insn-history":
            first, last = begin, end - 1
        else:
            first, last = history.call_numbers(space, begin, end)
        _print_chunks(kind, pos.tid, first, last, flags)


class InstructionHistory(gdb.Command):
    """Print disassembled instructions stored in the execution log.
With a /m or /s modifier, source lines are included (if available).
With a /r modifier, raw instructions in hex are included.
With a /f modifier, function names are omitted.
With a /p modifier, current position markers are omitted.
With no argument, disassembles ten more instructions after the previous
disassembly.
"record instruction-history -" disassembles ten instructions before a
previous disassembly.
One argument specifies an instruction number as shown by 'info record', and
ten instructions are disassembled after that instruction.
Two arguments with comma between them specify starting and ending instruction
numbers to disassemble.
If the second argument is preceded by '+' or '-', it specifies the distance
from the first argument.
The number of instructions to disassemble can be defined with
"set record instruction-history-size".
(hwtrecord: on hwtrec-server the history is the recording's.)"""

    def __init__(self):
        super().__init__("record instruction-history", gdb.COMMAND_OBSCURE)

    def invoke(self, args, from_tty):
        if not target.is_hwtrec():
            _fall_through("record instruction-history")
            return
        _listing("insn-history", args, "msrfp", INSN_FLAGS,
                 "record instruction-history-size", self)


class FunctionCallHistory(gdb.Command):
    """Prints the execution history at function granularity.
It prints one line for each sequence of instructions that belong to the same
function.
Without modifiers, it prints the function name.
With a /l modifier, the source file and line number range is included.
With a /i modifier, the instruction number range is included.
With a /c modifier, the output is indented based on the call stack depth.
With no argument, prints ten more lines after the previous ten-line print.
"record function-call-history -" prints ten lines before a previous ten-line
print.
One argument specifies a function number as shown by 'info record', and
ten lines are printed after that function.
Two arguments with comma between them specify a range of functions to print.
If the second argument is preceded by '+' or '-', it specifies the distance
from the first argument.
The number of functions to print can be defined with "set record
function-call-history-size".
(hwtrecord: on hwtrec-server the history is the recording's.)"""

    def __init__(self):
        super().__init__("record function-call-history", gdb.COMMAND_OBSCURE)

    def invoke(self, args, from_tty):
        if not target.is_hwtrec():
            _fall_through("record function-call-history")
            return
        _listing("call-history", args, "lic", CALL_FLAGS,
                 "record function-call-history-size", self)


# What record full says to a goto where the thread stands (record btrace
# says nothing): GDB's reference for reverse debugging, and a script's
# `record goto end` at the end stops there under both.
ALREADY_THERE = "Already at target insn."


def _goto(number, pos=None):
    tid = target.thread_tid()
    pos = pos or Position()
    if number == pos.instructions:
        number = pos.end    # btrace's last number: the end
    if number == pos.raw_position:
        raise gdb.GdbError(ALREADY_THERE)
    reply = target.request("qHwtr:goto:%x:%x" % (tid, number))
    if reply.strip() != "OK":
        raise gdb.GdbError("hwtrec-server: unexpected reply to goto: %.60s"
                           % reply)
    _moved()


def _moved():
    """The server moved the thread: make GDB read registers, frames and
    memory anew, then show where we are (as record_btrace_set_replay does).
    GDB keeps the stack bytes it read (its dcache, the stack cache) until
    the next resume; memory is another position's after a goto, and those
    bytes would show as the locals here."""
    forget_windows()
    gdb.execute("maintenance flush dcache", to_string=True)
    gdb.execute("maintenance flush register-cache", to_string=True)
    gdb.execute("frame")


class RecordGoto(gdb.Command):
    """Restore the program to its state at instruction number N.
Argument is instruction number, as shown by 'info record'."""

    def __init__(self):
        super().__init__("record goto", gdb.COMMAND_OBSCURE, prefix=True)

    def invoke(self, arg, from_tty):
        if not arg or not arg.strip():
            raise gdb.GdbError(
                "Command requires an argument (insn number to go to).")
        self.dont_repeat()
        number = int(gdb.parse_and_eval(arg))
        if not target.is_hwtrec():
            _fall_through("record goto")
            return
        if number < 1:
            raise gdb.GdbError("No such instruction.")
        _goto(number)


class RecordGotoBegin(gdb.Command):
    """Go to the beginning of the execution log."""

    def __init__(self, name="record goto begin"):
        super().__init__(name, gdb.COMMAND_OBSCURE)

    def invoke(self, arg, from_tty):
        if arg and arg.strip():
            raise gdb.GdbError("Junk after argument: %s." % arg)
        self.dont_repeat()
        if not target.is_hwtrec():
            _fall_through("record goto begin")
            return
        # The server skips gaps at the beginning, as btrace does.
        _goto(1)


class RecordGotoEnd(gdb.Command):
    """Go to the end of the execution log."""

    def __init__(self):
        super().__init__("record goto end", gdb.COMMAND_OBSCURE)

    def invoke(self, arg, from_tty):
        if arg and arg.strip():
            raise gdb.GdbError("Junk after argument: %s." % arg)
        self.dont_repeat()
        if not target.is_hwtrec():
            _fall_through("record goto end")
            return
        pos = Position()
        _goto(pos.end, pos)


def _thread_label():
    """print_thread_id and target_pid_to_str, as `thread` prints them."""
    text = gdb.execute("thread", to_string=True)
    match = re.search(r"Current thread is (\S+) \((.*)\)\]", text)
    if match:
        return match.group(1), match.group(2)
    thread = gdb.selected_thread()
    return str(thread.num), "Thread %d" % target.thread_tid(thread)


class InfoRecord(gdb.Command):
    """Info record options."""

    def __init__(self):
        super().__init__("info record", gdb.COMMAND_OBSCURE)

    def invoke(self, arg, from_tty):
        if not target.is_hwtrec():
            _fall_through("info record")
            return
        data = target.info(wait=True)
        if data.get("live") and not data.get("tracing"):
            gdb.write("No recording is currently active.\n")
            return
        if data.get("live") and target.find_thread_info(None, data) is None:
            gdb.write("Active record target: record-hwt\n")
            gdb.write("Recording format: %s.\n" % _format_name(data))
            gdb.write("No instructions have been recorded yet.\n")
            return
        pos = Position()
        gdb.write("Active record target: record-hwt\n")
        gdb.write("Recording format: %s.\n" % _format_name(pos.data))
        if pos.data.get("recording"):
            gdb.write("Recording: %s (source: %s).\n"
                      % (pos.data["recording"], pos.data.get("source", "?")))
        calls = pos.segments
        if calls > 1 and pos.ends_with_single_insn():
            calls -= 1
        insns = pos.instructions - 1
        number, name = _thread_label()
        gdb.write("Recorded %d instructions in %d functions (%d gaps) "
                  "for thread %s (%s).\n"
                  % (insns, calls, pos.gaps, number, name))
        if pos.btrace_replaying:
            gdb.write("Replay in progress.  At instruction %d.\n"
                      % pos.position)


def _format_name(data):
    fmt = data.get("format", "intel-pt")
    return {"intel-pt": "Intel Processor Trace",
            "etm4": "ARM CoreSight ETMv4",
            "ete": "ARM CoreSight ETE"}.get(fmt, fmt)


NATIVE_HELP = (
    "record hwt: this GDB runs the program natively, and hwtrecord records "
    "through its own server.  Start the program with `hwtrec gdb -- PROGRAM "
    "ARGS` (software trace: works on every machine); on a machine with Intel "
    "PT (Linux perf), a running process can be re-attached through the "
    "server: detach, then `hwtrec gdb -p PID`.")

# Said once per session: the server answers memory at past positions only
# where it knows the bytes then (doc/gdb-packets.md), and GDB's words for an
# unknown byte are "Cannot access memory", which would otherwise puzzle.
MEMORY_NOTE = ("hwtrec: before the end of the history, memory that may have "
               "changed since is not shown (\"Cannot access memory\"): only "
               "what is known at that position is, never the present value.\n")
_memory_noted = False


def _note_memory(event):
    """Say once, at the first stop in the past, what memory is shown."""
    global _memory_noted
    if _memory_noted or not target.is_hwtrec():
        return
    try:
        entry = target.find_thread_info()
    except gdb.error:
        return
    # A thread whose values come from the recording's data log is exact
    # everywhere: nothing to explain.
    if (entry is not None and not target.at_end(entry)
            and not entry.get("registers_logged")):
        _memory_noted = True
        gdb.write(MEMORY_NOTE)


gdb.events.stop.connect(_note_memory)


def _native_inferior():
    inferior = gdb.selected_inferior()
    conn = getattr(inferior, "connection", None)
    return (inferior.pid != 0 and conn is not None
            and getattr(conn, "type", "") == "native")


class RecordHwt(gdb.Command):
    """Record with hwtrecord, or replay a recording.
Live (`hwtrec gdb -- PROGRAM ARGS`): start recording the program's
execution; at every stop reverse-step, reverse-next, reverse-continue,
reverse-finish and the record history commands go back through it, and
`continue` replays to the end of the history, then runs live again.
`record stop` discards the history; `record save FILE` writes it as a
recording for `hwtrec replay FILE`.
Post-mortem (`hwtrec replay REC`): say which recording is replayed and
where in it each thread is."""

    def __init__(self):
        super().__init__("record hwt", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        if arg and arg.strip():
            raise gdb.GdbError("Junk after argument: %s." % arg)
        if not target.is_hwtrec():
            if _native_inferior():
                raise gdb.GdbError(NATIVE_HELP)
            if gdb.selected_inferior().pid == 0:
                raise gdb.GdbError("The program is not being run.")
            raise gdb.GdbError(
                "record hwt: the target is not hwtrec-server.  Debug the "
                "program live with `hwtrec gdb -- PROGRAM ARGS`, or open a "
                "recording with `hwtrec replay REC`.")
        data = target.info()
        if data.get("live"):
            if data.get("tracing"):
                raise gdb.GdbError(
                    "The process is already being recorded.  Use \"record "
                    "stop\" to stop recording first.")
            target.request("qHwtr:record-start")
            forget_windows()
            _single_insn_end.clear()
            return
        pos = Position()
        data = pos.data
        gdb.write("hwtrec: replaying recording %s (%s, recorded by the %s "
                  "source).\n" % (data.get("recording", "?"),
                                  _format_name(data),
                                  data.get("source", "?")))
        for entry in data.get("threads", []):
            at = int(entry.get("position", entry["instructions"]))
            total = int(entry["instructions"])
            where = ("at the end of its history" if target.at_end(entry)
                     else "at instruction %d" % at)
            gdb.write("Thread %d: %d instructions in %d function segments "
                      "(%d gaps), %s.\n"
                      % (entry["tid"], total, int(entry["segments"]),
                         int(entry.get("gaps", 0)), where))
        gdb.write("Reverse execution and the record history commands work "
                  "on this recording; before its end registers other than "
                  "the PC are unavailable, and memory that may have changed "
                  "since is not shown.\n")


def _live_recording():
    """True when the target is hwtrec-server in live mode, recording."""
    if not target.is_hwtrec():
        return False
    data = target.info()
    return bool(data.get("live") and data.get("tracing"))


class RecordStop(gdb.Command):
    """Stop the record/replay target.
On hwtrec-server (live): the history is discarded and the program runs on
untraced."""

    def __init__(self):
        super().__init__("record stop", gdb.COMMAND_OBSCURE)
        self._stopping = False

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        if not _live_recording():
            if gdb.current_recording() is not None:
                # gdb.stop_recording() runs `record stop`, which is this
                # command again: GDB's own is out of reach.
                if self._stopping:
                    _fall_through("record stop")
                self._stopping = True
                try:
                    gdb.stop_recording()
                except gdb.error as err:
                    raise gdb.GdbError(str(err))
                finally:
                    self._stopping = False
                gdb.write("Process record is stopped and all execution "
                          "logs are deleted.\n")
                return
            if target.is_hwtrec() and not target.info().get("live"):
                raise gdb.GdbError(REPLAY_NO_PROCESS % "stopped")
            if target.is_hwtrec():
                raise gdb.GdbError(LIVE_NO_RECORDING)
            raise gdb.GdbError(RECORD_NO_TARGET)
        replaying = bool(target.info().get("replaying"))
        target.request("qHwtr:record-stop")
        forget_windows()
        _single_insn_end.clear()
        gdb.write("Process record is stopped and all execution logs are "
                  "deleted.\n")
        if replaying:
            # record full would go on from the past position; the live
            # process is where the history ends: show the user that
            # state, not the past one GDB printed last.
            gdb.execute("maintenance flush register-cache", to_string=True)
            gdb.write("The program goes on from the end of the history, "
                      "where it stopped:\n")
            gdb.execute("frame")


def _refuse_record_full():
    """On hwtrec-server, the error that refuses GDB's record full."""
    if not target.info().get("live"):
        raise gdb.GdbError(REPLAY_NO_PROCESS % "recorded again")
    raise gdb.GdbError(RECORD_FULL_LIVE)


class RecordFull(gdb.Command):
    """Start recording.
On hwtrec-server, `record hwt` records: GDB's own record full cannot run
there (it is refused, not started)."""

    def __init__(self):
        # Not a prefix: once this replaces GDB's command (a session that met
        # hwtrec-server), GDB's `record full restore` is out of reach.
        super().__init__("record full", gdb.COMMAND_OBSCURE)

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        if target.is_hwtrec():
            _refuse_record_full()
        if arg and arg.split()[0] == "restore":
            raise gdb.GdbError("record full restore: not available in a GDB "
                               "session that has used hwtrec-server (the "
                               "plugin replaced `record full`); start GDB "
                               "anew for it.")
        # What GDB's own command runs.
        gdb.execute("target record-full" + (" " + arg if arg else ""),
                    from_tty)


class RefuseRecordFull(gdb.Function):
    """$_hwtrec_refuse_record_full(): an error on hwtrec-server, 0 elsewhere.
Run before GDB's bare `record` (hook-record), which starts record full
without going through the `record full` command: an error in a hook stops
the command, and a function's error is printed as its message alone."""

    def __init__(self):
        super().__init__("_hwtrec_refuse_record_full")

    def invoke(self):
        if target.is_hwtrec():
            _refuse_record_full()
        return 0


class RefuseReverse(gdb.Function):
    """$_hwtrec_refuse_reverse(): an error live on hwtrec-server when nothing
is recorded, 0 elsewhere.  Run before the reverse execution commands
(hook-reverse-step...): the server cannot go back without a history, and
GDB took its refusal of the packet for a stop ("Program stopped."), where
record full's GDB refuses the command."""

    def __init__(self):
        super().__init__("_hwtrec_refuse_reverse")

    def invoke(self):
        if target.is_hwtrec():
            data = target.info()
            if data.get("live") and not data.get("tracing"):
                raise gdb.GdbError("hwtrec: not recording: `record hwt` "
                                   "starts the history.")
        return 0


# The commands whose hooks call those functions; aliases (rs, rc...) run
# the same hooks.  GDB echoes a hook's lines under `set trace-commands on`
# ("++if ..."), so the reverse ones are defined only where they can refuse
# something: once a live hwtrec-server is met (a recording replayed always
# has its history).
_RECORD_HOOKS = (("record", "_hwtrec_refuse_record_full"),)
_LIVE_HOOKS = (("reverse-step", "_hwtrec_refuse_reverse"),
               ("reverse-next", "_hwtrec_refuse_reverse"),
               ("reverse-stepi", "_hwtrec_refuse_reverse"),
               ("reverse-nexti", "_hwtrec_refuse_reverse"),
               ("reverse-continue", "_hwtrec_refuse_reverse"),
               ("reverse-finish", "_hwtrec_refuse_reverse"))


def _install_hooks(hooks):
    """hook-COMMAND for each of HOOKS; a user's own hook is left alone."""
    for command, function in hooks:
        try:
            gdb.execute("show user hook-" + command, to_string=True)
            continue
        except gdb.error:
            pass
        gdb.execute("define hook-%s\nif $%s()\nend\nend"
                    % (command, function), to_string=True)


_live_hooks_installed = False


def _install_live_hooks():
    """The reverse commands' hooks, the first time a live server is met."""
    global _live_hooks_installed
    if _live_hooks_installed:
        return
    try:
        live = bool(target.info().get("live"))
    except (gdb.error, gdb.GdbError):
        return      # no server answering (not connected yet)
    if live:
        _live_hooks_installed = True
        _install_hooks(_LIVE_HOOKS)


class RecordDelete(gdb.Command):
    """Delete the rest of execution log and start recording it anew.
On hwtrec-server: the history cannot be cut at a past position (live, the
process is where the history ends; a recording is read-only)."""

    def __init__(self):
        super().__init__("record delete", gdb.COMMAND_OBSCURE)

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        if not target.is_hwtrec():
            _fall_through("record delete")
            return
        data = target.info()
        if data.get("live") and not data.get("tracing"):
            raise gdb.GdbError(LIVE_NO_RECORDING)
        entry = target.find_thread_info(data=data)
        if entry is None or target.at_end(entry):
            # GDB's words for record full and btrace alike.
            gdb.write("Already at end of record list.\n")
            return
        if not data.get("live"):
            raise gdb.GdbError(REPLAY_NO_PROCESS % "cut here")
        raise gdb.GdbError(
            "hwtrec cannot delete the history after this position and "
            "record on from here: the live process is where the history "
            "ends.  `record goto end` returns there; `record stop` "
            "discards the whole history.")


class RecordSave(gdb.Command):
    """Save the execution log to a file.
Argument is optional filename.
On hwtrec-server (live): writes the history so far as a recording
(default name: PROGRAM-PID.hwtrec) that `hwtrec replay FILE` opens."""

    def __init__(self):
        super().__init__("record save", gdb.COMMAND_OBSCURE)

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        if not _live_recording():
            _fall_through("record save")
            return
        name = (arg or "").strip()
        if not name:
            inferior = gdb.selected_inferior()
            prog = inferior.progspace.filename or "process"
            name = "%s-%d.hwtrec" % (prog.rsplit("/", 1)[-1], inferior.pid)
        import os
        path = os.path.abspath(os.path.expanduser(name))
        target.request("qHwtr:save:" + path.encode().hex())
        gdb.write("Saved recording %s (hwtrec replay %s).\n" % (path, path))


_installed = False


def install_overrides():
    """Replace GDB's record history commands with ours (once)."""
    global _installed
    _install_live_hooks()
    if _installed:
        return
    _installed = True
    InstructionHistory()
    FunctionCallHistory()
    RecordGoto()
    RecordGotoBegin()
    RecordGotoBegin("record goto start")
    RecordGotoEnd()
    InfoRecord()
    RecordStop()
    RecordDelete()
    RecordSave()
    RecordFull()
    RefuseRecordFull()
    RefuseReverse()
    _install_hooks(_RECORD_HOOKS)


def register():
    RecordHwt()
    target.on_detect(install_overrides)
