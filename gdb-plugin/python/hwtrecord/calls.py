"""calls.py: say why a function call in an expression fails in a recording.

`print f(x)` makes GDB write the call's frame into the stack and its
arguments into registers, then run f.  hwtrec-server refuses the writes:
the recording is what the program did (replay mode everywhere; live mode
while a thread replays its history).  GDB 13 prints the server's reason for
a refused register write (an `E.` reply to `P`), but for a refused memory
write, which a call makes first, only "Cannot access memory at address
...".  So, before GDB starts a call (gdb.events.inferior_call), the plugin
says why it will fail.  A call at the live end of `hwtrec gdb` runs in the
live process and is left alone.
"""
import gdb

from . import target

NOTE = ("hwtrec: a function call cannot run here: the recording is "
        "read-only (hwtrec replays what the program did), so GDB cannot "
        "write the call's frame.\n")


def _refused():
    """Will the server refuse the call's writes at this stop?"""
    if not target.is_hwtrec(probe=False):
        return False
    try:
        data = target.info()
        if not data.get("live"):
            return True
        entry = target.find_thread_info(data=data)
    except (gdb.error, target.PacketError):
        return False
    return entry is not None and not target.at_end(entry)


def _on_call(event):
    if isinstance(event, gdb.InferiorCallPreEvent) and _refused():
        gdb.write(NOTE)


def register():
    gdb.events.inferior_call.connect(_on_call)
