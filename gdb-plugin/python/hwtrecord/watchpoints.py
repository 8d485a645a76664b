"""Watchpoints on hwtrec-server.

With a data log (the Valgrind source's default) the server serves GDB's
hardware watchpoints itself (Z2 write, Z3 read, Z4 access: qHwtr:info says
"watchpoints": true): `watch`, `rwatch` and `awatch` stop where the
instruction touched the memory, in both directions, at once.  Without one
(--no-data, hardware traces, live mode) it has none, but GDB assumes a
remote stub has them: `watch` would then fail with "Could not insert
hardware watchpoint".  For such a target the plugin sets
`remote hardware-watchpoint-limit 0`, so that GDB makes software
watchpoints, which read the value at each position (single-stepping) and
so also fire in reverse where the value is known; `rwatch` and `awatch` are
refused there ("Target does not support this type of hardware
watchpoint").  In a replay a note says, when one is made, that a change
the recording does not know is not seen.  The user's own
setting comes back when the connection goes.
"""

import gdb

from . import target
from .settings import ConnectionSetting


def _no_server_watchpoints():
    try:
        return not target.info().get("watchpoints", False)
    except Exception:   # an older server: none
        return True


_limit = ConnectionSetting("remote hardware-watchpoint-limit", "0",
                           applies=_no_server_watchpoints)


# A software watchpoint without a data log sees only values the recording
# knows: where the value reads as <unreadable> at every past position (a
# global without recovered stores) a reverse-continue runs to the start of
# the history without stopping, as if it never changed.  Said once per
# watchpoint, when it is made.
_NOTE = ("hwtrec: this recording has no data log: watchpoint %d is GDB's "
         "software watchpoint, which sees the value only where the "
         "recording knows it; a change while it is unknown (<unreadable>) "
         "is not seen, and a reverse-continue may then run to the start of "
         "the history without stopping.\n")


def _created(bp):
    if bp.type not in (gdb.BP_WATCHPOINT, gdb.BP_HARDWARE_WATCHPOINT):
        return
    try:
        conn = target.remote_connection()
        if conn is None or not target.is_hwtrec(conn, probe=False) or \
                not _no_server_watchpoints() or target.info().get("live"):
            return
    except gdb.error:
        return
    gdb.write(_NOTE % bp.number)


def register():
    _limit.register()
    gdb.events.breakpoint_created.connect(_created)
