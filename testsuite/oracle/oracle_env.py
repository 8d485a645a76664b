"""oracle_env.py: the environment of a GDB that runs the record-full oracle,
and of the program that GDB starts.

The oracle's GDB preloads libxstate-setregset.so (xstate-setregset.c: the
whole XSAVE area for PTRACE_SETREGSET, which lets GDB 13's native `record
full` step back over SSE code on hosts with AMX, as gdbserver does, without
a round trip per step).  The test directories name the library in
HWTREC_ORACLE_PRELOAD; the program under test must not load it, or its
run would differ from the one hwtrec records.

Used outside GDB by the launchers (gdb_environment) and inside it by
record_full.py (program_preload)."""

import os

PRELOAD_ENV = "HWTREC_ORACLE_PRELOAD"


def preload_library(env=None):
    """The library's path when it is named and built, else None."""
    lib = (os.environ if env is None else env).get(PRELOAD_ENV)
    return lib if lib and os.path.exists(lib) else None


def gdb_environment(env=None):
    """ENV (default: this process's) with the library preloaded, for the
    GDB that runs the oracle."""
    env = dict(os.environ if env is None else env)
    lib = preload_library(env)
    if lib:
        env["LD_PRELOAD"] = ":".join(
            [lib] + [p for p in env.get("LD_PRELOAD", "").split(":") if p])
    return env


def program_preload(env=None):
    """LD_PRELOAD for the program the oracle's GDB starts: GDB's own
    without the library ("" when nothing is left)."""
    env = os.environ if env is None else env
    lib = env.get(PRELOAD_ENV)
    return ":".join(p for p in env.get("LD_PRELOAD", "").split(":")
                    if p and p != lib)


def preloaded(env=None):
    """Whether this process (a GDB) runs with the library."""
    env = os.environ if env is None else env
    lib = env.get(PRELOAD_ENV)
    return bool(lib) and lib in env.get("LD_PRELOAD", "").split(":")
