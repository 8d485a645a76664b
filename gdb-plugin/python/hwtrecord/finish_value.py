"""`finish`'s "Value returned" where the recording does not know it.

GDB 13 reads the value a function returned from the registers of the stop
(amd64_return_value: regcache raw_read) and ignores their status: a
register the server answers as unavailable reads as 0, so after `finish`
at a past position of a recording without values GDB prints "Value
returned is $1 = 0" where the function returned 13.  That is a wrong value
shown as right.

On an hwtrec target where those registers are not known, the plugin turns
GDB's own printing off for `finish` (`set print finish off`, from a hook
that runs before the command: GDB then prints "<not displayed>") and prints
the line itself after it (a hook that runs after): GDB's value when the
registers are known at the stop, else `<unavailable>` (the register it
would come from, added to the value history so that `$` is not the 0
either).  Where they were known before but not at the stop, it says after
GDB's line that the value is not known.  Where the value comes
from follows the SysV x86-64 ABI: integers and pointers in rax (and rdx),
float and double in xmm0, long double in st0, aggregates in any of rax,
rdx, xmm0, xmm1 (or memory that rax points to): all must be known.
"""

import gdb

from . import target

# Whether the hook before `finish` turned GDB's printing off (and the one
# after must print and turn it back on), and whether it was on.
_printing_off = False
# The return type of the function `finish` leaves, noted before it runs.
_return_type = None


def _source_registers(kind):
    """The registers GDB reads KIND (a gdb.Type) from on amd64."""
    kind = kind.strip_typedefs()
    if kind.code == gdb.TYPE_CODE_FLT:
        return ("st0",) if kind.sizeof > 8 else ("xmm0",)
    if kind.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION,
                     gdb.TYPE_CODE_ARRAY, gdb.TYPE_CODE_COMPLEX):
        return ("rax", "rdx", "xmm0", "xmm1")
    return ("rax", "rdx") if kind.sizeof > 8 else ("rax",)


def _known(frame, names):
    for name in names:
        try:
            if "<unavailable>" in str(frame.read_register(name)):
                return False
        except (gdb.error, ValueError):
            return False
    return True


def _history_number():
    text = gdb.execute("show values", to_string=True)
    last = 0
    for line in text.splitlines():
        if line.startswith("$") and " = " in line:
            try:
                last = max(last, int(line[1:line.index(" ")]))
            except ValueError:
                pass
    return last


def before_finish():
    """Hook before `finish`: on an hwtrec target where the registers the
    value comes from are not known, GDB's printing off (it would print the
    0s of unknown registers)."""
    global _printing_off, _return_type, _history_before, _active
    _active = target.is_hwtrec()
    if not _active:
        return
    try:
        function = gdb.selected_frame().function()
        _return_type = function.type.target() if function else None
    except (gdb.error, RuntimeError):
        _return_type = None
    if _return_type is None:
        return
    _history_before = _history_number()
    if not _printing_off and gdb.parameter("print finish") and \
            not _known(gdb.newest_frame(), _source_registers(_return_type)):
        gdb.execute("set print finish off", to_string=True)
        _printing_off = True


_history_before = 0
_active = False


def after_finish():
    """Hook after `finish`: where GDB's printing was turned off, print the
    value returned, or <unavailable>; where GDB printed a value made of
    unknown registers (known before, not at the stop), say it is not
    known."""
    global _printing_off, _active
    printing_was_off = _printing_off
    if _printing_off:
        gdb.execute("set print finish on", to_string=True)
        _printing_off = False
    if not _active or _return_type is None or \
            _history_number() <= _history_before:
        return      # nothing returned (void), or GDB noted no value
    _active = False
    value = gdb.history(0)
    registers = _source_registers(_return_type)
    known = _known(gdb.newest_frame(), registers)
    if not known:
        # GDB's value is the 0s of unavailable registers: note the
        # register instead, unavailable (GDB's reads of it say so).
        value = gdb.newest_frame().read_register(registers[0])
        gdb.add_history(value)
    if printing_was_off:
        gdb.write("Value returned is $%d = %s\n"
                  % (_history_number(), value.format_string()))
    elif not known:
        gdb.write("hwtrec: that value is not known: the recording holds no "
                  "%s here; $%d = %s\n" % (registers[0], _history_number(),
                                            value.format_string()))


def register():
    """Hook `finish` (unless the user has hooks of their own on it)."""
    for hook, function in (("hook-finish", "before_finish"),
                           ("hookpost-finish", "after_finish")):
        try:
            gdb.execute("show user %s" % hook, to_string=True)
            continue    # the user's own
        except gdb.error:
            pass
        gdb.execute("define %s\npython import hwtrecord.finish_value as f; "
                    "f.%s()\nend" % (hook, function), to_string=True)
