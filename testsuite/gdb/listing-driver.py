"""Runs the same history listings under GDB's record btrace (reading our
trace through hwtrec-server's btrace mode) or under the plugin, inside GDB,
and writes which entries each listing showed, as JSON.

Numbers are written relative to the session's own counts (instructions N,
function segments M, position P), because the two decoders may count
differently; the windows (which entries, how many, what "+"/"-"/ranges
continue from) are record-btrace's, and the plugin must pick the same.

Environment: LST_MODE ("btrace" or "hwtrec"), LST_PROG, LST_RECORDING,
LST_SERVER, LST_OUT.
"""

import json
import os
import re

import gdb


def counts():
    text = gdb.execute("info record", to_string=True)
    m = re.search(r"Recorded (\d+) instructions in (\d+) functions", text)
    p = re.search(r"At instruction (\d+)", text)
    insns, calls = int(m.group(1)), int(m.group(2))
    return insns + 1, calls, int(p.group(1)) if p else insns + 1


def listing(command):
    try:
        text = gdb.execute(command, to_string=True)
    except gdb.error as err:
        return {"error": str(err)}
    numbers = [int(l.split("\t", 1)[0]) for l in text.splitlines()
               if re.match(r"\d+\t", l)]
    notes = [l for l in text.splitlines() if l.startswith("At the ")]
    return {"numbers": numbers, "notes": notes}


def main():
    mode = os.environ["LST_MODE"]
    gdb.execute("set pagination off")
    gdb.execute("file " + os.environ["LST_PROG"])
    gdb.execute("target remote | %s %s" % (os.environ["LST_SERVER"],
                                           os.environ["LST_RECORDING"]),
                to_string=True)
    if mode == "btrace":
        gdb.execute("record btrace pt", to_string=True)
    n, m, _ = counts()
    steps = []

    def run(label, command, base):
        result = listing(command)
        if "numbers" in result:
            result["numbers"] = [x - base for x in result["numbers"]]
        result["command"] = label
        steps.append(result)

    for kind, total in (("instruction-history", n),
                        ("function-call-history", m)):
        cmd = "record " + kind
        run(cmd, cmd, total)
        run(cmd + " -", cmd + " -", total)
        run(cmd + " -", cmd + " -", total)
        run(cmd + " +", cmd + " +", total)
        run(cmd + " +", cmd + " +", total)
        run(cmd + " +", cmd + " +", total)
        run(cmd + " 3,5", cmd + " 3,5", 0)
        run(cmd + " 2,+4", cmd + " 2,+4", 0)
        run(cmd + " 9,-4", cmd + " 9,-4", 0)
        run(cmd + " 2,-4", cmd + " 2,-4", 0)
        run(cmd + " 7", cmd + " 7", 0)
        run(cmd + " +", cmd + " +", 0)
        run(cmd + " T-3,T+5", cmd + " %d,%d" % (total - 3, total + 5), total)
        run(cmd + " T+1,T+2", cmd + " %d,%d" % (total + 1, total + 2), total)
        run(cmd + " 5,3", cmd + " 5,3", 0)
        run(cmd + " /junk", cmd + " /q", 0)
        run(cmd + " 1,2x", cmd + " 1,2x", 0)

    # At a past position: listings start from it.
    gdb.execute("record goto %d" % (n - 40), to_string=True)
    _, _, p = counts()
    steps.append({"command": "position", "numbers": [p - n]})
    run("record instruction-history (at P)", "record instruction-history", p)
    run("record instruction-history - (at P)", "record instruction-history -",
        p)
    # Segment numbers differ between decoders: note the window's extent and
    # that it holds the segment of P (record-btrace starts there and fills
    # up backwards when the end of the trace is near).
    text = gdb.execute("record function-call-history /i", to_string=True)
    numbers = [int(l.split("\t", 1)[0]) for l in text.splitlines()
               if re.match(r"\d+\t", l)]
    ranges = re.findall(r"inst (\d+),(\d+)", text)
    steps.append({"command": "record function-call-history (at P)",
                  "numbers": [x - numbers[0] for x in numbers] if numbers
                  else [],
                  "holds_P": any(int(a) <= p <= int(b) for a, b in ranges)})
    gdb.execute("record goto end", to_string=True)
    run("record instruction-history - (end)", "record instruction-history -",
        n)
    gdb.execute("record goto begin", to_string=True)
    run("record instruction-history (begin)", "record instruction-history", 0)
    run("record instruction-history - (begin)", "record instruction-history -",
        0)
    run("record function-call-history (begin)",
        "record function-call-history", 0)
    gdb.execute("set record instruction-history-size 3")
    run("record instruction-history (size 3)", "record instruction-history",
        0)
    with open(os.environ["LST_OUT"], "w") as f:
        json.dump(steps, f, indent=1)


main()
