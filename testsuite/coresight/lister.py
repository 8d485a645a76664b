"""OpenCSD's trc_pkt_lister as an oracle: its decode of a snapshot, per trace
ID, as the items a history must hold (lister-compare.py, replay-arm.py)."""

import os
import re
import subprocess
import tempfile

ELEM = re.compile(r"Idx:(\d+); ID:([0-9a-f]+); (OCSD_GEN_TRC_ELEM_\w+)\((.*)\)\s*$")
PACKET = re.compile(r"Idx:(\d+); ID:([0-9a-f]+); \[[^]]*\];\s+(I_\w+)")
RANGE = re.compile(r"exec range=0x([0-9a-f]+):\[0x([0-9a-f]+)\] num_i\((\d+)\) "
                   r"last_sz\((\d+)\) \(ISA=(\w+)\)")


def lister(snapshot):
    # The lister always writes trc_pkt_lister.ppl where it runs.
    with tempfile.TemporaryDirectory() as cwd:
        # LISTER_ARGS: more options, as -dstream_format.
        out = subprocess.run(["trc_pkt_lister", "-ss_dir",
                              os.path.abspath(snapshot), "-decode", "-logstdout"]
                             + os.environ.get("LISTER_ARGS", "").split(),
                             capture_output=True, text=True, check=True,
                             cwd=cwd).stdout
    elements, first_async = {}, {}
    for line in out.splitlines():
        m = PACKET.match(line)
        if m and m[3] == "I_ASYNC":
            first_async.setdefault(int(m[2], 16), int(m[1]))
            continue
        m = ELEM.match(line)
        if not m:
            continue
        idx, tid, kind, body = int(m[1]), int(m[2], 16), m[3], m[4]
        elements.setdefault(tid, []).append((kind, idx, body))
    return elements, first_async


def expected(elements, first_async_idx):
    """The lister's elements as the items our history must hold."""
    items, ranges = [], 0
    for kind, idx, body in elements:
        if kind == "OCSD_GEN_TRC_ELEM_INSTR_RANGE":
            r = RANGE.search(body)
            start, end, n, last, isa = (int(r[1], 16), int(r[2], 16),
                                        int(r[3]), int(r[4]), r[5])
            if isa not in ("A64", "A32"):
                raise SystemExit("lister range in %s: this comparison expands "
                                 "4-byte instructions only" % isa)
            if start + 4 * (n - 1) != end - last:
                raise SystemExit("lister range %s does not add up" % body)
            items += [("insn", start + 4 * i) for i in range(n)]
            ranges += 1
        elif kind == "OCSD_GEN_TRC_ELEM_ADDR_NACC":
            items.append(("nacc", int(body.split()[0], 16), idx))
        elif kind == "OCSD_GEN_TRC_ELEM_NO_SYNC":
            if "init-decoder" in body:
                # The lister prints no packets for a single-source buffer
                # (it lists ID 0): then whether bytes came before the first
                # A-sync is not known, and the gap is optional.
                if first_async_idx is None:
                    items.append(("unsynced?", idx))
                elif first_async_idx > idx:
                    items.append(("unsynced", idx))
            elif "overflow" in body:
                items.append(("overflow", idx))
            elif "bad-packet" in body or "discard" in body:
                items.append(("bad", idx))
        elif kind == "OCSD_GEN_TRC_ELEM_TRACE_ON":
            items.append(("trace-on", idx))
    return items, ranges
