"""Which thread a reverse step moves, on hwtrec-server.

GDB names no thread when it steps backwards ("Hc0" then "bs": the remote
protocol has no vCont action for reverse execution) unless
scheduler-locking covers steps; the server then steps the thread whose
registers GDB read last, which after `info threads` is the last one listed,
not the one the user selected.  With `scheduler-locking step` GDB names it for every step command
(step, next, stepi, nexti, until and their reverse forms), as record full
behaves in replay (GDB's default "replay" locks the scheduler there, but
GDB cannot tell that a remote target replays).  Continue and finish still
resume every thread, which the server orders on one time axis.

Only for a post-mortem replay: in `hwtrec gdb` (live) forward steps at
the end run the real program, where other threads must run too (a `next`
over pthread_join would hang).  The user's own setting comes back when
the connection goes (settings.py).
"""

import gdb

from . import target
from .settings import ConnectionSetting


def _post_mortem():
    try:
        return not target.info().get("live")
    except gdb.error:
        return False


_locking = ConnectionSetting("scheduler-locking", "step", applies=_post_mortem,
                             keep=("step", "on"))


def register():
    _locking.register()
