#!/usr/bin/env python3
"""The plugin's history listings pick the same windows as GDB's own
record-btrace: the same listings (plain, "+", "-", ranges, N,+K, N,-K, bad
arguments, at the end, at a past position, at the beginning, with another
history size) run once under `record btrace pt` reading our trace through
hwtrec-server's btrace mode (GDB's code decides, the oracle) and once under
the plugin; which entries each showed, relative to the session's counts,
must agree.  Skips (77) when hwtrec record or the server is missing."""

import importlib.machinery
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # run-scenario is loaded from the source tree

SRCDIR = os.environ.get("SRCDIR", os.path.dirname(os.path.abspath(__file__)))
TESTDIR = os.environ.get("TESTDIR", os.getcwd())
TOP_BUILD = os.path.join(TESTDIR, "..", "..")
os.environ.setdefault("HWTREC", os.path.join(TOP_BUILD, "tools", "hwtrec"))
os.environ.setdefault("HWTREC_SERVER", os.path.join(
    TOP_BUILD, "gdb-plugin", "server", "hwtrec-server"))
os.environ.setdefault("SCN_BUILDDIR", TESTDIR)
os.environ.setdefault("SCN_SRCDIR", SRCDIR)
scenario = importlib.machinery.SourceFileLoader(
    "run_scenario", os.path.join(SRCDIR, "run-scenario")).load_module()


def run(mode, prog, recording, out):
    env = dict(os.environ, LST_MODE=mode, LST_PROG=prog,
               LST_RECORDING=recording, LST_SERVER=scenario.SERVER,
               LST_OUT=out, PYTHONDONTWRITEBYTECODE="1")
    cmd = [scenario.GDB, "-nx", "-batch"]
    if mode == "hwtrec":    # GDB's own commands are the oracle: no plugin
        cmd += ["-iex", "python import sys; sys.path.insert(0, %r)"
                % scenario.PYTHONDIR, "-iex", "python import hwtrecord"]
    cmd += ["-x", os.path.join(SRCDIR, "listing-driver.py")]
    proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=scenario.TIMEOUT)
    if not os.path.exists(out):
        print("%s run wrote nothing; GDB said:\n%s"
              % (mode, proc.stdout.decode("utf-8", "replace")[-2000:]))
        return None
    with open(out) as f:
        return json.load(f)


def main():
    missing = scenario.missing_pieces()
    if missing:
        print("test-plugin-listings: skipped, missing: " + "; ".join(missing))
        return 77
    prog = os.path.join(TESTDIR, "scenario-prog")
    recording, problem = scenario.recording_for(prog)
    if problem:
        print(problem)
        return 1
    with tempfile.TemporaryDirectory(prefix="lst-") as work:
        oracle = run("btrace", prog, recording, os.path.join(work, "b.json"))
        ours = run("hwtrec", prog, recording, os.path.join(work, "h.json"))
    if oracle is None or ours is None:
        return 1
    fail = len(oracle) != len(ours)
    for a, b in zip(oracle, ours):
        same = a == b
        fail |= not same
        show = lambda s: str({k: v for k, v in s.items() if k != "command"})
        print("%s %-40s btrace %s\n%s %-40s plugin %s"
              % ("  " if same else "!!", a["command"][:40], show(a)[:90],
                 "  " if same else "!!", "", show(b)[:90]))
    print("test-plugin-listings: %s" % ("FAIL" if fail else "PASS"))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
