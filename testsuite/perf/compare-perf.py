#!/usr/bin/env python3
"""compare-perf.py insn|branch PERF_OUT HWTREC_DUMP: does perf's decoder list
the same instructions (perf script --itrace=i1i -F tid,ip) or taken branches
(--itrace=b -F hw:tid,ip,addr,flags) per thread as `hwtrec dump --insn /r`?

From hwtrec's listing, a taken branch is an instruction whose successor is
not the next one in memory (its size comes from the raw bytes /r prints),
or an unconditional jump, call or return (one may go to the next
instruction: jmp *%rax with %rax there);
perf also lists where tracing stops and starts again ("tr end"/"tr strt",
with address 0), which are not branches of the program.  Prints one line per
thread with the count compared; exits 1 at the first difference."""
import collections
import re
import sys

mode, perf_out, dump = sys.argv[1:4]

ours = collections.OrderedDict()
tid = None
line_re = re.compile(r'^\d+\t[ =?>]{3}0x([0-9a-f]+)[^\t]*:\t((?:[0-9a-f]{2} ?)+)\t(\S+)')
ALWAYS = ('jmp', 'call', 'ret', 'ljmp', 'lcall', 'lret')
for line in open(dump):
    m = re.match(r'^Thread (\d+):', line)
    if m:
        tid = int(m.group(1))
        ours[tid] = []
        continue
    m = line_re.match(line)
    if m:
        if tid is None:
            tid = 0
            ours[tid] = []
        ours[tid].append((int(m.group(1), 16), len(m.group(2).split()),
                          m.group(3).startswith(ALWAYS)))
    elif re.match(r'^\d+\t', line):
        ours.setdefault(tid, []).append(None)    # a gap

perf = collections.defaultdict(list)
for line in open(perf_out):
    f = line.split()
    if not f:
        continue
    if mode == 'insn':
        perf[int(f[0])].append(int(f[1], 16))
    else:
        # TID FLAGS... FROM => TO
        arrow = f.index('=>')
        src, dst = int(f[arrow - 1], 16), int(f[arrow + 1], 16)
        if src and dst:
            perf[int(f[0])].append((src, dst))

# One thread: hwtrec prints no "Thread N:" header; it is perf's one thread.
if len(ours) == 1 and 0 in ours and len(perf) == 1:
    ours = {next(iter(perf)): ours[0]}
ok = True
for t in sorted(set(ours) | set(perf)):
    mine = ours.get(t, [])
    if mode == 'insn':
        want = [i[0] for i in mine if i]
    else:
        want = [(a[0], b[0]) for a, b in zip(mine, mine[1:])
                if a and b and (b[0] != a[0] + a[1] or a[2])]
    got = perf.get(t, [])
    if got != want:
        ok = False
        k = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]),
                 min(len(got), len(want)))
        print(f"thread {t}: perf lists {len(got)} {mode}, hwtrec {len(want)}; "
              f"first difference at {k}: perf {got[k] if k < len(got) else '-'} "
              f"hwtrec {want[k] if k < len(want) else '-'}")
        break
    print(f"thread {t}: {len(want)} {'instructions' if mode == 'insn' else 'branches'} agree")
sys.exit(0 if ok else 1)
