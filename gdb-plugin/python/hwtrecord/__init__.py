"""hwtrecord's GDB plugin: reverse debugging of hwtrec recordings.

Loaded by `hwtrec replay` (or `source .../hwtrecord/gdbinit`).  On a target
served by hwtrec-server it adds `record hwt`, gives GDB's btrace history
commands on the recording, and unwinds frames at past positions; on every
other target it changes nothing.
"""

from . import (autoload, calls, commands, finish_value, scheduler, target,
               unwinder, watchpoints)

_registered = False


def register():
    global _registered
    if _registered:
        return
    _registered = True
    commands.register()
    unwinder.register()
    finish_value.register()
    watchpoints.register()
    scheduler.register()
    autoload.register()
    calls.register()


register()
