#!/usr/bin/env python3
"""The program's images in replay when there is no crash: the executable,
its libraries and its auxv at the end of a recording of a program that
exited normally, and of one that exec'd another.

The recordings are made with `hwtrec record` of images-prog (PIE, returns
6), directly and through `sh -c 'exec ./images-prog'`; each is opened with
`hwtrec replay` without its core (and with it, when the source wrote one).

The oracle is GDB on the live program at the same point: images-prog run
under Valgrind (which loads it and its libraries where the recording saw
them) with Valgrind's gdbserver, stopped at its exit_group system call, and
the kernel's /proc/PID/maps of that process.  GDB through hwtrec-server must
show the same `info sharedlibrary` (addresses, files), the same auxv entries
(AT_PHDR, AT_PHENT, AT_PHNUM, AT_BASE, AT_ENTRY, AT_PAGESZ), the same `break
main` address, the same call stack (frames above the first by PC; the first
by function: the live PC is past the system call, the history's on it), and
library load addresses (l_addr) equal to where the kernel mapped each
file's first page.  After the exec: GDB's executable is the exec'd program,
`hwtrec info` names the exec, and a breakpoint, `bt` and `reverse-step` land
where `record full` on the live new program lands.  Before an exec
(images-launch runs launch(), then execs images-prog): a pending `break
launch` reached by reverse-continue from the end stops where GDB on the live
launcher stops (line, PC, bt), with the launcher as GDB's executable and its
auxv, and `continue` comes back to images-prog's end.

Exit 0 when all agree, 1 otherwise, 77 without valgrind/vgdb or a recorder.
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

BUILDDIR = os.environ.get("TESTDIR", os.getcwd())
HWTREC = os.environ.get("HWTREC", "")
GDB = os.environ.get("GDB", "gdb")
PROG = os.path.join(BUILDDIR, "images-prog")
LAUNCHER = os.path.join(BUILDDIR, "images-launch")
TIMEOUT = 120
failures = []

# Python run inside GDB: the call stack (function@pc per frame) and the
# position (function, line), whichever unwinder (GDB's, the plugin's) runs.
GDB_HELPERS = r"""python
import gdb
def hwt_stack():
    f, out = gdb.newest_frame(), []
    while f is not None and len(out) < 30:
        out.append("%s@%#x" % (f.name(), f.pc()))
        try:
            f = f.older()
        except gdb.error:
            break
    print("STACK " + " ".join(out))
def hwt_names():
    f, out = gdb.newest_frame(), []
    while f is not None and len(out) < 30:
        out.append(str(f.name()))
        try:
            f = f.older()
        except gdb.error:
            break
    print("NAMES " + " ".join(out))
def hwt_pos():
    f = gdb.selected_frame()
    print("POS %s %d" % (f.name(), f.find_sal().line))
def hwt_exe():
    # "target:" prefixes a file GDB read through the target (vFile).
    name = gdb.current_progspace().filename
    print("EXE %s" % (name[7:] if name.startswith("target:") else name))
end
"""

# What both sides print at the end of the program.
END_COMMANDS = r"""python hwt_stack()
python hwt_exe()
echo ==libs\n
info sharedlibrary
echo ==auxv\n
info auxv
echo ==endauxv\n
break main
maint packet qXfer:libraries-svr4:read::0,ffff
"""

# After the exec: back to the one call of twice, its caller, a step back.
REVERSE_COMMANDS = r"""break twice
reverse-continue
python hwt_pos()
python hwt_names()
reverse-step
python hwt_pos()
"""


def check(cond, what, detail=""):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failures.append(what)
        if detail:
            print("  | " + str(detail)[-4000:].replace("\n", "\n  | "))


def run(cmd, **kw):
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=TIMEOUT, **kw)
    return proc.returncode, proc.stdout.decode("utf-8", "replace")


def section(text, start, end):
    m = re.search(re.escape(start) + r"\n(.*?)" + re.escape(end), text, re.S)
    return m.group(1) if m else ""


def libraries(text):
    """`info sharedlibrary` rows: (from, to, the file's real path)."""
    rows = set()
    for line in section(text, "==libs", "==auxv").splitlines():
        # "target:" prefixes a file GDB read through the target (vFile).
        m = re.match(r"(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+\S+(?: \(\*\))?\s+"
                     r"(?:target:)?(/\S+)$", line)
        if m:
            rows.add((int(m.group(1), 16), int(m.group(2), 16),
                      os.path.realpath(m.group(3))))
    return rows


def auxv(text):
    found = {}
    for line in section(text, "==auxv", "==endauxv").splitlines():
        m = re.match(r"\d+\s+AT_(\w+)\s.*?\s(0x[0-9a-f]+|\d+)(?: \".*\")?$", line)
        if m:
            found[m.group(1)] = int(m.group(2), 0)
    return found


def one(pattern, text):
    m = re.search(pattern, text, re.M)
    return m.group(1) if m else None


def all_of(pattern, text):
    return re.findall(pattern, text, re.M)


def stack(text):
    frames = (one(r"^STACK (.*)$", text) or "").split()
    return [tuple(f.rsplit("@", 1)) for f in frames]


def svr4_l_addr(text):
    """name -> l_addr from the server's library list, as GDB received it."""
    reply = one(r'received: "(.*)"', text) or ""
    return {os.path.realpath(n): int(a, 16) for n, a in
            re.findall(r'<library name="([^"]*)" lm="[^"]*" l_addr="(0x[0-9a-f]+)"',
                       reply)}


def kernel_bases(maps):
    """Real path -> address of the file's first page, from /proc/PID/maps."""
    bases = {}
    for line in maps.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[5].startswith("/") and int(parts[2], 16) == 0:
            start = int(parts[0].split("-")[0], 16)
            path = os.path.realpath(parts[5])
            bases[path] = min(start, bases.get(path, start))
    return bases


def oracle_at_exit(work, prog):
    """GDB on PROG under Valgrind, stopped at exit_group."""
    return oracle_live(work, [prog], "catch syscall exit_group\ncontinue\n",
                       END_COMMANDS)


def oracle_live(work, argv, stop, commands):
    """GDB on ARGV under Valgrind: STOP gets it where COMMANDS run."""
    prefix = os.path.join(work, "vgdb")
    prog = argv[0]
    log = open(os.path.join(work, "valgrind.log"), "w")
    vg = subprocess.Popen(["valgrind", "-q", "--tool=none", "--vgdb=yes",
                           "--vgdb-error=0", "--vgdb-prefix=" + prefix] + argv,
                          stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                          cwd=work)
    try:
        deadline = time.time() + 60
        while not glob.glob("%s-from-vgdb-to-%d-*" % (prefix, vg.pid)):
            if time.time() > deadline or vg.poll() is not None:
                return None
            time.sleep(0.1)
        script = os.path.join(work, "oracle.gdb")
        with open(script, "w") as f:
            f.write(GDB_HELPERS)
            f.write("target remote | vgdb --vgdb-prefix=%s --pid=%d\n"
                    % (prefix, vg.pid))
            f.write(stop)
            f.write(commands)
            f.write("echo ==maps\\n\nshell cat /proc/%d/maps\necho ==endmaps\\n\n"
                    % vg.pid)
            f.write("kill\n")
        _, out = run([GDB, "-nx", "-batch", "-x", script, prog], cwd=work)
        return out
    finally:
        if vg.poll() is None:
            vg.kill()
        vg.wait()
        log.close()


def oracle_record_full(work, prog):
    """GDB's record full on the live PROG: into twice, one step back."""
    script = os.path.join(work, "full.gdb")
    with open(script, "w") as f:
        f.write(GDB_HELPERS)
        f.write("break main\nrun\nrecord full\nbreak twice\ncontinue\n"
                "python hwt_pos()\npython hwt_names()\nreverse-step\n"
                "python hwt_pos()\nkill\n")
    _, out = run([GDB, "-nx", "-batch", "-x", script, prog], cwd=work)
    return out


def replay(work, rec, commands):
    script = os.path.join(work, "replay.gdb")
    with open(script, "w") as f:
        f.write(GDB_HELPERS)
        f.write(commands)
    _, out = run([HWTREC, "replay", rec, "--", "-batch", "-x", script], cwd=work)
    return out


def without_core(rec, work):
    """A copy of REC as a recording with no core: the manifest names none."""
    copy = os.path.join(work, os.path.basename(rec) + "-nocore.hwtrec")
    shutil.copytree(rec, copy)
    path = os.path.join(copy, "manifest.json")
    with open(path) as f:
        manifest = json.load(f)
    manifest.pop("core", None)
    with open(path, "w") as f:
        json.dump(manifest, f)
    return copy


def variants(rec, work):
    """The recording without its core, and as it is if it has one."""
    with open(os.path.join(rec, "manifest.json")) as f:
        has_core = "core" in json.load(f)
    found = [("no core", without_core(rec, work))]
    if has_core:
        found.append(("core", rec))
    return found


def compare_end(what, oracle, server, exe):
    lib_o, lib_s = libraries(oracle), libraries(server)
    check(any("libc.so" in r[2] for r in lib_o), what + ": oracle lists libc", oracle)
    check(lib_s == lib_o, what + ": info sharedlibrary as on the live process",
          "live: %s\nserver: %s\n%s" % (sorted(lib_o), sorted(lib_s), server))
    av_o, av_s = auxv(oracle), auxv(server)
    keys = ["PHDR", "PHENT", "PHNUM", "BASE", "ENTRY", "PAGESZ"]
    check(all(k in av_o for k in keys), what + ": oracle auxv complete", oracle)
    # RANDOM, EXECFN and PLATFORM point into the initial stack, whose layout
    # follows the environment's size: the recorded run (under hwtrec record,
    # whose environment differs) and the live one put them apart, so they
    # are left out; every other entry the server gives must be the live one.
    on_stack = {"RANDOM", "EXECFN", "PLATFORM"}
    check([av_s.get(k) for k in keys] == [av_o.get(k) for k in keys] and
          all(av_s[k] == av_o.get(k) for k in av_s if k not in on_stack),
          what + ": auxv entries as on the live process",
          "live: %s\nserver: %s" % (av_o, av_s))
    bp = r"^Breakpoint \d+ at (0x[0-9a-f]+): file"
    check(one(bp, server) is not None and one(bp, server) == one(bp, oracle),
          what + ": break main at the relocated address",
          "live %s, server %s" % (one(bp, oracle), one(bp, server)))
    st_o, st_s = stack(oracle), stack(server)
    check(len(st_o) >= 3 and [f[0] for f in st_s] == [f[0] for f in st_o] and
          st_s[1:] == st_o[1:], what + ": bt at the end as on the live process",
          "live: %s\nserver: %s\n%s" % (st_o, st_s, server))
    check(one(r"^EXE (.*)$", server) == os.path.realpath(exe),
          what + ": GDB's executable is %s" % exe, server)
    bases = kernel_bases(section(oracle, "==maps", "==endmaps"))
    l_addr = svr4_l_addr(server)
    check(l_addr and all(bases.get(n) == a for n, a in l_addr.items()),
          what + ": l_addr is where the kernel mapped each library",
          "kernel: %s\nserver: %s" % (bases, l_addr))


def record(work, name, argv):
    rec = os.path.join(work, name + ".hwtrec")
    rc, out = run([HWTREC, "record", "-o", rec, "--"] + argv, cwd=work)
    if not os.path.isdir(rec):
        print("SKIP: hwtrec record made no recording:\n" + out)
        sys.exit(77)
    return rec, rc, out


# In the first program, before its exec: where the breakpoint stops.
BEFORE_EXEC_COMMANDS = r"""python hwt_pos()
python hwt_stack()
python hwt_exe()
echo ==libs\n
info sharedlibrary
echo ==auxv\n
info auxv
echo ==endauxv\n
"""


def compare_before_exec(what, oracle, server, launcher, prog):
    """At `launch` in the first program, reached backwards across the exec;
    then forward again to the end, in the program exec'd."""
    check("executing new program: %s" % os.path.realpath(launcher) in server,
          what + ": GDB follows the exec backwards", server)
    pos_o, pos_s = all_of(r"^POS (.*)$", oracle), all_of(r"^POS (.*)$", server)
    check(pos_o and pos_o[0].startswith("launch ") and pos_s[:1] == pos_o,
          what + ": break launch stops where it does in the live program",
          "live: %s\nserver: %s\n%s" % (pos_o, pos_s, server))
    st_o, st_s = stack(oracle), stack(server)
    check(len(st_o) >= 2 and st_s == st_o, what + ": bt in launch as live",
          "live: %s\nserver: %s" % (st_o, st_s))
    exes = all_of(r"^EXE (.*)$", server)
    check(exes == [os.path.realpath(launcher), os.path.realpath(prog)],
          what + ": GDB's executable is the launcher, then the program again",
          "%s\n%s" % (exes, server))
    lib_o, lib_s = libraries(oracle), libraries(server)
    check(lib_o and lib_s == lib_o, what + ": info sharedlibrary as live",
          "live: %s\nserver: %s" % (sorted(lib_o), sorted(lib_s)))
    av_o, av_s = auxv(oracle), auxv(server)
    check(av_s.get("ENTRY") == av_o.get("ENTRY") and
          av_s.get("PHDR") == av_o.get("PHDR") and "ENTRY" in av_o,
          what + ": the launcher's auxv", "live: %s\nserver: %s" % (av_o, av_s))
    check(pos_s[1:2] and pos_s[1].startswith("__GI__exit "),
          what + ": continue goes forward across the exec to the end", server)


def main():
    if not shutil.which("valgrind") or not shutil.which("vgdb") or not HWTREC:
        print("SKIP: needs valgrind, vgdb and hwtrec")
        return 77
    work = tempfile.mkdtemp(prefix="hwtrec-images-")
    try:
        prog = os.path.join(work, "images-prog")
        shutil.copy(PROG, prog)

        # A program that exits normally.
        oracle = oracle_at_exit(work, prog)
        if oracle is None:
            print("SKIP: Valgrind's gdbserver did not start")
            return 77
        rec, rc, out = record(work, "exit", [prog])
        check(rc == 6, "images-prog exited with 6 under hwtrec record", out)
        for name, r in variants(rec, work):
            compare_end("exit, " + name, oracle, replay(work, r, END_COMMANDS), prog)

        # The same program, started by an exec from a shell.
        rec, rc, out = record(work, "exec", ["sh", "-c", "exec ./images-prog"])
        _, info = run([HWTREC, "info", rec])
        check(re.search(r"^Exec'd:\s+\./images-prog \(%s\)$"
                        % re.escape(os.path.realpath(prog)), info, re.M),
              "hwtrec info names the exec", info)
        full = oracle_record_full(work, prog)
        for name, r in variants(rec, work):
            what = "exec, " + name
            server = replay(work, r, END_COMMANDS)
            compare_end(what, oracle, server, prog)
            server = replay(work, r, REVERSE_COMMANDS)
            pos_f, pos_s = all_of(r"^POS (.*)$", full), all_of(r"^POS (.*)$", server)
            names_f = one(r"^NAMES (.*)$", full)
            check(len(pos_f) == 2 and pos_f[0].startswith("twice ") and
                  pos_f[1].startswith("main "), what + ": record full oracle ran", full)
            check(pos_s == pos_f, what + ": twice and reverse-step as record full",
                  "record full: %s\nserver: %s\n%s" % (pos_f, pos_s, server))
            check(names_f and one(r"^NAMES (.*)$", server) == names_f,
                  what + ": bt in twice as record full",
                  "record full: %s\nserver: %s" % (names_f,
                                                   one(r"^NAMES (.*)$", server)))

        # A C program that runs a function, then execs images-prog.
        launcher = os.path.join(work, "images-launch")
        shutil.copy(LAUNCHER, launcher)
        oracle = oracle_live(work, [launcher, "./images-prog"],
                             "break launch\ncontinue\n", BEFORE_EXEC_COMMANDS)
        rec, rc, out = record(work, "launch", [launcher, "./images-prog"])
        for name, r in variants(rec, work):
            server = replay(work, r, "set breakpoint pending on\nbreak launch\n"
                            "reverse-continue\n" + BEFORE_EXEC_COMMANDS +
                            "continue\npython hwt_pos()\npython hwt_exe()\n")
            compare_before_exec("launch, " + name, oracle, server, launcher, prog)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
