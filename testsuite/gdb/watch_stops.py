"""watch_stops.py: what the tests of watchpoints against GDB on the live
program share (test-watch-access.py, test-watch-rep.py): the environment
of both runs, running GDB or hwtrec, and the lines GDB prints at each stop
a script marks with `printf "@@MARKER %#lx\\n", $pc`.
"""

import os
import re
import subprocess
import sys

# As run-scenario: the same string functions natively and under Valgrind.
ENV = dict(os.environ,
           GLIBC_TUNABLES="glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,"
           "-AVX512DQ,-AVX2,-AVX,-AVX_Fast_Unaligned_Load,-ERMS,-FSRM,-BMI1,"
           "-BMI2,-LZCNT,-MOVBE,-RTM:glibc.pthread.rseq=0",
           LD_BIND_NOW="1")

REPORTED = re.compile(r"^(Hardware (read |access \(read/write\) )?watchpoint"
                      r" \d+: |Watchpoint \d+: |Value = |Old value = |"
                      r"New value = )")
PREAMBLE = "set pagination off\nset confirm off\nset width 0\n"
ORACLEDIR = os.path.join(os.environ.get("SRCDIR", os.path.dirname(
    os.path.abspath(__file__))), "..", "oracle")
sys.path.insert(0, ORACLEDIR)
import oracle_env  # noqa: E402  (the oracle GDB's preload)


def record_full_at_main(prog):
    """GDB commands that start PROG, run it to main and start `record
    full` there: natively, or through gdbserver where native GDB cannot
    undo an SSE instruction (testsuite/oracle/record_full.py)."""
    return PREAMBLE + ("python import sys; sys.path.insert(0, %r)\n"
                       "python import record_full; record_full.start(%r, [])\n"
                       "break main\ncontinue\nrecord full\ndelete\n"
                       % (ORACLEDIR, prog))


def run(cmd, cwd, oracle=False):
    """CMD's output (stdout and stderr), run in CWD with ENV; ORACLE: CMD is
    the record-full oracle's GDB (oracle_env.py)."""
    env = oracle_env.gdb_environment(ENV) if oracle else ENV
    proc = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=120)
    return proc.stdout.decode("utf-8", "replace")


def stops(text, marker, also=None):
    """[(pc, [lines GDB printed at the stop])] for each MARKER line; with
    ALSO (a compiled pattern), [(pc, lines, [lines ALSO matches])]."""
    found, lines, extra = [], [], []
    for line in text.splitlines():
        m = re.match(r"^@@(\w+) (0x[0-9a-f]+)$", line)
        if m:
            if m.group(1) == marker:
                pc = int(m.group(2), 16)
                found.append((pc, lines, extra) if also else (pc, lines))
            lines, extra = [], []
        elif REPORTED.match(line):
            lines.append(re.sub(r"watchpoint \d+:", "watchpoint N:", line))
        elif also and also.match(line):
            extra.append(line)
    return found
