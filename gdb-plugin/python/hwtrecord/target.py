"""The hwtrec-server target: detection and the qHwtr packets.

The plugin talks to hwtrec-server through custom packets (doc/gdb-packets.md)
sent with RemoteTargetConnection.send_packet (GDB 12+).  Replies are hex text;
an error is "E." followed by a message.  A remote that answers qHwtr:info
with an empty reply is some other stub (gdbserver, rr, ...), and the plugin
then leaves GDB alone.
"""

import json
import re

import gdb

# Connection number -> True/False, once probed.  A connection number is never
# reused within a GDB session, so the cache needs no invalidation for
# correctness; connection_removed only keeps it small.
_probed = {}

# Callbacks run once a connection is found to be hwtrec-server.
_on_detect = []


class PacketError(gdb.GdbError):
    """The server answered a qHwtr packet with an error."""


def remote_connection():
    """The selected inferior's remote connection, or None."""
    try:
        inferior = gdb.selected_inferior()
    except gdb.error:
        return None
    conn = getattr(inferior, "connection", None)
    if conn is None or not isinstance(conn, gdb.RemoteTargetConnection):
        return None
    if not conn.is_valid():
        return None
    return conn


_RECEIVED = re.compile(r'received: "(.*)"\s*\Z', re.S)


def _unescape(text):
    # `maint packet` prints the reply with \xHH, \" and \\ escapes.
    return re.sub(r'\\(x[0-9a-fA-F]{2}|.)',
                  lambda m: (chr(int(m.group(1)[1:], 16))
                             if m.group(1).startswith("x")
                             and len(m.group(1)) == 3 else m.group(1)),
                  text)


# Set while a frame unwinder runs (see _raw).
in_unwinder = False


def _selected_level():
    try:
        return gdb.selected_frame().level()
    except gdb.error:
        return 0        # no frame (no thread, running)


def _select_level(level):
    frame = gdb.newest_frame()
    while frame is not None and frame.level() < level:
        frame = frame.older()
    if frame is not None:
        frame.select()


def _send_packet(conn, packet):
    """conn.send_packet with frame 0 selected, the selection put back after.
    In GDB 13 send_packet switches threads and back, which throws the frame
    cache away; with an outer frame selected (after `up`) the next use of
    the selected frame then fails with "Recursive internal problem" (`up`,
    `info record`).  Frame 0 needs no re-finding.  After qHwtr:goto the
    thread stands elsewhere: frame 0 stays selected, as after `record
    goto`."""
    level = _selected_level()
    if level == 0:
        return conn.send_packet(packet)
    gdb.newest_frame().select()
    reply = conn.send_packet(packet)
    if not packet.startswith("qHwtr:goto:"):
        _select_level(level)
    return reply


# Callbacks run when a qHwtr:goto moves a thread (no stop event says so).
_on_goto = []


def on_goto(callback):
    _on_goto.append(callback)


def _raw(conn, packet):
    if packet.startswith("qHwtr:goto:"):
        for callback in list(_on_goto):
            callback()
    if not in_unwinder:
        reply = _send_packet(conn, packet)
        if reply is None:
            return ""
        if isinstance(reply, bytes):
            return reply.decode("ascii", "replace")
        return reply
    # Inside an unwinder, not RemoteTargetConnection.send_packet: in GDB 13
    # it switches threads, which throws away the frame cache being built, and
    # GDB crashes.  `maint packet` sends on the current target without
    # switching (but prints the reply, escaped, which is slow for big ones).
    out = gdb.execute("maintenance packet " + packet, to_string=True)
    match = _RECEIVED.search(out)
    if match is None:
        raise gdb.GdbError("hwtrec: no reply to %s" % packet)
    return _unescape(match.group(1))


# Packets that the server answers only once the whole history is built
# (instruction numbers): while it builds, GDB's remotetimeout (2 s, three
# tries) would give up on them.
_WAITING = ("qHwtr:info:1", "qHwtr:insn-history:", "qHwtr:call-history:",
            "qHwtr:goto:")
_BUILD_TIMEOUT = 3600   # seconds


def _may_wait(packet):
    return packet.startswith(_WAITING) or (
        packet.startswith("qHwtr:frames:") and packet.count(":") == 3)


def _raw_waiting(conn, packet):
    """_raw, with GDB's remotetimeout raised for a packet that may wait for
    the history's build (see _WAITING)."""
    if in_unwinder or not _may_wait(packet):
        return _raw(conn, packet)
    was = gdb.parameter("remotetimeout")
    gdb.execute("set remotetimeout %d" % _BUILD_TIMEOUT, to_string=True)
    try:
        return _raw(conn, packet)
    finally:
        gdb.execute("set remotetimeout %d" % was, to_string=True)


def request(packet, conn=None):
    """Send PACKET; return the decoded text reply ('' if unsupported)."""
    conn = conn or remote_connection()
    if conn is None:
        raise gdb.GdbError("hwtrec: the target is not a remote connection.")
    reply = _raw_waiting(conn, packet)
    if reply.startswith("E."):
        raise PacketError("hwtrec-server: %s" % reply[2:])
    if len(reply) == 3 and reply[0] == "E":
        raise PacketError("hwtrec-server: %s failed (error %s)"
                          % (packet.split(":")[1], reply[1:]))
    if reply == "OK":
        return reply    # plain acknowledgement (qHwtr:goto)
    try:
        return bytes.fromhex(reply).decode("utf-8", "replace")
    except ValueError:
        raise PacketError("hwtrec-server: reply to %s is not hex: %.40s"
                          % (packet, reply))


def request_json(packet, conn=None):
    text = request(packet, conn)
    if not text:
        raise PacketError("hwtrec-server: empty reply to %s" % packet)
    try:
        return json.loads(text)
    except ValueError as err:
        raise PacketError("hwtrec-server: reply to %s is not JSON (%s)"
                          % (packet, err))


def is_hwtrec(conn=None, probe=True):
    """True if the selected inferior runs on hwtrec-server (probed once).
    Without PROBE only what an earlier probe found (False before one): for
    handlers that run while the target runs, when no packet may be sent."""
    conn = conn or remote_connection()
    if conn is None:
        return False
    known = _probed.get(conn.num)
    if known is not None:
        return known
    if not probe:
        return False
    try:
        found = bool(_raw(conn, "qHwtr:info"))
    except gdb.error:
        # Not connected yet, or the stub is running: ask again later.
        return False
    _probed[conn.num] = found
    if found:
        for callback in list(_on_detect):
            callback()
    return found


def on_detect(callback):
    """Run CALLBACK (no arguments) when an hwtrec-server is first seen."""
    _on_detect.append(callback)


def _forget(event):
    conn = getattr(event, "connection", None)
    if conn is not None:
        _probed.pop(conn.num, None)


gdb.events.connection_removed.connect(_forget)


def thread_tid(thread=None):
    """The thread id the server uses (the lwp of GDB's ptid)."""
    thread = thread or gdb.selected_thread()
    if thread is None:
        raise gdb.GdbError("No thread.")
    pid, lwp, tid = thread.ptid
    return lwp or tid or pid


def info(wait=False):
    """qHwtr:info, decoded.  Answered at once while the server builds the
    history ("building": only tid and at_end per thread) unless WAIT."""
    return request_json("qHwtr:info:1" if wait else "qHwtr:info")


def find_thread_info(tid=None, data=None, wait=False):
    """The qHwtr:info entry of thread TID (default: the selected thread), or
    None when the thread has no history (live: not recording, the history
    not brought up to this stop yet, or the thread ran nothing traced)."""
    tid = thread_tid() if tid is None else tid
    data = data or info(wait)
    for entry in data.get("threads", []):
        if entry.get("tid") == tid and (not data.get("live")
                                        or int(entry.get("instructions", 1))):
            return entry
    return None


def thread_info(tid=None, data=None, wait=False):
    """The qHwtr:info entry of thread TID (default: the selected thread)."""
    tid = thread_tid() if tid is None else tid
    entry = find_thread_info(tid, data, wait)
    if entry is None:
        raise gdb.GdbError("hwtrec: thread %d has no recorded history." % tid)
    return entry


def end_position(entry, conn=None):
    """The position of the end of the history, where the registers are the
    core's: the last instruction, or one more (the "tail") when the core's
    PC did not complete (a fault), as btrace appends the current PC."""
    return int(entry["end"])


def at_end(entry, conn=None):
    return bool(entry["at_end"])


def real_registers(entry, conn=None):
    """Does the thread stand where GDB has its real registers (the end, with
    a core or live; any position of a recording with a data log)?  A
    program that exited without a core has only the PC at the end."""
    if entry.get("registers_logged"):
        return True
    return at_end(entry, conn) and entry.get("registers_at_end", True)


def end_frames(tid):
    """qHwtr:end-frames for TID: the call stack at its end state, innermost
    first, answered while the server still builds the history."""
    result = request_json("qHwtr:end-frames:%x" % tid)
    if not isinstance(result, list):
        raise PacketError("hwtrec-server: qHwtr:end-frames did not give a list")
    return result


def frames(tid, position=None):
    """qHwtr:frames for TID: the call stack at the position (or at
    instruction POSITION, without moving), innermost first."""
    packet = "qHwtr:frames:%x" % tid
    if position is not None:
        packet += ":%x" % position
    result = request_json(packet)
    if not isinstance(result, list):
        raise PacketError("hwtrec-server: qHwtr:frames did not give a list")
    return result
