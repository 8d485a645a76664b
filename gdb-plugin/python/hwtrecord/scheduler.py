"""Which thread a reverse step moves, on hwtrec-server.

GDB names no thread when it steps backwards ("Hc0" then "bs": the remote
protocol has no vCont action for reverse execution) unless
scheduler-locking covers steps; the server then steps the thread of the
last stop, which is not the thread the user selected after `thread N`.
With `scheduler-locking step` GDB names it for every step command
(step, next, stepi, nexti, until and their reverse forms), as record full
behaves in replay (GDB's default "replay" locks the scheduler there, but
GDB cannot tell that a remote target replays).  Continue and finish still
resume every thread, which the server orders on one time axis.

Only for a post-mortem replay: in `hwtrec gdb` (live) forward steps at
the end run the real program, where other threads must run too (a `next`
over pthread_join would hang).  The user's own setting comes back when
the connection goes.
"""

import gdb

from . import target

_PARAMETER = "scheduler-locking"
_saved = None          # the user's setting, while hwtrec connections set it
_connections = set()   # numbers of the connections it was set for
_pending = None        # the user's setting, to give back when GDB can


def _lock_steps():
    global _saved, _pending
    try:
        if target.info().get("live"):
            return
    except gdb.error:
        return
    if (_saved is None and _pending is None and
            gdb.parameter(_PARAMETER) in ("step", "on")):
        return          # the user's own choice covers steps already
    conn = target.remote_connection()
    if not _connections:
        _saved = _pending if _pending is not None else gdb.parameter(_PARAMETER)
        _pending = None
    _connections.add(conn.num if conn is not None else None)
    _set("step")


def _set(value):
    """Set the parameter; False where the target cannot lock the scheduler
    (GDB refuses any value but "off" there, and sets "off")."""
    try:
        gdb.execute("set %s %s" % (_PARAMETER, value), to_string=True)
        return True
    except gdb.error:
        return False


def _restore(event):
    global _saved, _pending
    conn = getattr(event, "connection", None)
    if conn is None or conn.num not in _connections:
        return
    _connections.discard(conn.num)
    if _connections or _saved is None:
        return
    # After a disconnect the target is "exec", which refuses the setting:
    # give it back when a program runs again.
    if not _set(_saved):
        _pending = _saved
    _saved = None


def _restore_pending(event):
    global _pending
    if _pending is not None and _set(_pending):
        _pending = None


def register():
    target.on_detect(_lock_steps)
    gdb.events.connection_removed.connect(_restore)
    gdb.events.new_thread.connect(_restore_pending)
