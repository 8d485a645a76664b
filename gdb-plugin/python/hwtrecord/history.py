"""Which part of the history a listing shows, as GDB's record-btrace decides.

GDB's `record instruction-history` and `record function-call-history` pick a
window from the current position (or the end of the trace), remember it, and
continue it with "+" and "-".  This file reproduces that arithmetic
(record-btrace.c: insn_history, call_history, *_range, *_from and the btrace
iterators) on plain numbers, so that our listings cover exactly what GDB's
would; the server prints the lines.

Instruction numbers run 1..N, where N is the current instruction at the end of
the trace (not executed, so never listed).  Function segments run 1..M; the
last one is not listed when it holds only that current instruction.  GDB uses
unsigned 32-bit counters in places; we keep its results for the sizes GDB can
handle and do not wrap for larger histories.
"""

import gdb

INT_MAX = 0x7FFFFFFF


class InsnSpace:
    """Instruction iterators: a position p in 1..n (n = current insn)."""

    def __init__(self, n):
        self.n = n

    def next(self, it, stride):
        target = min(it + stride, self.n)
        return target, target - it

    def prev(self, it, stride):
        target = max(it - stride, 1)
        return target, it - target

    def find(self, number):
        return 1 <= number <= self.n

    def end(self):
        return self.n


class CallSpace:
    """Segment iterators as btrace_call_iterator: index 0..m (m = past end)."""

    def __init__(self, m, ends_with_single_insn):
        self.m = m
        self.esi = ends_with_single_insn

    def next(self, it, stride):
        length = self.m
        if it + stride < length - 1:
            return it + stride, stride
        if it + stride == length - 1:
            return (length if self.esi else length - 1), stride
        if self.esi:
            stride = length - it - 1
        else:
            stride = length - it
        # GDB computes this in unsigned arithmetic: at the very end with a
        # single-instruction last segment the count wraps to -1, which the
        # caller then adds back; keep the same sum.
        return length, stride

    def prev(self, it, stride):
        length = self.m
        steps = 0
        if stride == 0 or it == 0:
            return it, 0
        if it == length and length > 1:
            it = length - 2 if self.esi else length - 1
            steps = 1
            stride -= 1
        stride = max(0, min(stride, it))
        return it - stride, steps + stride

    def find(self, number):
        return 1 <= number <= self.m

    def end(self):
        return self.m


def window(space, start, size, remembered):
    """Begin and end (exclusive) of a listing of SIZE entries (negative: go
    backward), from START or continuing REMEMBERED=(begin, end).  Returns
    (begin, end, covered)."""
    context = abs(size)
    if remembered is None:
        begin = end = start
        if size < 0:
            end, covered = space.next(end, 1)
            begin, more = space.prev(begin, context - covered)
            covered += more
            end, more = space.next(end, context - covered)
            covered += more
        else:
            end, covered = space.next(end, context)
            begin, more = space.prev(begin, context - covered)
            covered += more
    else:
        begin, end = remembered
        if size < 0:
            end = begin
            begin, covered = space.prev(begin, context)
        else:
            begin = end
            end, covered = space.next(end, context)
    # GDB's counters are unsigned: a wrapped -1 counts as "covered".
    return begin, end, covered & 0xFFFFFFFF


def call_numbers(space, begin, end):
    """First and last segment number GDB prints for iterators [begin, end):
    its loop steps with btrace_call_next, which skips a last segment that
    holds only the current instruction."""
    upper = min(end, space.m - 1 if space.esi else space.m)
    return begin + 1, upper


def window_range(space, low, high):
    """Iterators [begin, end) for an explicit range of numbers LOW..HIGH
    (both inclusive; HIGH beyond the history is silently truncated)."""
    if high < low:
        raise gdb.GdbError("Bad range.")
    if not space.find(low):
        raise gdb.GdbError("Range out of bounds.")
    # Instruction iterators are numbers; segment iterators are indexes.
    shift = 1 if isinstance(space, CallSpace) else 0
    if space.find(high):
        end, _ = space.next(high - shift, 1)
    else:
        end = space.end()
    return low - shift, end


def range_from(origin, size):
    """LOW, HIGH for `record ...-history ORIGIN,+SIZE` (or -SIZE)."""
    context = abs(size)
    if size < 0:
        high = origin
        low = 0 if origin < context else origin - context + 1
    else:
        low = origin
        high = origin + context - 1
    return low, high


# --------------------------------------------------------- argument parsing


def _skip_spaces(text):
    return text.lstrip(" \t")


def parse_modifiers(arg, letters):
    """Parse leading /xyz groups; return (set of letters, rest)."""
    mods = set()
    args = arg or ""
    while args.startswith("/"):
        args = args[1:]
        if not args:
            raise gdb.GdbError("Missing modifier.")
        i = 0
        while i < len(args) and not args[i].isspace():
            ch = args[i]
            if ch != "/":
                if ch not in letters:
                    raise gdb.GdbError("Invalid modifier: %s." % ch)
                mods.add(ch)
            i += 1
        args = _skip_spaces(args[i:])
    return mods, args


def _number(text):
    pos = _skip_spaces(text)
    digits = 0
    while digits < len(pos) and pos[digits].isdigit():
        digits += 1
    if digits == 0:
        raise gdb.GdbError("Expected positive number, got: %s." % pos)
    return int(pos[:digits]), pos[digits:]


def _no_junk(text):
    if text:
        raise gdb.GdbError("Junk after argument: %s." % text)


def parse_history_args(args):
    """GDB's record.c argument grammar for both history commands.

    Returns one of ("size", sign), ("range", low, high), ("from", origin, size)
    where size None means the configured default size."""
    if not args or args == "+":
        return ("size", 1)
    if args == "-":
        return ("size", -1)
    begin, rest = _number(args)
    if rest.startswith(","):
        rest = _skip_spaces(rest[1:])
        if rest.startswith("+"):
            size, rest = _number(rest[1:])
            _no_junk(rest)
            return ("from", begin, size)
        if rest.startswith("-"):
            size, rest = _number(rest[1:])
            _no_junk(rest)
            return ("from", begin, -size)
        end, rest = _number(rest)
        _no_junk(rest)
        return ("range", begin, end)
    _no_junk(rest)
    return ("from", begin, None)


def default_size(parameter):
    """`set record ...-size`: None (unlimited) becomes INT_MAX, as record.c."""
    value = gdb.parameter(parameter)
    if value is None or value < 0 or value > INT_MAX:
        return INT_MAX
    return value
