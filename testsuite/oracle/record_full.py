"""record_full.py: start a program, inside GDB, where GDB's `record full`
can replay it: natively when this GDB can write the x86 extended register
state of a native process, else through gdbserver.

Why: record full undoes an instruction by writing back the registers it
changed.  On hosts whose kernel XSAVE area is larger than GDB 13 knows (AMX:
Sapphire Rapids and later), PTRACE_SETREGSET(NT_X86_XSTATE) refuses GDB's
shorter buffer, so every reverse step over an SSE/x87 instruction or a
system call fails with "Couldn't write extended state status: Bad
address".  gdbserver sizes the area from CPUID and gives the same answers
(doc: testsuite/oracle/README.md, platform-facts F.1), at a round trip per
step.  So the launchers preload libxstate-setregset.so into this GDB
(oracle_env.py), which sizes the area as gdbserver does; the program GDB
starts is kept out of that preload.

Which path is decided by PROBING, not by the CPU's name: the program is
started natively, $xmm0 is written (the very store record full's undo
makes) and read back; if that fails the native process is killed and the
program is started again under gdbserver.  HWTREC_RECORD_FULL=native or
=gdbserver forces a path (native on a host that cannot write the state
makes the oracle fail loudly; gdbserver runs the whole oracle set through
it on any host).

Use, from a GDB Python script:

    import record_full
    path = record_full.start(PROG, ARGS)   # stopped at the first instruction
    gdb.execute("break main"); gdb.execute("continue")
    gdb.execute("record full") ...

Both paths leave the program stopped at its first instruction (as
`starti`), with address space randomisation off, in the caller's working
directory and environment.
"""

import os
import shlex

import gdb

import oracle_env

ENV = "HWTREC_RECORD_FULL"
XSTATE_FAILURE = "Couldn't write extended state"
# Module state: the path the last start() took and why (tests print it).
chosen = None
reason = None


def _quoted(args):
    return " ".join(shlex.quote(a) for a in args)


def _program_environment():
    """The program's LD_PRELOAD is GDB's without the oracle's library."""
    rest = oracle_env.program_preload()
    if rest:
        gdb.execute("set environment LD_PRELOAD " + rest, to_string=True)
    else:
        gdb.execute("unset environment LD_PRELOAD", to_string=True)


def _start_native(prog, args):
    _program_environment()
    gdb.execute("file " + shlex.quote(prog), to_string=True)
    gdb.execute("set args " + _quoted(args), to_string=True)
    gdb.execute("starti", to_string=True)


def _start_gdbserver(prog, args):
    gdb.execute("file " + shlex.quote(prog), to_string=True)
    # The same files GDB reads natively (not copies fetched over vFile).
    # gdbserver on a pipe gives the program /dev/null as stdin and its
    # stdout goes to GDB's stderr: programs here take files as arguments.
    gdb.execute("set sysroot /", to_string=True)
    # record full records a forward step by single-stepping the target; a
    # range step (vCont;r, which gdbserver offers) would run a whole line's
    # instructions unseen, so that going back over it skips them.
    gdb.execute("set range-stepping off", to_string=True)
    # extended-remote (--multi), so that a scenario's `run` or `start`
    # starts the program again as it does natively; connected once per GDB
    # (a test that kills the program and starts it again reuses it).
    connection = getattr(gdb.selected_inferior(), "connection", None)
    if connection is None or connection.type != "extended-remote":
        # gdbserver needs no preload, and its program must not get one.
        rest = oracle_env.program_preload()
        launcher = ("env LD_PRELOAD=" + shlex.quote(rest) if rest
                    else "env -u LD_PRELOAD")
        gdb.execute("target extended-remote | exec %s gdbserver --multi -"
                    % launcher, to_string=True)
    gdb.execute("set remote exec-file " + shlex.quote(prog), to_string=True)
    gdb.execute("set args " + _quoted(args), to_string=True)
    gdb.execute("starti", to_string=True)


def native_can_write_xstate(prog, args=()):
    """Start PROG natively and write $xmm0 (then put it back): (True, "")
    when GDB can, (False, GDB's message) when it cannot.  Leaves the
    native process killed."""
    _start_native(prog, args)
    lane = "$xmm0.v2_int64[0]"
    try:
        old = int(gdb.parse_and_eval(lane))
        probe = old ^ 0x0123456789abcdef
        gdb.execute("set var %s = %d" % (lane, probe), to_string=True)
        # Drop GDB's cached copy: the value must come back from the kernel.
        gdb.execute("maint flush register-cache", to_string=True)
        back = int(gdb.parse_and_eval(lane))
        if back != probe:
            return False, ("$xmm0 read back as 0x%x after writing 0x%x"
                           % (back, probe))
        return True, ""
    except gdb.error as err:
        return False, str(err)
    finally:
        gdb.execute("kill", to_string=True)


def choose(prog, args=()):
    """The path for this host: HWTREC_RECORD_FULL if set, else a probe."""
    forced = os.environ.get(ENV, "auto")
    if forced in ("native", "gdbserver"):
        return forced, "%s=%s" % (ENV, forced)
    if forced != "auto":
        raise gdb.GdbError("%s=%s: expected native, gdbserver or auto"
                           % (ENV, forced))
    ok, why = native_can_write_xstate(prog, args)
    if ok:
        return "native", "GDB wrote $xmm0 of a native process"
    return "gdbserver", "native GDB cannot write the extended state: " + why


def start(prog, args=()):
    """Start PROG ARGS stopped at its first instruction, on the path
    choose() picks; returns the path ("native" or "gdbserver")."""
    global chosen, reason
    # Once per GDB: probing again would start the program "natively" on
    # the extended-remote target the first start left connected.
    if chosen is None:
        chosen, reason = choose(prog, args)
    if chosen == "native":
        _start_native(prog, args)
    else:
        _start_gdbserver(prog, args)
    _check_program_environment()
    return chosen


def _check_program_environment():
    """The program must run as hwtrec records it: without the library this
    GDB preloads (a process on this machine, whichever the path)."""
    lib = oracle_env.preload_library()
    pid = gdb.selected_inferior().pid
    if not lib or not pid:
        return
    with open("/proc/%d/environ" % pid, "rb") as f:
        for entry in f.read().split(b"\0"):
            if entry.startswith(b"LD_PRELOAD=") and lib.encode() in entry:
                raise gdb.GdbError("record_full: %s started with %s"
                                   % (os.readlink("/proc/%d/exe" % pid),
                                      entry.decode()))


def describe():
    preload = (", libxstate-setregset preloaded"
               if chosen == "native" and oracle_env.preloaded() else "")
    return "record-full oracle: %s (%s%s)" % (chosen, reason, preload)
