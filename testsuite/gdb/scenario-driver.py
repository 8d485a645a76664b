"""Runs one GDB scenario inside GDB and writes what GDB did, as JSON.

Loaded by run-scenario with `gdb -batch -x scenario-driver.py`; the scenario
and the mode come from the environment:

  SCN_FILE    the scenario (*.scn): GDB commands, one a line
  SCN_MODE    "full": run SCN_PROG live under `record full` until it crashes
              (natively, or through gdbserver where native GDB cannot
              write the extended registers: testsuite/oracle/record_full.py);
              "hwtrec": connect to hwtrec-server replaying SCN_RECORDING;
              "live": GDB runs under `hwtrec gdb`: `record hwt` at main
              and continue to the crash
  SCN_PROG, SCN_SOURCE, SCN_RECORDING, SCN_SERVER, SCN_OUT

After setting up (both modes stand at the crash, the end of the history) it
runs each command and notes the selected frame's PC, function and line, and
whether GDB said it ran out of history.  Directives in the scenario:

  #program NAME        which test program (scenario-prog, bare-prog)
  #record-from start   record full from the first instruction (default: main)
  #record-from FUNC    record full (live: record hwt) from the first call of
                       FUNC (a stripped program has no main)
  #end-signal NAME     how the live run ends (default SIGSEGV); "none":
                       record full stops before an instruction it cannot
                       log; "exit": the program exits, record full stops
                       before exit_group and the hwtrec half, whose
                       recording ends after it, starts one instruction back
  #record-from none    live scenarios: record nothing, stand at the first
                       instruction (record full's half: `starti`); the
                       scenario itself says `run` or `start`, and `record`
  #run-to NAME         run (recording) to the line marked L:NAME instead of
                       to the crash (live scenarios, *.lscn)
  #pie                 the program is PIE (loaded elsewhere under Valgrind):
                       compare PCs as function + offset
  #values E1 E2...     after every command also note the values GDB shows:
                       the general registers of frame 0, every argument and
                       local of every frame up to main, the expressions named
                       (globals, `$xmm0`, `buf[0]@8`: no blanks) and
                       `finish`'s "Value returned" (run-scenario: each must
                       be record full's, or unknown); structs member by
                       member (NAME.member), references as what they refer
                       to, addresses as offsets from the stack, the heap
                       anchor or the library they lie in
  #compare-output      (run-scenario) the lines GDB prints at stops
                       (watchpoints' old and new values, finish's value,
                       display) must be record full's
  #compare-prints      (run-scenario) what `print`, `x`, `output`,
                       `info locals`, `info args`, `ptype` and `whatis`
                       print (pretty printers' text, `x/s`, `p *a@n`) must
                       be record full's, addresses anchored as #values
                       anchors them; under hwtrec `<unavailable>` may stand
                       for what record full shows
  #compare-frames      with #compare-prints, also what `bt`, `frame apply`,
                       `info frame` and `info breakpoints` print (hit
                       counts after reverse motion), breakpoint numbers apart
  #setup-full COMMAND  as #setup, in the record-full half only
  #hardware-watchpoints under hwtrec replay, every watchpoint GDB makes
                       must be a hardware one (served by hwtrec-server)
  #setup COMMAND       a GDB command run before the program starts, in both
                       modes (`handle SIGUSR1 nostop noprint pass`: the
                       record-full half runs to the crash with one continue)
  #heap-anchor EXPR    pointers near EXPR's value at the end (a heap block
                       the program never frees before the end, or the first
                       one it allocated) are compared as offsets from it: the
                       heap lies elsewhere under Valgrind
  #assert EXPR         EXPR must be true here, in both modes
  #assert-full EXPR    EXPR must be true here under record full (locals are
                       unavailable in a PC-only replay); checks the scenario
                       itself does what it says
  #assert-hwtrec EXPR  EXPR must be true here under hwtrec (replay and
                       live), where record full shows a wrong value (the
                       scenario says why, and what shows it wrong)
  #shown EXPR...       under hwtrec replay, each EXPR ($rbp, a variable) is
                       shown here, not <unavailable> or an error (that it is
                       record full's value, #values checks); not checked live
                       (without a core nothing is recovered)
  #unknown EXPR...     under hwtrec replay, EXPR is <unavailable> or an error
  #ignore-here NAME... (run-scenario) as #ignore, for the values noted
                       after the command just before and the commands
                       after it that stay at that PC (the scenario says
                       why: record full wrong at that stop)
  #expect-line NAME    the selected frame is at the line marked L:NAME
  @name in a command   the line marked /* L:name */ in the program's source
  record               (the command alone) the mode's method: `record full`,
                       or `record hwt` live
"""

import json
import os
import re

import gdb

import record_full  # testsuite/oracle, put on sys.path by run-scenario

NO_HISTORY = "No more reverse-execution history."


# What GDB prints in place of a value it does not have (#shown, #unknown).
NOT_SHOWN = ("<unavailable>", "<not saved>", "<optimized out>")


def markers(source):
    lines = {}
    with open(source) as f:
        for number, text in enumerate(f, 1):
            for name in re.findall(r"L:(\w+)", text):
                lines[name] = number
    return lines


def expand(command, lines, source):
    def repl(match):
        name = match.group(1)
        if name not in lines:
            raise gdb.GdbError("scenario: no line marked L:%s in %s"
                               % (name, source))
        return "%s:%d" % (os.path.basename(source), lines[name])
    return re.sub(r"@(\w+)", repl, command)


def where():
    try:
        frame = gdb.selected_frame()
    except gdb.error as err:
        return {"pc": None, "function": None, "line": None,
                "frame_error": str(err)}
    sal = frame.find_sal()
    line = None
    if sal.symtab is not None and sal.line:
        line = "%s:%d" % (os.path.basename(sal.symtab.filename), sal.line)
    stack = []
    try:
        outer = gdb.newest_frame()
        while outer is not None and len(stack) < 12:
            stack.append(outer.name())
            outer = outer.older()
    except gdb.error as err:
        stack.append("<%s>" % err)
    try:
        # "function + offset": comparable when the program or a library is
        # loaded at another address (PIE under Valgrind).
        pc_sym = gdb.execute("info symbol 0x%x" % frame.pc(),
                             to_string=True).split(" in section ")[0].strip()
    except gdb.error as err:
        pc_sym = "<%s>" % err
    pc = "0x%x" % frame.pc()
    # A stop in a shared library (known with #values) as the library's
    # name plus an offset: Valgrind loads libraries elsewhere.
    library = in_library(frame.pc()) if LIBRARIES else None
    if library and not library.startswith("0x"):
        pc = library
    return {"pc": pc, "pc_sym": pc_sym,
            "function": frame.name(), "line": line,
            "level": frame.level(), "stack": stack}


# The registers `info registers` shows first (frame 0's).
REGISTERS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8",
             "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip", "eflags")
UNKNOWN = "<unknown>"
# main's stack pointer at the end of the run (the crash): the stack lies
# elsewhere under Valgrind than natively, so stack addresses are compared as
# offsets from it (the frames below main are laid out the same).
STACK_ANCHOR = None
STACK_WINDOW = 0x100000
# #heap-anchor: the same for heap addresses (the brk heap of a static
# program lies 0xad000 past its code natively: a smaller window).
HEAP_ANCHOR = None
HEAP_WINDOW = 0x10000


# The executable's own sections (start, end) and each shared library's
# text start, from `info files` and `info sharedlibrary` at the end of the
# run (images_at_end): an address in a library loaded elsewhere under
# Valgrind is compared as the library's name and an offset, and one in the
# executable is never taken for the heap, which starts right after it in a
# dynamically linked program.
EXEC_SECTIONS = []
LIBRARIES = []
# A PIE executable's load address (its lowest section, at the end of the
# run), else None: Valgrind loads a PIE elsewhere too.
EXEC_BASE = None


def images_at_end():
    global EXEC_BASE
    text = gdb.execute("info files", to_string=True)
    for start, end in re.findall(r"^\s*(0x[0-9a-f]+) - (0x[0-9a-f]+) is \S+$",
                                 text, re.M):
        EXEC_SECTIONS.append((int(start, 16), int(end, 16)))
    with open(gdb.current_progspace().filename, "rb") as f:
        header = f.read(18)
    if EXEC_SECTIONS and header[16:18] == b"\x03\x00":    # ET_DYN
        EXEC_BASE = min(start for start, _ in EXEC_SECTIONS)
    text = gdb.execute("info sharedlibrary", to_string=True)
    for start, path in re.findall(r"^(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+\S+"
                                  r"(?:\s+\(\*\))?\s+(?:target:)?(/\S+)$", text, re.M):
        LIBRARIES.append((int(start, 16), os.path.basename(path)))


def in_library(number):
    # An end pointer (a section's __stop_ symbol, an array's end) is the
    # executable's too, not a heap address that happens to lie near it.
    if any(start <= number <= end for start, end in EXEC_SECTIONS):
        return "%#x" % number if EXEC_BASE is None else \
            "exe%+#x" % (number - EXEC_BASE)
    try:
        name = gdb.solib_name(number)
    except (gdb.error, ValueError):
        name = None
    for start, library in LIBRARIES:
        if name and os.path.basename(name) == library:
            return "%s%+#x" % (library, number - start)
    return None


def anchored(number):
    """NUMBER as an offset from the stack or heap anchor when it lies near
    one, or from the library it lies in, else None."""
    if number >> 64:
        return None     # no address: a wider value (__int128, a vector)
    if STACK_ANCHOR is not None and abs(number - STACK_ANCHOR) < STACK_WINDOW:
        return "sp%+#x" % (number - STACK_ANCHOR)
    image = in_library(number)
    if image is not None:
        return image
    if HEAP_ANCHOR is not None and abs(number - HEAP_ANCHOR) < HEAP_WINDOW:
        return "heap%+#x" % (number - HEAP_ANCHOR)
    return None


ADDRESS = re.compile(r"0x[0-9a-f]+")


def shown(value):
    """VALUE as the comparison sees it: GDB's text, a stack address as an
    offset from main's stack pointer, or UNKNOWN when GDB cannot show it
    (<unavailable>, or an error such as "Cannot access memory").  A
    reference is shown as the value it refers to (its address is where the
    stack lies); addresses inside a longer text (an array of pointers) are
    anchored too."""
    try:
        kind = value.type.strip_typedefs()
        if kind.code in (gdb.TYPE_CODE_REF, gdb.TYPE_CODE_RVALUE_REF):
            return shown(value.referenced_value())
        text = str(value)
        if "<unavailable>" in text or "<optimized out>" in text or \
                "<not saved>" in text or \
                "<error: Cannot access memory at address" in text:
            return UNKNOWN
        if kind.code in (gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_INT) and \
                kind.sizeof == 8:
            number = int(value) & (2 ** 64 - 1)
            return anchored(number) or "%#x" % number
        return ADDRESS.sub(lambda m: anchored(int(m.group(0), 16))
                           or m.group(0), text)
    except gdb.error:
        return UNKNOWN


def note(name, value, into, depth=0):
    """VALUE under NAME in INTO; a struct, union or class member by member
    (NAME.member, base classes and anonymous members under their parent's
    name), so that #ignore can leave out one member (bytes past a string's
    end in a small buffer) and a pointer member is anchored."""
    try:
        kind = value.type.strip_typedefs() if value is not None else None
    except gdb.error:
        kind = None
    if kind is None or kind.code not in (gdb.TYPE_CODE_STRUCT,
                                         gdb.TYPE_CODE_UNION) or depth > 4:
        into[name] = UNKNOWN if value is None else shown(value)
        return
    # A static member has no bitpos (GDB 13 leaves the attribute out).
    fields = [f for f in kind.fields() if not getattr(f, "artificial", False)
              and (getattr(f, "bitpos", None) is not None
                   or f.is_base_class)]
    if not fields:
        into[name] = shown(value)
        return
    for field in fields:
        try:
            member = value[field]
        except gdb.error:
            member = None
        if field.is_base_class or not field.name:
            note(name, member, into, depth + 1)
        else:
            note(name + "." + field.name, member, into, depth + 1)


def main_sp(end_signal):
    """main's stack pointer at the end; after main has returned (an exit
    at exit_group, where both halves stand at the same instruction), the
    stack pointer there: the frames below main lie at the same offsets from
    it in both halves, as the code that ran since main is the same."""
    frame = gdb.newest_frame()
    while frame is not None and frame.name() != "main":
        frame = frame.older()
    if frame is None and end_signal == "exit":
        frame = gdb.newest_frame()
    return None if frame is None else int(frame.read_register("rsp"))


def not_declared_yet(frame, symbol):
    """Whether local SYMBOL's declaration is on FRAME's line or after it:
    the frame stands before it (GDB stops at a line's start) or in a call
    its initializer makes, so its bytes are what earlier calls left on the
    stack, which differ between the native run and the run under Valgrind
    and with the environment's size.  Neither half compares it.  (A loop
    back to before a declaration leaves it the last pass's value, which
    both runs agree on: not compared there either, a check lost, none
    made wrong.)"""
    if symbol.is_argument or symbol.addr_class == gdb.SYMBOL_LOC_STATIC:
        return False
    try:
        sal = frame.find_sal()
        return bool(sal.symtab and symbol.symtab and sal.line and
                    symbol.line and
                    sal.symtab.fullname() == symbol.symtab.fullname() and
                    symbol.line >= sal.line)
    except (gdb.error, RuntimeError):
        return False


def frame_variables(frame, into):
    """Every argument and local of FRAME's function in scope at its PC
    that the frame has reached the declaration of (not_declared_yet)."""
    try:
        block = frame.block()
    except RuntimeError:
        return
    prefix = "#%d %s: " % (frame.level(), frame.name())
    seen = set()    # an inner block's NAME hides an outer one's
    while block is not None:
        for symbol in block:
            if symbol.is_argument or symbol.is_variable:
                if symbol.name not in seen:
                    seen.add(symbol.name)
                    if not_declared_yet(frame, symbol):
                        continue
                    try:
                        value = frame.read_var(symbol, block)
                    except gdb.error:
                        value = None
                    note(prefix + symbol.name, value, into)
        if block.function is not None:
            break
        block = block.superblock


def values(globals_):
    """The values GDB shows here (#values)."""
    found = {}
    try:
        frame = gdb.newest_frame()
    except gdb.error:
        return found
    for name in REGISTERS:
        try:
            found["$" + name] = shown(frame.read_register(name))
        except (gdb.error, ValueError):
            found["$" + name] = UNKNOWN
    while frame is not None:
        frame_variables(frame, found)
        if frame.name() == "main":
            break
        try:
            frame = frame.older()
        except gdb.error:
            break
    for name in globals_:
        try:
            note(name, gdb.parse_and_eval(name), found)
        except gdb.error:
            found[name] = UNKNOWN
    return found


def history_number():
    """The number of GDB's last value history entry ($N), 0 when none:
    `finish` adds its "Value returned" there.  (GDB prints that line on its
    terminal only, not into gdb.execute's string.)  Not from `show values`,
    which fails where a pretty printer cannot read an entry's memory."""
    return gdb.history_count()


def value_returned(before, into):
    """After `finish`: the value it returned, when it added one to the
    value history (BEFORE: the last entry's number before the command)."""
    if history_number() > before:
        into["(finish) Value returned"] = shown(gdb.history(0))


def at_history_start():
    """Whether the program stands at the first instruction of the history,
    from `info record`: record full's current number below its lowest
    (entry N+1 runs next), hwtrec's (btrace's) instruction 1.  A reverse
    command that runs out of history stops there, and GDB says so on its
    terminal only, not in gdb.execute's string (GDB 13's stop events carry
    no reason).  None when not replaying or `info record` says neither, or
    when the scenario asks nothing that needs the history's numbers
    (#no-history-numbers: the server answers from the end of the trace
    while it builds the whole history, and `info record` would wait)."""
    if os.environ.get("SCN_NO_HISTORY_NUMBERS"):
        return None
    try:
        text = gdb.execute("info record", to_string=True)
    except gdb.error:
        return None
    lowest = re.search(r"Lowest recorded instruction number is (\d+)", text)
    current = re.search(r"Current instruction number is (\d+)", text)
    if lowest and current:
        return int(current.group(1)) < int(lowest.group(1))
    at = re.search(r"At instruction (\d+)", text)
    if at:
        return int(at.group(1)) == 1
    return None


# #compare-prints: the commands whose output is compared (run-scenario).
PRINTING = re.compile(r"^(p|print|output|x|inspect|ptype|whatis)(/\S*)?(\s|$)"
                      r"|^info (locals|args)\b")
# #compare-frames: also the frames and breakpoints GDB lists (bt full,
# frame apply, info frame, info breakpoints with their hit counts).
FRAME_LISTINGS = re.compile(r"^(bt|backtrace|where)\b|^frame apply\b"
                            r"|^info (frame|breakpoints|break|b)\b")


def printed(output):
    """OUTPUT as #compare-prints compares it: value-history numbers
    apart (the halves made other values first) and addresses anchored to
    the stack, heap or library they point into."""
    output = re.sub(r"^\$\d+ = ", "$N = ", output, flags=re.M)
    # Where a condition is evaluated: gdbserver (record full's) evaluates
    # them itself, hwtrec-server leaves them to GDB; the stops are the same.
    output = output.replace(" (target evals)", "")
    # Breakpoint numbers: the record-full half made one at main first.
    output = re.sub(r"^\d+(\.\d+)?( +(breakpoint|catchpoint|watchpoint|"
                    r"hw watchpoint|skip)\b)", r"N\2", output, flags=re.M)
    # ... and those of a breakpoint's locations ("2.1   y   0x..."), one
    # line each where a function is inlined in several places.
    output = re.sub(r"^\d+\.(\d+)( +[yn]\b)", r"N.\1\2", output, flags=re.M)
    return ADDRESS.sub(lambda m: anchored(int(m.group(0), 16))
                       or m.group(0), output)


def run(command):
    try:
        output = gdb.execute(command, to_string=True)
        error = None
    except gdb.error as err:
        output, error = "", str(err)
    return output, error


STOPS = []


def _note_stop(event):
    STOPS.append(getattr(event, "stop_signal", None))


def run_to_end(mode, run_to, end_signal="SIGSEGV"):
    """From where recording started: to the crash (END_SIGNAL, #end-signal),
    or to the breakpoint at the line marked L:RUN_TO (#run-to)."""
    if run_to:
        gdb.execute("break %s" % run_to, to_string=True)
        out = gdb.execute("continue", to_string=True)
        gdb.execute("delete", to_string=True)
        return out
    gdb.events.stop.connect(_note_stop)
    out = gdb.execute("continue", to_string=True)
    gdb.events.stop.disconnect(_note_stop)
    if end_signal == "exit":
        # record full stops before the exit_group system call ("The next
        # instruction is syscall exit_group"), with no signal.
        end_signal = None
    if STOPS[-1:] != [end_signal]:
        raise gdb.GdbError("the live run did not end in %s (%s)"
                           % (end_signal, STOPS))
    return out


def setup(mode, prog, record_from, run_to=None, commands=(),
          end_signal="SIGSEGV"):
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("set width 0")
    for command in commands:
        gdb.execute(command, to_string=True)
    if mode == "full":
        # Natively or through gdbserver, whichever can replay here
        # (testsuite/oracle/record_full.py); stopped at the first
        # instruction either way.
        record_full.start(prog)
        if record_from == "none":
            # Where hwtrec gdb leaves the program: at its first
            # instruction, started, nothing recorded (the scenario's own
            # `run` or `start` starts it again).
            gdb.execute("set record full insn-number-max unlimited")
            return ""
        if record_from != "start":
            # main, or the function #record-from names (a stripped
            # program has no main)
            gdb.execute("break " + record_from, to_string=True)
            gdb.execute("continue", to_string=True)
            gdb.execute("delete", to_string=True)
        gdb.execute("record full")
        gdb.execute("set record full insn-number-max unlimited")
        out = run_to_end(mode, run_to, end_signal)
    elif mode == "live":
        # hwtrec gdb started the program stopped at its first instruction;
        # record from main (or from there), then run to the crash.
        if record_from == "none":
            return ""
        if record_from != "start":
            # main, or the function #record-from names (a stripped
            # program has no main)
            gdb.execute("break " + record_from, to_string=True)
            gdb.execute("continue", to_string=True)
            gdb.execute("delete", to_string=True)
        gdb.execute("record hwt")
        out = run_to_end(mode, run_to, end_signal)
        if end_signal == "exit" and not run_to:
            # hwtrec stops the program at exit_group's entry (after the
            # syscall instruction: the end of its history); one
            # instruction back is record full's stop, before it.
            out += gdb.execute("reverse-stepi", to_string=True)
    else:
        recording = os.environ["SCN_RECORDING"]
        server = os.environ["SCN_SERVER"]
        gdb.execute("file " + prog)
        out = gdb.execute("target remote | %s %s" % (server, recording),
                          to_string=True)
        if end_signal == "exit":
            # A recording of a program that exited ends where GDB on the
            # live process stands at exit_group's entry (after the syscall
            # instruction); one instruction back is record full's end,
            # before it.
            out += gdb.execute("reverse-stepi", to_string=True)
    return out


def main():
    mode = os.environ["SCN_MODE"]
    scenario = os.environ["SCN_FILE"]
    prog = os.environ["SCN_PROG"]
    source = os.environ["SCN_SOURCE"]
    lines = markers(source)
    with open(scenario) as f:
        script = [l.rstrip("\n") for l in f]
    record_from = "main"
    run_to = None
    watched = None      # #values: the globals to note, or None
    heap_anchor = None  # #heap-anchor EXPR
    end_signal = "SIGSEGV"  # #end-signal NAME: how the program ends
    commands = []       # #setup COMMAND
    hardware_watchpoints = False    # #hardware-watchpoints
    compare_frames = False  # #compare-frames
    for text in script:
        if text.startswith("#values"):
            watched = text.split()[1:]
        if text.startswith("#setup "):
            commands.append(text.split(None, 1)[1])
        if text.startswith("#setup-full ") and mode == "full":
            commands.append(text.split(None, 1)[1])
        if text.startswith("#hardware-watchpoints"):
            hardware_watchpoints = True
        if text.startswith("#compare-frames"):
            compare_frames = True
        if text.startswith("#heap-anchor"):
            heap_anchor = text.split(None, 1)[1]
        if text.startswith("#end-signal"):
            # "none": record full stopped the program before an
            # instruction it cannot log (ud2, a call through NULL)
            end_signal = text.split()[1]
            if end_signal == "none":
                end_signal = None
        if text.startswith("#record-from"):
            record_from = text.split()[1]
        if text.startswith("#run-to"):
            run_to = expand("@" + text.split()[1], lines, source)

    steps = []
    result = {"mode": mode, "steps": steps, "failures": []}
    try:
        out = setup(mode, prog, record_from, run_to, commands, end_signal)
        if mode == "full":
            result["oracle_path"] = record_full.chosen
            result["oracle"] = record_full.describe()
        if watched is not None:
            global STACK_ANCHOR
            STACK_ANCHOR = main_sp(end_signal)
            images_at_end()
            if heap_anchor is not None:
                global HEAP_ANCHOR
                HEAP_ANCHOR = int(gdb.parse_and_eval(heap_anchor))
        # After images_at_end: an end in a shared library is then
        # compared as the library plus an offset, as later stops are.
        state = where()
        state.update(command="(start)", output=out[-400:])
        if watched is not None:
            state["values"] = values(watched)
        steps.append(state)
        for number, text in enumerate(script, 1):
            text = text.strip()
            if text.startswith("#ignore-here"):
                steps[-1].setdefault("ignore_here", []).extend(
                    text.split()[1:])
                continue
            if not text or (text.startswith("#") and
                            not text.startswith(("#assert", "#expect",
                                                 "#shown", "#unknown"))):
                continue
            if text.startswith(("#shown", "#unknown")):
                want = text.startswith("#shown")
                for expr in text.split()[1:]:
                    if mode in ("full", "live"):
                        break   # record full; live mode recovers nothing
                    try:
                        text_shown = str(gdb.parse_and_eval(expr))
                        shown = not any(word in text_shown for word in
                                        NOT_SHOWN)
                    except gdb.error:
                        shown = False
                    if shown != want:
                        result["failures"].append(
                            "%s:%d: %s is %s under %s"
                            % (os.path.basename(scenario), number, expr,
                               "not shown" if want else "shown", mode))
                continue
            if text.startswith("#expect-line"):
                want = "%s:%d" % (os.path.basename(source),
                                  lines[text.split()[1]])
                if where()["line"] != want:
                    result["failures"].append(
                        "%s:%d: expected to be at %s, at %s under %s"
                        % (os.path.basename(scenario), number, want,
                           where()["line"], mode))
                continue
            if text.startswith("#assert"):
                directive, expr = text.split(None, 1)
                if directive == "#assert-full" and mode != "full":
                    continue
                if directive == "#assert-hwtrec" and mode == "full":
                    continue
                try:
                    ok = bool(gdb.parse_and_eval(expand(expr, lines, source)))
                except gdb.error as err:
                    ok, expr = False, "%s (%s)" % (expr, err)
                if not ok:
                    result["failures"].append(
                        "%s:%d: %s is false under %s"
                        % (os.path.basename(scenario), number, expr, mode))
                continue
            command = expand(text, lines, source)
            if command == "record":
                command = "record hwt" if mode == "live" else "record full"
            before = history_number() if watched is not None else 0
            output, error = run(command)
            state = where()
            state.update(command=text, line_in_scenario=number,
                         output=output[-400:], error=error,
                         no_history=NO_HISTORY in output,
                         at_history_start=at_history_start())
            if PRINTING.match(command) or \
                    (compare_frames and FRAME_LISTINGS.match(command)):
                state["printed"] = printed(output) if error is None \
                    else "error: " + error
            if hardware_watchpoints and mode == "hwtrec":
                software = [b.number for b in gdb.breakpoints()
                            if b.type == gdb.BP_WATCHPOINT]
                if software:
                    result["failures"].append(
                        "%s:%d: software watchpoint(s) %s under hwtrec: "
                        "the server's hardware ones were not used"
                        % (os.path.basename(scenario), number, software))
            if watched is not None:
                state["values"] = values(watched)
                if command.split()[0] == "finish":
                    value_returned(before, state["values"])
            steps.append(state)
        if mode == "hwtrec" and os.environ.get("SCN_NO_HISTORY_NUMBERS"):
            # Whether the server was still building the whole history
            # after the last command (qHwtr:info without waiting).
            from hwtrecord import target
            result["building_at_end"] = bool(target.info().get("building"))
    except Exception as err:  # report, never hang the test
        import traceback
        result["failures"].append("%s: %s\n%s" % (type(err).__name__, err,
                                                   traceback.format_exc()))
    with open(os.environ["SCN_OUT"], "w") as f:
        json.dump(result, f, indent=1)


main()
