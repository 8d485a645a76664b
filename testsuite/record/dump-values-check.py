#!/usr/bin/env python3
# dump-values-check.py ORACLE DUMP.jsonl: `hwtrec dump --insn --json
# --values` against the oracle of values-oracle.py (GDB single-stepping the
# same run under Valgrind's gdbserver: registers and the globals' bytes
# before every instruction).
#
# For every instruction N but the last: the PCs line up; "regs" lists
# exactly the oracle's registers (GPRs, eflags, xmm0-15) whose value before
# N + 1 differs from before N, with the value before N + 1; every byte of a
# global that changed is in a store with the oracle's old and new byte, and
# every store byte on a global has them (none "??": the globals are always
# mapped and the recording has its core).  Then a few instructions by
# name, with concrete values: main's `push %rbp`, the `mov` of a register
# into g_sum and into g_signalled, fill()'s `rep stosb` and read()'s
# `syscall` (the kernel's store).  Prints counts; exit 1 on any mismatch.
import json
import re
import sys


def read_oracle(path):
    steps, cur = [], None
    for line in open(path):
        f = line.split()
        if f[0] == "I":
            cur = {"pc": int(f[2], 16), "regs": {}, "mem": {}}
            steps.append(cur)
        elif f[0] == "R":
            value = int(f[2], 16)
            # Valgrind's gdbserver leaves out IF and reserved bit 1,
            # which user code always has (as values-check.c).
            if f[1] == "eflags":
                value |= 0x202
            cur["regs"][f[1]] = value
        elif f[0] == "M":
            cur["mem"][f[1]] = (int(f[2], 16), bytes.fromhex(f[3]))
    return steps


def main():
    steps = read_oracle(sys.argv[1])
    insns = [json.loads(l) for l in open(sys.argv[2])]
    insns = [i for i in insns if "gap" not in i]
    bad = []

    def fail(msg):
        if len(bad) < 20:
            print("MISMATCH " + msg)
        bad.append(msg)

    if len(insns) != len(steps):
        print("dump has %d instructions, the oracle %d" %
              (len(insns), len(steps)))
        return 1
    globs = steps[0]["mem"]
    nregs = nbytes = nstores = 0
    for n, (ins, st) in enumerate(zip(insns, steps)):
        if int(ins["ip"], 16) != st["pc"]:
            fail("#%d: ip %s, oracle 0x%x" % (ins["number"], ins["ip"],
                                             st["pc"]))
            break
        if n + 1 == len(steps):
            break
        nxt = steps[n + 1]
        where = "#%d %s" % (ins["number"], ins["insn"])
        regs = ins.get("regs")
        if regs is None:
            fail("%s: registers not known" % where)
        else:
            for r, before in st["regs"].items():
                after = nxt["regs"][r]
                nregs += 1
                if after != before and regs.get(r) is None:
                    fail("%s: %s changed to 0x%x, not listed" %
                         (where, r, after))
                elif r in regs and int(regs[r], 16) != after:
                    fail("%s: %s = %s, oracle 0x%x" % (where, r, regs[r],
                                                      after))
                elif r in regs and after == before:
                    fail("%s: %s listed, unchanged" % (where, r))
        stores = ins.get("stores")
        if stores is None:
            fail("%s: stores not known" % where)
            continue
        nstores += len(stores)
        covered = {}
        for s in stores:
            if s.get("unknown"):
                continue
            a = int(s["addr"], 16)
            for i in range(s["size"]):
                covered[a + i] = (int(s["old"][2 * i:2 * i + 2], 16),
                                  s["new"][2 * i:2 * i + 2])
        for name, (addr, old) in st["mem"].items():
            new = nxt["mem"][name][1]
            for i in range(len(old)):
                nbytes += 1
                c = covered.get(addr + i)
                if c is None:
                    if old[i] != new[i]:
                        fail("%s: %s+%d changed 0x%02x -> 0x%02x, no store"
                             % (where, name, i, old[i], new[i]))
                    continue
                if c[0] != old[i] or c[1] != "%02x" % new[i]:
                    fail("%s: %s+%d old 0x%02x new %s, oracle 0x%02x 0x%02x"
                         % (where, name, i, c[0], c[1], old[i], new[i]))

    def find(pattern, function=None):
        return [(n, i) for n, i in enumerate(insns[:-1])
                if re.search(pattern, i["insn"]) and
                (function is None or i.get("function") == function)]

    def expect_store(n, addr, data, what):
        for s in insns[n].get("stores") or []:
            if int(s["addr"], 16) == addr and s["size"] == len(data) and \
                    s.get("new") == data.hex():
                return
        fail("%s: no store of %s at 0x%x in %s" %
             (what, data.hex(), addr, insns[n].get("stores")))

    named = 0
    # main's first instruction, push %rbp: rbp's bytes below rsp.
    n, i = find(r"^push\s+%rbp$", "main")[0]
    expect_store(n, steps[n]["regs"]["rsp"] - 8,
                 steps[n]["regs"]["rbp"].to_bytes(8, "little"), "push %rbp")
    named += 1
    # g_sum += square(i): a mov of rax into g_sum.
    for n, i in find(r"^mov\s+%%rax,0x[0-9a-f]+\(%%rip\)\s+# 0x%x$" %
                     globs["g_sum"][0]):
        expect_store(n, globs["g_sum"][0],
                     steps[n]["regs"]["rax"].to_bytes(8, "little"),
                     "mov %rax,g_sum")
        named += 1
    # the handler's g_signalled = sig: a 32-bit mov.
    for n, i in find(r"^mov\s+%%e[a-z]+,0x[0-9a-f]+\(%%rip\)\s+# 0x%x$" %
                     globs["g_signalled"][0]):
        reg = re.match(r"mov\s+%e([a-z]+)", i["insn"]).group(1)
        expect_store(n, globs["g_signalled"][0],
                     (steps[n]["regs"]["r" + reg] & 0xffffffff)
                     .to_bytes(4, "little"), "mov to g_signalled")
        named += 1
    # fill(g_buf + 24, 'z', 8): one store of 8 bytes.
    n, i = find(r"^rep stos")[0]
    expect_store(n, globs["g_buf"][0] + 24, b"z" * 8, "rep stosb")
    named += 1
    # read(fds[0], g_buf + 40, 7): the kernel's store, at the syscall.
    hits = [(n, i) for n, i in find(r"^syscall")
            if any(int(s["addr"], 16) == globs["g_buf"][0] + 40
                   for s in i.get("stores") or [])]
    if len(hits) != 1:
        fail("read's syscall: %d instructions store into g_buf+40" %
             len(hits))
    else:
        expect_store(hits[0][0], globs["g_buf"][0] + 40, b"kernel!",
                     "read() syscall")
        named += 1
    # push, rep stosb, read(); 13 movs into g_sum, 1 into g_signalled
    if named < 3 + 13 + 1:
        fail("only %d named instructions found" % named)
    print("dump-values-check: %d instructions, %d registers, %d global bytes,"
          " %d stores, %d named instructions compared: %d mismatches" %
          (len(insns), nregs, nbytes, nstores, named, len(bad)))
    return 1 if bad else 0


sys.exit(main())
