# btrace-compare.py: run inside GDB connected to hwtrec-server.  Lists the
# function-call history twice for every thread: ours (qHwtr:call-history,
# libhwtrecord's decoder) and GDB's own btrace decoder reading the same raw
# Intel PT through btrace mode (`record btrace pt`), and compares them
# segment by segment: same count, same call levels, same instruction ranges,
# and the same function (a name GDB gives may be another alias of the same
# address).  Known, counted differences: GDB's synthetic `NAME@plt` symbols
# for PLT stubs, and GDB's extra instruction at the very end (the current PC,
# which GDB's btrace appends and our history keeps as the core's position);
# segments our symbolizer leaves unnamed ("??") are counted and printed.
import json
import re

import gdb

conn = gdb.selected_inferior().connection
failures = []


def ask(packet):
    reply = conn.send_packet(packet)
    if isinstance(reply, bytes):
        reply = reply.decode()
    if reply.startswith("E."):
        raise gdb.GdbError(reply)
    return bytes.fromhex(reply).decode()


def parse(text, who):
    segs = []
    for line in text.splitlines():
        m = re.match(r"(\d+)\t( *)(.+?)\tinst (\d+),(\d+)", line)
        if m:
            segs.append((int(m.group(1)), len(m.group(2)) // 2, m.group(3),
                         int(m.group(4)), int(m.group(5))))
        elif line.strip():
            failures.append("%s: unexpected line %r" % (who, line))
    return segs


def same_function(tid, number):
    """Whether our name and GDB's for the first instruction of segment
    NUMBER have the same offset: then both name the same function start."""
    seg = ask("qHwtr:call-history:%x:%x,%x:2" % (tid, number, number))
    m = re.search(r"inst (\d+),", seg)
    if not m:
        return False
    first = int(m.group(1))
    insn = ask("qHwtr:insn-history:%x:%x,%x:0" % (tid, first, first))
    m = re.search(r"0x([0-9a-f]+) <[^>]*?(?:\+(\d+))?>", insn)
    if not m:
        return False
    ours_off = int(m.group(2) or 0)
    where = gdb.execute("info symbol 0x%s" % m.group(1), to_string=True)
    g = re.match(r".+?(?: \+ (\d+))? in section", where)  # names may have spaces
    return bool(g) and int(g.group(1) or 0) == ours_off


info = json.loads(ask("qHwtr:info:1"))
ours = {}
for t in info["threads"]:
    if t["segments"]:
        ours[t["tid"]] = parse(ask("qHwtr:call-history:%x:1,%x:6" % (t["tid"], t["segments"])),
                               "ours")
gdb.execute("record btrace pt")
compared = plt = aliases = unnamed = 0
for t in info["threads"]:
    if t["tid"] not in ours:
        continue
    gdb.execute("thread find %d" % t["tid"], to_string=True)
    for th in gdb.selected_inferior().threads():
        if th.ptid[1] == t["tid"] or th.ptid[2] == t["tid"]:
            th.switch()
    a = ours[t["tid"]]
    b = parse(gdb.execute("record function-call-history /ic 1,%d" % (len(a) + 10),
                          to_string=True), "GDB")
    if len(a) != len(b):
        failures.append("thread %d: %d segments, GDB %d" % (t["tid"], len(a), len(b)))
    for i, (x, y) in enumerate(zip(a, b)):
        last = i == len(a) - 1
        end_ok = x[4] == y[4] or (last and y[4] == x[4] + 1)
        if x[1] != y[1] or x[3] != y[3] or not end_ok:
            failures.append("thread %d segment %d: ours %s, GDB %s" % (t["tid"], x[0], x, y))
            continue
        compared += 1
        if x[2] == y[2]:
            continue
        if y[2].endswith("@plt"):
            plt += 1
            continue
        if x[2] == "??":
            unnamed += 1  # our symbolizer has no name here (reported, known)
            print("unnamed by us: thread %d segment %d, GDB says %s" % (t["tid"], x[0], y[2]))
            continue
        try:
            if same_function(t["tid"], x[0]):
                aliases += 1
                continue
        except gdb.GdbError as e:
            failures.append("thread %d segment %d: our instruction listing failed: %s"
                            % (t["tid"], x[0], e))
            continue
        failures.append("thread %d segment %d: function %s, GDB %s" % (t["tid"], x[0], x[2], y[2]))
print("btrace-compare: %d segments compared, %d names are aliases, %d PLT stubs "
      "(GDB names them NAME@plt), %d unnamed by us, %d failures"
      % (compared, aliases, plt, unnamed, len(failures)))
for f in failures[:20]:
    print("FAIL:", f)
print("btrace-compare: %s" % ("PASS" if compared and not failures else "FAIL"))
