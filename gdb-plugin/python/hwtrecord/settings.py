"""GDB settings the plugin changes while it is connected to hwtrec-server.

A setting is changed when a connection is first seen to be hwtrec-server
(target.on_detect) and the user's own value comes back when the last such
connection goes.  GDB refuses some values on the "exec" target a
disconnect leaves (scheduler-locking: only "off" there); such a value comes
back when the next program's first thread appears.
"""

import gdb

from . import target


def _text(value):
    """A gdb.parameter value as `set` takes it."""
    if value is None or (isinstance(value, int) and
                         not isinstance(value, bool) and value < 0):
        return "unlimited"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


class ConnectionSetting:
    """PARAMETER set to VALUE on hwtrec-server connections for which
    APPLIES() is true (default: all), unless the user's own value is one of
    KEEP (it serves already)."""

    def __init__(self, parameter, value, applies=None, keep=()):
        self.parameter = parameter
        self.value = value
        self.applies = applies
        self.keep = keep
        self.saved = None        # the user's value, while connections hold it
        self.pending = None      # the user's value, to give back when GDB can
        self.connections = set()

    def _set(self, value):
        try:
            gdb.execute("set %s %s" % (self.parameter, value), to_string=True)
            return True
        except gdb.error:
            return False

    def _detected(self):
        if self.applies is not None and not self.applies():
            return
        if not self.connections:
            user = (self.pending if self.pending is not None
                    else _text(gdb.parameter(self.parameter)))
            if user in self.keep:
                return
            self.saved, self.pending = user, None
        conn = target.remote_connection()
        self.connections.add(conn.num if conn is not None else None)
        self._set(self.value)

    def _removed(self, event):
        conn = getattr(event, "connection", None)
        if conn is None or conn.num not in self.connections:
            return
        self.connections.discard(conn.num)
        if self.connections or self.saved is None:
            return
        if not self._set(self.saved):
            self.pending = self.saved
        self.saved = None

    def _new_thread(self, event):
        if self.pending is not None and self._set(self.pending):
            self.pending = None

    def register(self):
        target.on_detect(self._detected)
        gdb.events.connection_removed.connect(self._removed)
        gdb.events.new_thread.connect(self._new_thread)
