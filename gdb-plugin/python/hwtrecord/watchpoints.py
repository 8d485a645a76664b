"""Software watchpoints on hwtrec-server.

The server has no hardware watchpoints (a recording cannot trap on a
store), but GDB assumes a remote stub has them: `watch` then fails with
"Could not insert hardware watchpoint".  With none, GDB makes software
watchpoints, which read the value at each position and so also fire in
reverse.  `hwtrec replay` and `hwtrec gdb` say so on GDB's command line;
this does it for plain `target remote | hwtrec-server REC`, and gives the
user's own setting back when the connection goes.
"""

from .settings import ConnectionSetting

_limit = ConnectionSetting("remote hardware-watchpoint-limit", "0")


def register():
    _limit.register()
