"""Software watchpoints on hwtrec-server.

The server has no hardware watchpoints (a recording cannot trap on a
store), but GDB assumes a remote stub has them: `watch` then fails with
"Could not insert hardware watchpoint".  With none, GDB makes software
watchpoints, which read the value at each position and so also fire in
reverse.  `hwtrec replay` and `hwtrec gdb` say so on GDB's command line;
this does it for plain `target remote | hwtrec-server REC`, and gives the
user's own setting back when the connection goes.
"""

import gdb

from . import target

_PARAMETER = "remote hardware-watchpoint-limit"
_saved = None          # the user's limit, while hwtrec connections set 0
_connections = set()   # numbers of the connections to hwtrec-server


def _limit_for_hwtrec():
    global _saved
    conn = target.remote_connection()
    if not _connections:
        _saved = gdb.parameter(_PARAMETER)
    _connections.add(conn.num if conn is not None else None)
    gdb.execute("set %s 0" % _PARAMETER, to_string=True)


def _restore(event):
    global _saved
    conn = getattr(event, "connection", None)
    if conn is None or conn.num not in _connections:
        return
    _connections.discard(conn.num)
    if _connections or _saved is None:
        return
    # gdb.parameter gives an unlimited limit as -1 (or None).
    value = "unlimited" if _saved is None or _saved < 0 else str(_saved)
    gdb.execute("set %s %s" % (_PARAMETER, value), to_string=True)
    _saved = None


def register():
    target.on_detect(_limit_for_hwtrec)
    gdb.events.connection_removed.connect(_restore)
