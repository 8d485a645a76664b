"""`finish`'s "Value returned" where the recording does not know it.

GDB 13 reads the value a function returned from the registers of the stop
(amd64_return_value: regcache raw_read) and ignores their status: a
register the server answers as unavailable reads as 0, so after `finish`
at a past position of a recording without values GDB prints "Value
returned is $1 = 0" where the function returned 13.  That is a wrong value
shown as right.

On an hwtrec target where those registers may not be known at the stop,
the plugin turns GDB's own printing off for a forward `finish` (`set print
finish off`: GDB then prints "<not displayed>") and prints the line itself
after it: GDB's value when the registers are known at the stop, else
`<unavailable>` (the register it would come from, added to the value
history so that `$` is not the 0 either, with the function's type where
GDB lets an unavailable value have it).  They may not be known wherever
they are not known where `finish` starts, and anywhere before the end of a
recording without a register log (values recovered from the trace): rax
known where `finish` starts says nothing of rax where it stops, and GDB's
line would show the 0 of an unknown rax as the value returned.  Where GDB
printed and the registers were not known at the stop after all, it says
after GDB's line that the value is not known.  Where the value comes from
follows the SysV x86-64 ABI: integers and pointers in rax (and rdx), float
and double in xmm0, long double in st0, aggregates in any of rax, rdx,
xmm0, xmm1 (or memory that rax points to): all must be known.

How: GDB event handlers, not `hook-finish`/`hookpost-finish`, which are a
user's to define, are echoed under `set trace-commands on` and also run for
`reverse-finish`.  GDB 13 tells Python neither which command runs nor
lets it act before `finish` prints, so: at the first resume after a stop
(gdb.events.cont), a forward `finish` is one whose momentary breakpoint of
type "finish" is set (`maint info breakpoints`); the registers and the
selected frame are still those `finish` leaves.  At the stop
(gdb.events.stop, which GDB sends after printing its line), the plugin
prints its own.

A value returned in memory (a struct larger than 16 bytes) GDB reads from
where rax points at the stop; where the recording does not know those
bytes GDB fails with "Cannot access memory", sends no stop event and
prints nothing more.  The plugin notices that the `finish` is over at the
next prompt (the thread stands) or resume (its momentary breakpoint is
gone), puts `print finish` back and says the value is not known.
"""

import gdb

from . import target

# The next resume is the first since a stop: it tells whether a `finish`
# runs (later ones are its steps over breakpoints and the like).
_first_resume = True
# The forward `finish` in progress: (return type, value history count
# before it, whether the plugin turned GDB's printing off), or None.
_finish = None
# Whether the selected thread stood, at the last stop, before the end of a
# history without a register log, where a later stop's registers may not be
# known (noted at the stop: no packet may be sent once `finish` runs).
_registers_may_lack = False


def _source_registers(kind):
    """The registers GDB reads KIND (a gdb.Type) from on amd64."""
    kind = kind.strip_typedefs()
    if kind.code == gdb.TYPE_CODE_FLT:
        return ("st0",) if kind.sizeof > 8 else ("xmm0",)
    if kind.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION,
                     gdb.TYPE_CODE_ARRAY, gdb.TYPE_CODE_COMPLEX):
        return ("rax", "rdx", "xmm0", "xmm1")
    return ("rax", "rdx") if kind.sizeof > 8 else ("rax",)


def _unknown_value(kind, register):
    """REGISTER, where a value of KIND is returned, as GDB reads it at the
    stop (unavailable): a float or double as the lane of xmm0 it is in, so
    that it shows as one `<unavailable>` of its type, not as the whole
    vector register's union of lanes."""
    value = gdb.newest_frame().read_register(register)
    kind = kind.strip_typedefs()
    if register == "xmm0" and kind.code == gdb.TYPE_CODE_FLT:
        value = value["v4_float" if kind.sizeof == 4 else "v2_double"][0]
    return value


# An unavailable register of each size a value returned in registers can
# have, to give `$` the function's type (below).
_UNKNOWN_SOURCES = {1: ("al", None), 2: ("ax", None), 4: ("eax", None),
                    8: ("rax", None), 16: ("xmm0", "uint128")}


def _typed_unknown(kind):
    """An unavailable value of KIND, or None.  GDB 13's Python can neither
    build one nor cast an unavailable integer to a pointer (value_cast
    reads it as a number), but it copies a value unchanged, unavailable
    bytes included, when casting between types of one size that are not
    numbers on both sides: a register of KIND's size, if it is not known
    at the stop, goes through a vector of bytes to KIND.  So `p $->field`
    after `finish` says the value is not available instead of that `$` is
    no structure pointer."""
    source = _UNKNOWN_SOURCES.get(kind.strip_typedefs().sizeof)
    if source is None:
        return None
    try:
        raw = gdb.newest_frame().read_register(source[0])
        if source[1]:
            raw = raw[source[1]]
        if str(raw) != "<unavailable>":
            return None
        octets = gdb.lookup_type("unsigned char").vector(raw.type.sizeof - 1)
        return raw.cast(octets).cast(kind)
    except (gdb.error, RuntimeError):
        return None


def _known(frame, names):
    for name in names:
        try:
            if "<unavailable>" in str(frame.read_register(name)):
                return False
        except (gdb.error, ValueError):
            return False
    return True


def _finish_breakpoint():
    """The number of the momentary breakpoint of a forward `finish` GDB has
    set (type "finish" in `maint info breakpoints`; reverse-finish, `until`
    and `advance` set others), or None."""
    text = gdb.execute("maint info breakpoints", to_string=True)
    for line in text.splitlines():
        if line.split()[1:2] == ["finish"]:
            return line.split()[0]
    return None


def _return_type():
    """The return type of the function `finish` leaves (the selected
    frame's), None for void or when not known."""
    try:
        function = gdb.selected_frame().function()
    except (gdb.error, RuntimeError):
        return None
    if function is None:
        return None
    kind = function.type.target()
    if kind is None or kind.strip_typedefs().code == gdb.TYPE_CODE_VOID:
        return None
    return kind


def _on_resume(event):
    """At the first resume after a stop: if it is a forward `finish` on an
    hwtrec target and the return value's registers are not known, GDB's
    printing off (it would print the 0s of unknown registers)."""
    global _first_resume, _finish
    if not _first_resume:
        if _finish is None or not _finish_ended():
            return      # a later resume of the same command
    _first_resume = False
    # The target runs already: no packet may be sent (the unwinder probed
    # it at the stop before).
    if gdb.parameter("exec-direction") != "forward" or \
            not target.is_hwtrec(probe=False):
        return
    breakpoint = _finish_breakpoint()
    if breakpoint is None:
        return
    kind = _return_type()
    if kind is None:
        return
    printing_off = bool(gdb.parameter("print finish")) and (
        _registers_may_lack or
        not _known(gdb.newest_frame(), _source_registers(kind)))
    if printing_off:
        gdb.set_parameter("print finish", False)
    _finish = (kind, gdb.history_count(), printing_off, breakpoint)


def _in_memory(kind):
    """Whether a value of KIND comes back in memory that rax points to
    (SysV x86-64: an aggregate larger than 16 bytes), the case where GDB
    fails reading it."""
    kind = kind.strip_typedefs()
    return kind.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION,
                         gdb.TYPE_CODE_ARRAY) and kind.sizeof > 16


def _finish_ended(at_prompt=False):
    """Whether the `finish` in progress ended without a stop event: GDB
    failed while reading its value (a value returned in memory the
    recording does not know: "Cannot access memory") and neither stopped
    printing nor told Python.  At a resume its momentary breakpoint is
    gone (GDB deletes it there), at a prompt the thread stands (a `finish`
    at work shows a prompt only in the background, its thread running).
    Then `print finish` is as the user had it again, nothing of this
    `finish` is printed at a later stop (whatever value was last in the
    history), and the value is said to be unknown where GDB's error leaves
    it at that."""
    global _finish
    kind, _, printing_was_off, breakpoint = _finish
    try:
        if at_prompt:
            thread = gdb.selected_thread()
            if thread is not None and thread.is_running():
                return False
        elif _finish_breakpoint() == breakpoint:
            return False
    except gdb.error:
        pass
    _finish = None
    if printing_was_off:
        gdb.set_parameter("print finish", True)
    if _in_memory(kind):
        gdb.write("Value returned is <unavailable>\n")
    return True


def _at_prompt():
    """Before GDB's prompt: a `finish` that ended without a stop is over."""
    if _finish is not None:
        _finish_ended(at_prompt=True)


def _note_registers(event):
    """At a stop: whether the registers of the next stop may not be known
    (_registers_may_lack)."""
    global _registers_may_lack
    _registers_may_lack = False
    try:
        if not target.is_hwtrec():
            return
        entry = target.find_thread_info()
    except gdb.error:
        return
    # No entry: the history is not built up to here yet (live), or the
    # thread has none: GDB's registers are the live ones.
    _registers_may_lack = entry is not None and \
        not entry.get("registers_logged") and not target.at_end(entry)


def _as_finish_prints(value):
    """VALUE (the newest in the value history) as GDB's `finish` prints
    it: value_print, which `output` uses too, puts a pointer's type in
    parentheses before it ("(struct entry *) 0x0"); Value.format_string
    leaves it out.  Under `set trace-commands on` GDB would echo the
    `output` into the text: trace off for it (set_parameter's own `set`
    runs quietly, to a string)."""
    tracing = bool(gdb.parameter("trace-commands"))
    try:
        if tracing:
            gdb.set_parameter("trace-commands", False)
        return gdb.execute("output $%d" % gdb.history_count(),
                           to_string=True)
    except gdb.error:
        return value.format_string()
    finally:
        if tracing:
            gdb.set_parameter("trace-commands", True)


def _on_stop(event):
    """After GDB's line: where its printing was turned off, print the value
    returned, or <unavailable>; where GDB printed a value made of unknown
    registers (known before, not at the stop), say it is not known."""
    global _first_resume, _finish
    _first_resume = True
    _note_registers(event)
    if _finish is None:
        return
    kind, history_before, printing_was_off = _finish[:3]
    _finish = None
    if printing_was_off:
        gdb.set_parameter("print finish", True)
    if gdb.history_count() <= history_before:
        return      # stopped before the return, or GDB noted no value
    value = gdb.history(0)
    registers = _source_registers(kind)
    known = _known(gdb.newest_frame(), registers)
    if not known:
        # GDB's value is the 0s of unavailable registers: note the
        # register instead, unavailable (GDB's reads of it say so).
        value = _unknown_value(kind, registers[0])
        typed = None
        if value.type.strip_typedefs().code != gdb.TYPE_CODE_FLT:
            typed = _typed_unknown(kind)
        if typed is not None:   # not `or`: a gdb.Value's truth reads it
            value = typed
        gdb.add_history(value)
    if printing_was_off:
        gdb.write("Value returned is $%d = %s\n"
                  % (gdb.history_count(), _as_finish_prints(value)))
    elif not known:
        gdb.write("hwtrec: that value is not known: the recording holds no "
                  "%s here; $%d = %s\n" % (registers[0], gdb.history_count(),
                                            value.format_string()))


def _on_exit(event):
    """The program (or the connection) ended: no `finish` is in progress."""
    global _first_resume, _finish
    _first_resume = True
    if _finish is not None and _finish[2]:
        gdb.set_parameter("print finish", True)
    _finish = None


def register():
    """Watch resumes and stops (a user's hook-finish and hookpost-finish
    are left to the user)."""
    gdb.events.cont.connect(_on_resume)
    gdb.events.stop.connect(_on_stop)
    gdb.events.exited.connect(_on_exit)
    gdb.events.before_prompt.connect(_at_prompt)
