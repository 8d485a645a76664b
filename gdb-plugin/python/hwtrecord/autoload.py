"""Auto-load scripts (libstdc++'s pretty printers) of libraries GDB reads
from hwtrec-server.

GDB 13 finds an objfile's auto-load script by the objfile's file name.  A
library it reads over the remote protocol (GDB's default `sysroot target:`,
and always for a packed recording) is named `target:/lib/.../libstdc++.so.6`,
so no script is found (gdbserver alike) and `print` shows a std::vector's
members where GDB on the live program, and record full, show its elements.

Where the same file is on this machine (its build-id is the objfile's), the
plugin runs the script GDB would have loaded for the local file: FILE-gdb.py
under the auto-load scripts directories, FILE the local file's real path (as
GDB's auto-load.c looks it up), when `auto-load python-scripts` is on and the
script lies in `auto-load safe-path`.  The script sees the objfile as
gdb.current_objfile(), named by the local path it was found for (the
libstdc++ script finds its printer modules relative to it).
"""

import os
import struct

import gdb

from . import target

NT_GNU_BUILD_ID = 3
PT_NOTE = 4


def build_id(path):
    """The GNU build-id of the ELF file at PATH as hex, or None."""
    try:
        with open(path, "rb") as f:
            header = f.read(64)
            if header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
                return None     # only 64-bit little-endian (x86-64, AArch64)
            phoff, = struct.unpack_from("<Q", header, 32)
            phentsize, phnum = struct.unpack_from("<HH", header, 54)
            for i in range(phnum):
                f.seek(phoff + i * phentsize)
                kind, _, offset, _, _, size = struct.unpack(
                    "<IIQQQQ", f.read(40))
                if kind != PT_NOTE:
                    continue
                f.seek(offset)
                notes = f.read(size)
                at = 0
                while at + 12 <= len(notes):
                    namesz, descsz, note = struct.unpack_from("<III", notes, at)
                    name_at = at + 12
                    desc_at = name_at + (namesz + 3) // 4 * 4
                    if note == NT_GNU_BUILD_ID and \
                            notes[name_at:name_at + namesz] == b"GNU\0":
                        return notes[desc_at:desc_at + descsz].hex()
                    at = desc_at + (descsz + 3) // 4 * 4
    except (OSError, struct.error):
        return None
    return None


def _directories(setting):
    """The directories of `show auto-load SETTING` ($debugdir and $datadir
    expanded)."""
    text = gdb.execute("show auto-load " + setting, to_string=True)
    listed = text.rsplit(" is ", 1)[-1].strip().rstrip(".")
    debugdir = gdb.parameter("debug-file-directory") or ""
    datadir = gdb.parameter("data-directory") or ""
    result = []
    for entry in listed.split(os.pathsep):
        if entry.startswith("$debugdir"):
            result += [d + entry[len("$debugdir"):]
                       for d in debugdir.split(os.pathsep)]
        elif entry.startswith("$datadir"):
            result.append(datadir + entry[len("$datadir"):])
        elif entry:
            result.append(entry)
    return [os.path.realpath(d) for d in result if d]


class _LocalName:
    """OBJFILE as the script sees it: named by the local file."""

    def __init__(self, objfile, filename):
        self.__dict__["_objfile"] = objfile
        self.__dict__["filename"] = filename

    def __getattr__(self, name):
        return getattr(self._objfile, name)

    def __setattr__(self, name, value):
        setattr(self._objfile, name, value)


def _script_for(objfile):
    """The auto-load script GDB would load for OBJFILE were it read from
    this machine, or None."""
    name = objfile.filename
    if not name.startswith("target:") or not objfile.build_id:
        return None, None
    local = os.path.realpath(name[len("target:"):])
    if build_id(local) != objfile.build_id:
        return None, None
    safe = _directories("safe-path")
    for directory in _directories("scripts-directory"):
        script = directory + local + "-gdb.py"
        if os.path.isfile(script) and any(
                s == "/" or script.startswith(s.rstrip("/") + "/")
                for s in safe):
            return script, local
    return None, None


def _on_new_objfile(event):
    if not gdb.parameter("auto-load python-scripts"):
        return
    try:
        if not target.is_hwtrec():
            return
        script, local = _script_for(event.new_objfile)
    except gdb.error:
        return
    if script is None:
        return
    seen = gdb.current_objfile
    gdb.current_objfile = lambda: _LocalName(event.new_objfile, local)
    try:
        with open(script) as f:
            code = compile(f.read(), script, "exec")
        exec(code, {"__file__": script, "__name__": "__main__"})
    except Exception as err:    # a script's fault: say so, as GDB does
        gdb.write("hwtrec: auto-loading %s for %s: %s\n"
                  % (script, event.new_objfile.filename, err), gdb.STDERR)
    finally:
        gdb.current_objfile = seen


def register():
    gdb.events.new_objfile.connect(_on_new_objfile)
