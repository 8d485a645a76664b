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
so also fire in reverse; `rwatch` and `awatch` are refused there ("Target
does not support this type of hardware watchpoint").  The user's own
setting comes back when the connection goes.
"""

from . import target
from .settings import ConnectionSetting


def _no_server_watchpoints():
    try:
        return not target.info().get("watchpoints", False)
    except Exception:   # an older server: none
        return True


_limit = ConnectionSetting("remote hardware-watchpoint-limit", "0",
                           applies=_no_server_watchpoints)


def register():
    _limit.register()
