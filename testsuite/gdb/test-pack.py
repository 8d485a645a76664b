#!/usr/bin/env python3
"""test-pack: a packed recording travels (issue 19, `hwtrec pack`).

pack-prog (PIE) calls pack_scale in libpack.so, a library of its own, and
dies of SIGSEGV; both are built into a temporary directory with their debug
info split off (objcopy --only-keep-debug) into a .build-id tree there.  The
program is recorded, packed with `hwtrec pack --debug-dir`, moved to another
directory, and the program, its library and the debug tree are deleted.
Then, on the moved recording, against independent oracles:

- `bt` at the crash, and the stops of eight `reverse-step`s from it
  (function, file and line of each frame), through `hwtrec replay`, are
  those of GDB's `record full` on the live program (natively or through
  gdbserver, ../oracle/record_full.py), and the replay's PCs at the crash
  are those of GDB on the recording's core while the files were there;
- the function-call history is GDB's own btrace decoder's reading the same
  trace (btrace-compare.py: GDB reads the code over vFile from the
  recording), and the plugin's listing is the same before and after the
  move;
- GDB prints no "does not support file transfer" warning, and the
  library's source lines come from the packed debug file.

Also: `hwtrec info` says "packed" after packing, leaving no mapped file
out (the Valgrind tool has a build-id too), and names the missing files
before; the moved recording's saved history index is still used; the manifest's "files" gives each copy's length and CRC-32
(zlib's, computed here), and a copy changed afterwards makes the recording
refused when opened; `hwtrec dump --calls` is the same before and after the
move; a second pack copies nothing and changes no byte (objects/ and the
manifest); `hwtrec info` changes nothing, and a right copy in objects/ the
manifest does not cover gets its entry from `hwtrec pack`; a copy in objects/ with another build-id is refused by `hwtrec
pack`, naming both build-ids, and listed by `hwtrec info`; `hwtrec record
--pack` packs, finding a debug file in the debuginfod cache
($DEBUGINFOD_CACHE_PATH/BUILD_ID/debuginfo).

Exit 0 when all agree, 1 otherwise, 77 when the recorder cannot run here.
"""

import os
import re
import json
import shutil
import subprocess
import sys
import tempfile
import zlib

HWTREC = os.environ["HWTREC"]
SERVER = os.environ["HWTREC_SERVER"]
SRCDIR = os.environ["SRCDIR"]
ORACLE_DIR = os.path.join(SRCDIR, "..", "oracle")
sys.path.insert(0, ORACLE_DIR)
import oracle_env  # noqa: E402  (the oracle GDB's preload)
TIMEOUT = 180
STEPS = 8
failures = []

# Inside GDB: one line per frame, "FRAME function file:line pc".
HELPERS = r"""python
import gdb
def hwt_frames(tag):
    f = gdb.newest_frame()
    while f is not None:
        sal = f.find_sal()
        where = "%s:%d" % (sal.symtab.filename.rsplit("/", 1)[-1], sal.line) \
            if sal.symtab else "??"
        print("%s %s %s %#x" % (tag, f.name(), where, f.pc()))
        if f.name() == "main":
            break
        try:
            f = f.older()
        except gdb.error:
            break
def hwt_steps(n):
    hwt_frames("END")
    for i in range(n):
        gdb.execute("reverse-step", to_string=True)
        hwt_frames("STEP%d" % i)
end
"""


def check(cond, what, detail=""):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failures.append(what)
        if detail:
            print("  | " + str(detail)[-3000:].replace("\n", "\n  | "))


def run(cmd, **kw):
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=TIMEOUT, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def build_id(path):
    _, out = run(["readelf", "-n", path])
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1)


def build(work):
    """pack-prog and libpack.so in WORK/src, debug info in WORK/debug."""
    src, debug = os.path.join(work, "src"), os.path.join(work, "debug")
    os.makedirs(src)
    lib, prog = os.path.join(src, "libpack.so"), os.path.join(src, "pack-prog")
    for cmd in (["gcc", "-g", "-O0", "-fPIC", "-shared", "-Wl,--build-id",
                 "-o", lib, os.path.join(SRCDIR, "pack-lib.c")],
                ["gcc", "-g", "-O0", "-pie", "-fPIE", "-Wl,--build-id", "-o", prog,
                 os.path.join(SRCDIR, "pack-prog.c"), "-L" + src, "-lpack",
                 "-Wl,-rpath," + src]):
        rc, out = run(cmd)
        if rc:
            raise SystemExit("FAIL: %s\n%s" % (" ".join(cmd), out))
    ids = {}
    for f in (lib, prog):
        bid = ids[f] = build_id(f)
        dest = os.path.join(debug, ".build-id", bid[:2], bid[2:] + ".debug")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        run(["objcopy", "--only-keep-debug", f, dest])
        run(["strip", "--strip-debug", f])
    return prog, lib, debug, ids


def frames(text, tag):
    return [tuple(l.split()[1:]) for l in text.splitlines()
            if l.startswith(tag + " ")]


def oracle_record_full(work, prog, debug):
    """END and STEPn frames under record full on the live program."""
    script = os.path.join(work, "oracle.py")
    with open(script, "w") as f:
        f.write("import sys\nsys.path.insert(0, %r)\nimport gdb, record_full\n"
                "record_full.start(%r, [])\n"
                "gdb.execute('break main')\ngdb.execute('continue')\n"
                "gdb.execute('record full')\n"
                "gdb.execute('continue')\n"
                "gdb.execute('python hwt_steps(%d)')\n" % (ORACLE_DIR, prog, STEPS))
    helpers = os.path.join(work, "helpers.gdb")
    with open(helpers, "w") as f:
        f.write(HELPERS)
    env = oracle_env.gdb_environment(dict(os.environ, LD_BIND_NOW="1"))
    return run(["gdb", "-nx", "-batch", "-ex", "set debug-file-directory " + debug,
                "-x", helpers, "-x", script], env=env, cwd=work)[1]


def oracle_core(work, prog, rec, debug):
    """Frames at the crash from GDB on the recording's core, files present."""
    helpers = os.path.join(work, "helpers.gdb")
    return run(["gdb", "-nx", "-batch", "-iex", "set debug-file-directory " + debug,
                "-x", helpers, "-ex", "core-file " + os.path.join(rec, "core"),
                "-ex", "python hwt_frames('END')", prog], cwd=work)[1]


def replay(work, rec):
    """hwtrec replay of REC: frames at the crash, the steps, the listing."""
    helpers = os.path.join(work, "helpers.gdb")
    return run([HWTREC, "replay", rec, "--", "-nx", "-batch", "-x", helpers,
                "-ex", "echo ==calls\\n",
                "-ex", "record function-call-history /c 1,100000",
                "-ex", "echo ==endcalls\\n",
                "-ex", "python hwt_steps(%d)" % STEPS], cwd=work)[1]


def calls(text):
    m = re.search(r"==calls\n(.*?)==endcalls", text, re.S)
    return m.group(1) if m else ""


def snapshot(rec):
    """Every file of objects/ with its inode and bytes, and the manifest."""
    objs = os.path.join(rec, "objects")
    state = {}
    for name in sorted(os.listdir(objs)) if os.path.isdir(objs) else []:
        p = os.path.join(objs, name)
        with open(p, "rb") as f:
            state[name] = (os.stat(p).st_ino, f.read())
    with open(os.path.join(rec, "manifest.json"), "rb") as f:
        state["manifest.json"] = f.read()
    return state


def mismatch(work, prog, ids):
    """A copy of another file under the program's build-id in objects/."""
    rec = os.path.join(work, "mismatch.hwtrec")
    run([HWTREC, "record", "-o", rec, "--", prog])
    objs = os.path.join(rec, "objects")
    os.makedirs(objs, exist_ok=True)
    wrong = os.path.join(objs, ids[prog])
    shutil.copy(os.path.join(work, "src", "libpack.so"), wrong)
    lib_id = build_id(wrong)
    rc, out = run([HWTREC, "pack", rec])
    check(rc != 0, "a copy with another build-id in objects/: pack refuses it", out)
    check(ids[prog] in out and lib_id in out,
          "... naming both build-ids (%s, %s)" % (ids[prog], lib_id), out)
    check(build_id(wrong) == lib_id, "... and leaves it as it was")
    rc, out = run([HWTREC, "info", rec])
    check(re.search(r"mismatch.*%s.*%s" % (ids[prog], lib_id), out) is not None,
          "hwtrec info names the mismatch with both build-ids", out)


def uncovered_copy(work, prog, ids):
    """A right copy in objects/ that the manifest does not cover (put there
    by hand, or by a pack cut off before it wrote the manifest): `hwtrec
    info` only looks, `hwtrec pack` adds its length and CRC-32."""
    rec = os.path.join(work, "uncovered.hwtrec")
    run([HWTREC, "record", "-o", rec, "--", prog])
    os.makedirs(os.path.join(rec, "objects"), exist_ok=True)
    copy = os.path.join(rec, "objects", ids[prog])
    shutil.copy(prog, copy)
    manifest = os.path.join(rec, "manifest.json")
    with open(manifest, "rb") as f:
        before = f.read()
    run([HWTREC, "info", rec])
    with open(manifest, "rb") as f:
        check(f.read() == before, "hwtrec info changes no byte of the manifest")
    rc, out = run([HWTREC, "pack", rec])
    with open(copy, "rb") as f:
        data = f.read()
    with open(manifest) as f:
        entry = json.load(f)["files"].get("objects/" + ids[prog])
    check(entry == {"size": len(data), "crc32": zlib.crc32(data)},
          "hwtrec pack adds an uncovered copy's length and CRC-32", entry)


def main():
    work = tempfile.mkdtemp(prefix="hwtrec-pack-")
    try:
        prog, lib, debug, ids = build(work)
        rec = os.path.join(work, "rec.hwtrec")
        # Bound at start-up, as under record full (which cannot step
        # _dl_runtime_resolve's xsave) and btrace-compare's recording.
        rc, out = run([HWTREC, "record", "-o", rec, "--", prog], cwd=work,
                      env=dict(os.environ, LD_BIND_NOW="1"))
        if not os.path.exists(os.path.join(rec, "manifest.json")):
            print(out)
            if rc == 125:
                print("SKIP: the recorder cannot run here")
                return 77
            check(False, "no recording (status %d)" % rc, out)
            return 1
        rc, out = run([HWTREC, "info", rec])
        check("not packed" in out and prog in out,
              "before pack, hwtrec info names the program as not packed", out)

        rc, out = run([HWTREC, "pack", "--debug-dir", debug, rec])
        check(rc == 0, "hwtrec pack succeeds", out)
        for f in (prog, lib):
            check(os.path.isfile(os.path.join(rec, "objects", ids[f])) and
                  os.path.isfile(os.path.join(rec, "objects", ids[f] + ".debug")),
                  "%s and its debug file are in objects/ by build-id" %
                  os.path.basename(f), out)
        rc, out = run([HWTREC, "info", rec])
        check(re.search(r"^Objects: +packed", out, re.M) is not None,
              "after pack, hwtrec info says packed", out)
        # Every mapped file, the Valgrind tool too (its signal-return
        # trampoline is code the program runs), has a build-id and a copy.
        check("not packed" not in out and "no build-id" not in out,
              "... and lists no mapped file left out", out)
        with open(os.path.join(rec, "manifest.json")) as f:
            files = json.load(f)["files"]
        for name in sorted(os.listdir(os.path.join(rec, "objects"))):
            with open(os.path.join(rec, "objects", name), "rb") as f:
                data = f.read()
            check(files.get("objects/" + name) ==
                  {"size": len(data), "crc32": zlib.crc32(data)},
                  "the manifest gives objects/%s's length and CRC-32" % name,
                  files.get("objects/" + name))
        damaged = os.path.join(work, "damaged.hwtrec")
        shutil.copytree(rec, damaged)
        target = os.path.join(damaged, "objects", ids[lib])
        os.chmod(target, 0o644)
        with open(target, "r+b") as f:
            f.seek(100)
            f.write(b"\xff")
        rc, out = run([HWTREC, "info", damaged])
        check(rc != 0 and ("objects/" + ids[lib]) in out,
              "a packed copy changed afterwards: the recording is refused, "
              "naming it", out)
        before = snapshot(rec)
        rc, out = run([HWTREC, "pack", "--debug-dir", debug, rec])
        check(rc == 0 and "0 files copied, 0 debug files copied" in out,
              "a second pack copies nothing", out)
        check(snapshot(rec) == before,
              "... and changes no byte of objects/ or the manifest")

        expected = oracle_record_full(work, prog, debug)
        core = oracle_core(work, prog, rec, debug)
        replay_before = replay(work, rec)
        dump_before = run([HWTREC, "dump", rec, "--calls", "/c"])[1]
        mismatch(work, prog, ids)
        uncovered_copy(work, prog, ids)

        moved_dir = os.path.join(work, "elsewhere")
        os.makedirs(moved_dir)
        moved = os.path.join(moved_dir, "moved.hwtrec")
        shutil.move(rec, moved)
        shutil.rmtree(os.path.join(work, "src"))
        shutil.rmtree(debug)
        check(not os.path.exists(prog) and not os.path.exists(lib),
              "the program and its library are gone")
        after = replay(work, moved)
        check("saved index not used" not in after,
              "the moved recording's saved history index is still used "
              "(its binaries are its own copies)", after)
        rc, dump_after = run([HWTREC, "dump", moved, "--calls", "/c"])
        check(rc == 0 and "pack_scale" in dump_after and dump_after == dump_before,
              "hwtrec dump --calls is the same before and after the move",
              dump_after[-1500:])

        check("does not support file transfer" not in after,
              "GDB prints no file-transfer warning", after)
        end = frames(after, "END")
        want = frames(expected, "END")
        check(len(want) >= 2 and [f[:2] for f in end] == [f[:2] for f in want],
              "bt at the crash is record full's (functions, lines): %s" %
              [f[:2] for f in want], "replay:\n%s\nrecord full:\n%s" % (after, expected))
        check(end and end == frames(core, "END"),
              "... with the PCs GDB gives on the core: %s" % end, core)
        for i in range(STEPS):
            got, exp = frames(after, "STEP%d" % i), frames(expected, "STEP%d" % i)
            check(exp and [f[:2] for f in got] == [f[:2] for f in exp],
                  "reverse-step %d stops where record full stops: %s" %
                  (i + 1, [f[:2] for f in exp]), "replay: %s" % got)
        check(any(f[0] == "pack_scale" and f[1].startswith("pack-lib.c:")
                  for i in range(STEPS) for f in frames(after, "STEP%d" % i)),
              "the library's lines come from its packed debug file")
        check(calls(after) and calls(after) == calls(replay_before),
              "record function-call-history is the same before and after the move",
              calls(after)[-2000:])
        check("pack_scale" in calls(after), "... and names pack_scale")

        rc, out = run(["gdb", "-nx", "-batch", "-ex",
                       "target remote | %s %s" % (SERVER, moved),
                       "-x", os.path.join(SRCDIR, "btrace-compare.py")], cwd=work)
        check("btrace-compare: PASS" in out,
              "GDB's btrace decoder, reading the code from the moved recording, "
              "gives the same function-call history", out)
        check("does not support file transfer" not in out,
              "... and GDB prints no file-transfer warning there either", out)

        # record --pack: the recorder packs at the end; the program's
        # debug file is only in a debuginfod cache.
        prog2, lib2, debug2, ids2 = build(os.path.join(work, "again"))
        # A library gone before the pack: named with its build-id and why.
        partial = os.path.join(work, "partial.hwtrec")
        run([HWTREC, "record", "-o", partial, "--", prog2], cwd=work)
        os.rename(lib2, lib2 + ".away")
        rc, out = run([HWTREC, "pack", partial])
        os.rename(lib2 + ".away", lib2)
        check(rc != 0 and re.search(r"^not packed %s \(build-id %s\): missing" %
                                    (re.escape(lib2), ids2[lib2]), out, re.M),
              "a library gone: pack fails with 'not packed PATH (build-id ID): "
              "missing ...'", out)
        bid = ids2[prog2]
        cache = os.path.join(work, "debuginfod-cache")
        os.makedirs(os.path.join(cache, bid))
        shutil.move(os.path.join(debug2, ".build-id", bid[:2], bid[2:] + ".debug"),
                    os.path.join(cache, bid, "debuginfo"))
        rec2 = os.path.join(work, "again.hwtrec")
        rc, out = run([HWTREC, "record", "--pack", "-o", rec2, "--", prog2], cwd=work,
                      env=dict(os.environ, DEBUGINFOD_CACHE_PATH=cache))
        rc, out = run([HWTREC, "info", rec2])
        check(re.search(r"^Objects: +packed", out, re.M) is not None,
              "hwtrec record --pack leaves a packed recording", out)
        with open(os.path.join(cache, bid, "debuginfo"), "rb") as f:
            want = f.read()
        got = os.path.join(rec2, "objects", bid + ".debug")
        check(os.path.isfile(got) and open(got, "rb").read() == want,
              "... with the debug file found in the debuginfod cache")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
