"""Tell the server the registers GDB's own unwinders find at the end.

At the end of a history with a core, GDB unwinds the call stack from the
core's registers with the binaries' CFI: each caller's stack pointer (its
callee's CFA) and the registers its callee saved or kept for it (rbx, rbp,
r12-r15), read from the core's stack.  Those are the caller's registers
just before its pending call, a position the history knows; the server's
value recovery takes them as proven there (qHwtr:end-register,
doc/gdb-packets.md) and carries them back across the calls the caller made
before, so that frames gone by the end find their stack (unwinder.py).
Without a data log only: with one every register is known anyway.
"""

import gdb

from . import target

# enum hwtr_amd64_regno of the registers sent; 16 is the frame's PC.
_REGISTERS = (("rsp", 7), ("rbx", 1), ("rbp", 6), ("r12", 12), ("r13", 13),
              ("r14", 14), ("r15", 15))
_PC = 16
# The innermost callers sent: each costs a packet per register, at the
# first prompt (the server takes up to its REPLAY_END_FRAMES - 1).
MAX_FRAMES = 64


def _value(frame, name):
    try:
        return int(frame.read_register(name)) & (2 ** 64 - 1)
    except (gdb.error, ValueError):     # <not saved>, <unavailable>
        return None


def send(tid):
    """Send GDB's unwound registers of thread TID's callers at the end (the
    selected thread, standing at its end with real registers).  Inline
    frames share their function's registers and tail-call frames have
    none of their own: neither counts.  Stops at a signal frame."""
    if gdb.selected_inferior().architecture().name() != "i386:x86-64":
        return
    # Read them all before sending any: a packet sent from Python makes
    # GDB forget its frames, and each would be unwound again.
    sent = []
    frame = gdb.newest_frame()
    index = 0
    while frame is not None and index <= MAX_FRAMES:
        kind = frame.type()
        if kind == gdb.SIGTRAMP_FRAME:
            break
        if kind == gdb.NORMAL_FRAME:
            if index > 0:
                sent.append((index, _PC, frame.pc()))
                for name, regno in _REGISTERS:
                    value = _value(frame, name)
                    if value is not None:
                        sent.append((index, regno, value))
            index += 1
        frame = frame.older()
    for index, regno, value in sent:
        target.request("qHwtr:end-register:%x:%x:%x:%x"
                       % (tid, index, regno, value))
