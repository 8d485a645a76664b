#!/usr/bin/env python3
"""test-relative-dlopen.py: a library dlopen()ed by a relative name, replayed
from another directory and packed and moved.

dlopen-host, run in a folder holding dlopen-plugin.so, loads it as
"./dlopen-plugin.so", the name ld.so keeps in the link map, and dies of
SIGSEGV inside it.  GDB opens a relative library name from its own working
directory, never through the target: the server gave that name as it was,
so a replay run elsewhere, and any packed recording once the originals are
gone, had no symbols for the library ("Could not load shared library
symbols for ./dlopen-plugin.so", `bt` all `??`).  The server now names
the file mapped at the library's load bias.

Oracle: GDB on the recording's core run in the program's folder (where the
relative name finds the library): `bt`, `p plug_calls`, the libraries'
address ranges.  The replay (plain GDB on hwtrec-server) from another
folder must print the same frames and value, and list the library at the
same address range with symbols read; again for the recording packed,
moved, and the program and library deleted.

Exit 0 when all agree, 1 otherwise, 77 without `hwtrec record`.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from checks import check, finish

HWTREC = os.environ.get("HWTREC", "")
SERVER = os.environ.get("HWTREC_SERVER", "")
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
CMDS = ["set pagination off", "bt", "p plug_calls", "info sharedlibrary"]


def gdb(cwd, cmds, *files):
    args = ["gdb", "-nx", "-batch"]
    for c in cmds:
        args += ["-ex", c]
    proc = subprocess.run(args + list(files), cwd=cwd,
                          stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=300)
    return proc.stdout + proc.stderr


def facts(out):
    """Frames (number and function), printed values, and the plugin's
    line of `info sharedlibrary` (range and whether symbols were read)."""
    frames = list(dict.fromkeys(re.findall(r"^#(\d+) .*?(\w+) \(", out,
                                           re.M)))
    values = re.findall(r"^\$\d+ = (.*)$", out, re.M)
    plugin = re.findall(r"^(0x[0-9a-f]+ +0x[0-9a-f]+ +\w+).*dlopen-plugin\.so$",
                        out, re.M)
    return frames, values, [" ".join(p.split()) for p in plugin]


def main():
    if not os.access(HWTREC, os.X_OK) or not os.access(SERVER, os.X_OK):
        print("SKIP: no hwtrec or hwtrec-server")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="hwtrec-reldl-") as work:
        app = os.path.join(work, "app")
        elsewhere = os.path.join(work, "elsewhere")
        os.mkdir(app)
        os.mkdir(elsewhere)
        for f in ("dlopen-host", "dlopen-plugin.so"):
            shutil.copy(os.path.join(TESTDIR, f), app)
        prog = os.path.join(app, "dlopen-host")
        rec = os.path.join(app, "d.hwtrec")
        subprocess.run([HWTREC, "record", "-q", "-o", rec, "--", prog],
                       cwd=app, capture_output=True, timeout=300)
        core = os.path.join(rec, "core")
        check(os.path.exists(core), "the recording ends at the crash (a core)")
        on_core = gdb(app, CMDS, prog, core)
        want = facts(on_core)
        check(want[0][:2] == [("0", "score"), ("1", "plug_filter")] and
              want[1] == ["2"] and len(want[2]) == 1 and
              want[2][0].endswith("Yes"),
              "GDB on the core in the program's folder: score, plug_filter, "
              "plug_calls 2, the library with symbols (%s)" % (want,), on_core)
        remote = "target remote | %s %s" % (SERVER, rec)
        replay = gdb(elsewhere, [remote] + CMDS, prog)
        check(facts(replay) == want,
              "replayed from another folder: the core's frames, value and "
              "library (%s)" % (facts(replay),), replay)
        moved = os.path.join(elsewhere, "d.hwtrec")
        packing = subprocess.run([HWTREC, "pack", rec], capture_output=True,
                                 text=True, timeout=300)
        check(packing.returncode == 0, "hwtrec pack", packing.stderr)
        shutil.move(rec, moved)
        shutil.rmtree(app)
        remote = "target remote | %s %s" % (SERVER, moved)
        packed = gdb(elsewhere, [remote] + CMDS)
        check(facts(packed) == want,
              "packed, moved, the originals deleted: the core's frames, "
              "value and library (%s)" % (facts(packed),), packed)
    finish()


main()
