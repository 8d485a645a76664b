"""GDB script of test-values-x87.sh: the x87 state at every instruction of
x87-prog's poly and mix, in the order execution meets them, one block per
stop: the pc, then `info float` (every physical register's 80 bits, its
tag, the status, control and tag words) without its last three lines
(the instruction and operand pointers and opcode).

  X87_PROBE_MODE=live    run the program forward (the oracle)
  X87_PROBE_MODE=replay  from the end of a recording, reverse-continue to
                         the start of its history (the list comes out
                         reversed: the shell script turns it round)

In replay mode every stop also checks that what the data log does not hold
is <unavailable>: fiseg, fioff, foseg, fooff, fop and mxcsr.  Output goes
to X87_PROBE_OUT."""

import os

import gdb

MODE = os.environ["X87_PROBE_MODE"]
out = open(os.environ["X87_PROBE_OUT"], "w")
NOT_LOGGED = ("fiseg", "fioff", "foseg", "fooff", "fop", "mxcsr")
gdb.execute("set pagination off")


def stop_block():
    pc = int(gdb.parse_and_eval("$pc"))
    lines = gdb.execute("info float", to_string=True).splitlines()
    keep = [line.rstrip() for line in lines
            if not line.startswith(("Instruction Pointer", "Operand Pointer",
                                    "Opcode"))]
    block = ["pc %#x" % pc] + keep
    if MODE == "replay":
        for name in NOT_LOGGED:
            text = gdb.execute("output $" + name, to_string=True)
            if "<unavailable>" not in text:
                block.append("SHOWN %s = %s (not in the data log)"
                             % (name, text))
    out.write("\n".join(block) + "\n--\n")


def instructions(function):
    block = gdb.block_for_pc(int(gdb.parse_and_eval("&" + function)))
    arch = gdb.selected_inferior().architecture()
    return [i["addr"] for i in arch.disassemble(block.start, block.end - 1)]


if MODE == "live":
    gdb.execute("break main")
    gdb.execute("run")
    gdb.execute("delete")
probed = set()
for function in ("poly", "mix"):
    for addr in instructions(function):
        gdb.execute("break *%#x" % addr, to_string=True)
        probed.add(addr)
try:
    if MODE == "replay":
        stop_block()    # the end: the crash
    command = "reverse-continue" if MODE == "replay" else "continue"
    for stops in range(2000):
        gdb.execute(command, to_string=True)
        try:
            pc = int(gdb.parse_and_eval("$pc"))
        except gdb.error:
            break       # the live program ended
        if pc not in probed:
            # live: the crash, the end of the recording; replay: the
            # start of the history
            if MODE == "live":
                stop_block()
            break
        stop_block()
    else:
        out.write("TOO MANY STOPS\n")
finally:
    out.close()
