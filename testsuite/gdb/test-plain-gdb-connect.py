#!/usr/bin/env python3
"""test-plain-gdb-connect: plain GDB (no plugin, default remotetimeout of 2 s)
connects with `target remote | hwtrec-server REC` to a long recording that
has no core, whose history takes seconds to build.  The server must answer
at once: GDB shows the end's PC (the exit system call) while the history is
still being built, and moves back once it is.

Oracles: the recording is synthetic (mkrec-long, libipt's encoder over
long-loop.S), so the instruction count is the generator's; the PCs of the
exit sequence come from objdump's disassembly of the code."""
import os
import re
import subprocess
import sys
import tempfile

SERVER = os.environ["HWTREC_SERVER"]
TESTDIR = os.environ["TESTDIR"]
# 150 M iterations: 600 M instructions, several seconds of building (GDB
# gives up on a packet after 3 tries of remotetimeout, 2 s each).
ITERATIONS = int(os.environ.get("LONG_ITERATIONS", "150000000"))
CONNECT_BOUND = 4.0   # seconds from `target remote` to the backtrace
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def exit_sequence(code):
    """Addresses of mov, xor, syscall at `exit`, from objdump."""
    out = subprocess.run(["objdump", "-d", code], capture_output=True,
                         text=True, check=True).stdout
    body = out.split("<exit>:", 1)[1]
    return [int(m.group(1), 16)
            for m in re.finditer(r"^\s*([0-9a-f]+):", body, re.M)][:3]


def connect_case(iterations, psb_period=None, bound=CONNECT_BOUND):
    code = os.path.join(TESTDIR, "long-code")
    mov, xor, syscall = exit_sequence(code)
    print("== %d iterations, PSB period %s" % (iterations, psb_period or "4096"))
    with tempfile.TemporaryDirectory(prefix="hwtrec-connect-") as work:
        rec = os.path.join(work, "long.hwtrec")
        made = subprocess.run([os.path.join(TESTDIR, "mkrec-long"), code, rec,
                               str(iterations)] + ([str(psb_period)] if psb_period else []),
                              capture_output=True, text=True)
        check(made.returncode == 0, "mkrec-long wrote the recording: " + made.stderr)
        if made.returncode:
            return
        instructions = int(made.stdout)
        script = os.path.join(work, "cmds.py")
        with open(script, "w") as f:
            f.write(f"""
import time
t0 = time.monotonic()
gdb.execute("target remote | {SERVER} {rec}")
rip = int(gdb.parse_and_eval("$rip"))
bt = gdb.execute("bt", to_string=True)
t1 = time.monotonic()
info = gdb.execute("maint packet qHwtr:info", to_string=True)
print("==connect %.2f" % (t1 - t0))
print("==rip %#x" % rip)
print("==bt " + bt.splitlines()[0])
print("==building " + str("226275696c64696e67223a74727565" in info))
gdb.execute("reverse-stepi")
print("==rip1 %#x" % int(gdb.parse_and_eval("$rip")))
# The reverse-stepi is answered from the end of the trace, decoded first;
# qHwtr:info:1 waits for the whole history, longer than remotetimeout.
gdb.execute("set remotetimeout 600")
info = gdb.execute("maint packet qHwtr:info:1", to_string=True)
text = bytes.fromhex(info.split('received: "')[1].split('"')[0]).decode()
print("==info " + text)
gdb.execute("kill")
""")
        gdb = subprocess.run(["gdb", "-nx", "-batch", "-x", script],
                             capture_output=True, text=True, timeout=600)
        out = gdb.stdout + gdb.stderr
        print(out)

        def field(name):
            m = re.search(r"^==%s (.*)$" % name, out, re.M)
            return m.group(1) if m else None

        check(field("rip") == "%#x" % syscall,
              "at connect, rip is the exit syscall %#x (objdump)" % syscall)
        bt = field("bt") or ""
        check(re.match(r"#0\s+0x0*%x in exit \(\)" % syscall, bt) is not None,
              "bt's frame 0 is exit at the syscall: " + bt)
        connect = float(field("connect") or "inf")
        check(connect < bound,
              "connect, rip and bt took %.2f s (< %.0f s)" % (connect, bound))
        # Not an assertion: a fast machine may finish building first.
        print("history still being built at connect:", field("building"))
        check(field("rip1") == "%#x" % xor,
              "reverse-stepi goes to the xor before it %#x" % xor)
        check('"instructions":%d,' % instructions in (field("info") or ""),
              "the built history has the generator's %d instructions" % instructions)
        check("Remote replied unexpectedly" not in out and
              "Ignoring packet error" not in out, "no protocol error in GDB")


def main():
    connect_case(ITERATIONS)
    # One PSB+ at the start and 1.4 MB of trace after it: the end is
    # searched from 1 MiB before the end of the stream first, which holds
    # no PSB; the search must widen, not give up or land elsewhere (and
    # decodes the one chunk whole: no time bound but GDB's own).
    connect_case(8000000, psb_period=1 << 40, bound=60)


main()
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
