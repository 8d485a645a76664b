# values-oracle.py: the independent oracle of the value tests: GDB
# single-steps the program under Valgrind's own gdbserver (vgdb, precise
# stepping with --vgdb=full) and writes, before every instruction, the
# registers and the bytes of the named globals, as Valgrind's CPU state
# holds them.  A REP string instruction is one instruction (one line),
# however many iterations Valgrind steps through; a stop for a signal is
# not one (the instruction there runs after the handler).  An instruction
# that faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE at its own PC) did not run,
# as a trace leaves it out: its step is taken back ("F pos pc" says where;
# the next instruction has that position).
#
# Run as: gdb -batch -nx -x values-oracle.py, with the environment
#   ORACLE_PROGRAM  the program (symbols), ORACLE_VGDB_PREFIX  vgdb's prefix,
#   ORACLE_OUT  the output file, ORACLE_GLOBALS  "name:size name:size ...".
# Lines: "I pos pc" then "R name hex" per register, "M name addr hex";
# "F pos pc" for a fault.
import gdb
import os

REGS = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
        "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "eflags"] + \
       ["xmm%d" % i for i in range(16)]


def rep_string(code):
    i, rep = 0, False
    while i < len(code):
        b = code[i]
        if b in (0xf2, 0xf3):
            rep = True
        elif b not in (0xf0, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65, 0x66, 0x67):
            break
        i += 1
    if i < len(code) and (code[i] & 0xf0) == 0x40:
        i += 1
    return rep and i < len(code) and (0x6c <= code[i] <= 0x6f or
                                      0xa4 <= code[i] <= 0xa7 or
                                      0xaa <= code[i] <= 0xaf)


def reg_value(frame, name):
    v = frame.read_register(name)
    if name.startswith("xmm"):
        halves = v["v2_int64"]
        return ((int(halves[1]) & ((1 << 64) - 1)) << 64) | \
            (int(halves[0]) & ((1 << 64) - 1))
    return int(v) & ((1 << 64) - 1)


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("file " + os.environ["ORACLE_PROGRAM"])
    gdb.execute("target remote | vgdb --vgdb-prefix=" +
                os.environ["ORACLE_VGDB_PREFIX"])
    gdb.execute("handle SIGUSR1 stop print pass")
    gdb.execute("break *main")
    gdb.execute("continue")
    gdb.execute("delete")
    globs = []
    for item in os.environ.get("ORACLE_GLOBALS", "").split():
        name, size = item.split(":")
        addr = int(gdb.parse_and_eval("(long)&" + name))
        globs.append((name, addr, int(size)))
    inf = gdb.selected_inferior()
    # A stop for a signal is at an instruction that has not run yet: the
    # next stepi enters the handler, and the instruction runs after it.
    signal_stop = [False]
    fault_stop = [False]

    def on_stop(event):
        signal_stop[0] = isinstance(event, gdb.SignalEvent)
        fault_stop[0] = signal_stop[0] and \
            event.stop_signal in ("SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE")
    gdb.events.stop.connect(on_stop)
    pos, prev_pc = 0, None
    # The last step's lines, written when the next step shows that its
    # instruction ran.
    pending, pending_pc = [], None
    with open(os.environ["ORACLE_OUT"], "w") as out:
        while True:
            frame = gdb.selected_frame()
            pc = int(frame.pc())
            code = bytes(inf.read_memory(pc, 15))
            if fault_stop[0] and pending and pc == pending_pc:
                pending, pending_pc = [], None
                out.write("F %d 0x%x\n" % (pos, pc))
                pos -= 1
            elif not signal_stop[0] and not (pc == prev_pc and
                                             rep_string(code)):
                out.writelines(pending)
                pos += 1
                pending, pending_pc = ["I %d 0x%x\n" % (pos, pc)], pc
                for r in REGS:
                    pending.append("R %s 0x%x\n" % (r, reg_value(frame, r)))
                for name, addr, size in globs:
                    pending.append("M %s 0x%x %s\n" % (
                        name, addr, bytes(inf.read_memory(addr, size)).hex()))
            prev_pc = pc
            try:
                gdb.execute("stepi", to_string=True)
            except gdb.error:
                break
            if not inf.pid or not inf.threads():
                break
        out.writelines(pending)
        out.write("E %d\n" % pos)


try:
    main()
except Exception as e:
    print("values-oracle: %s" % e)
    raise
