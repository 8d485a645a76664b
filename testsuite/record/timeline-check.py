#!/usr/bin/env python3
"""Check a `hwtrec export --timeline` file (timeline.test).

    timeline-check.py TRACE.json CALLS.jsonl [--min-insns N]
        [--stepper LISTING --function NAME:ENTRY:RET ...]
        [--time instructions | --time tsc --tsc-spans PT-TIMES-OUTPUT]

- The file parses as JSON, and per thread, in file order: times never go
  back, every E closes the innermost open B, nothing is left open.
- Per thread, the slices are exactly the activations that `hwtrec dump
  --calls --json` (CALLS) gives, at least N instructions long: an activation
  is a chain of segments linked by prev/next, from its first segment's first
  instruction to the first later segment at its level or below (or a gap, or
  the thread's end).  Same first segment, name, begin and end (the
  events' "insn").  Gaps are instant events at the gap's instruction with
  its kind and message.
- With --time instructions: otherData says so and every ts is the event's
  instruction number.  With --time tsc: otherData says so, and against
  hwtr-pt-times (libipt's packet decoder on each raw stream, lines "PATH
  FIRST LAST COUNT", the tid the name of PATH): every event's time
  (ts * tsc_ticks_per_ts + tsc_origin) lies between its thread's first and last TSC packet,
  the thread's first instruction is at exactly its first TSC (the stream
  starts with a PSB+ holding it), and tsc_origin is the earliest of them.
- With --stepper (the ptrace single-stepper's --offsets listing of the
  program's own code), for the functions named (file offsets of the entry
  and of the one `ret`; functions that call no other code), the slices of
  those names in order have the names and instruction counts that the
  stepper's listing gives: an activation runs from the entry to its ret,
  counted on the stepper's listing.
"""
import argparse
import json
import sys


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def read_timeline(path):
    with open(path) as f:
        doc = json.load(f)
    slices, instants, names = {}, {}, {}
    open_, last_ts, times = {}, {}, {}
    for ev in doc["traceEvents"]:
        tid = ev["tid"]
        ph = ev["ph"]
        if ph == "M":
            if ev["name"] == "thread_name":
                names[tid] = ev["args"]["name"]
            continue
        ts = ev["ts"]
        if ts < last_ts.get(tid, 0):
            fail("thread %d: time goes back from %d to %d" % (tid, last_ts[tid], ts))
        last_ts[tid] = ts
        times.setdefault(tid, []).append((ev["args"]["insn"], ts))
        stack = open_.setdefault(tid, [])
        if ph == "B":
            stack.append(ev)
        elif ph == "E":
            if not stack:
                fail("thread %d: E at %d with no open slice" % (tid, ts))
            b = stack.pop()
            if ts < b["ts"]:
                fail("thread %d: slice %s ends at %d before it begins at %d"
                     % (tid, b["name"], ts, b["ts"]))
            slices.setdefault(tid, []).append(
                (b["args"]["segment"], b["name"], b["args"]["insn"],
                 ev["args"]["insn"]))
        elif ph == "i":
            instants.setdefault(tid, []).append(
                (ev["args"]["insn"], ev["args"]["kind"], ev["args"]["reason"]))
        else:
            fail("unexpected event phase %r" % ph)
    for tid, stack in open_.items():
        if stack:
            fail("thread %d: %d slices left open" % (tid, len(stack)))
    for tid in slices:
        slices[tid].sort()
    return doc, slices, instants, names, times


def expected_activations(calls_path, min_insns):
    """Per thread: activations (first segment, name, begin, end) from the
    segments, and the gaps (insn, kind, message); also the total count."""
    segs = {}
    with open(calls_path) as f:
        for line in f:
            s = json.loads(line)
            segs.setdefault(s["thread"], []).append(s)
    acts, gaps, total = {}, {}, 0
    for tid, ss in segs.items():
        ss.sort(key=lambda s: s["number"])
        index = {s["number"]: i for i, s in enumerate(ss)}
        thread_end = ss[-1]["insn_end"] + 1
        acts[tid], gaps[tid] = [], []
        for i, s in enumerate(ss):
            if "gap" in s:
                gaps[tid].append((s["insn_begin"], s["gap"]["error"],
                                  s["gap"]["message"]))
                continue
            if "prev" in s:
                continue
            last = i
            while "next" in ss[last]:
                last = index[ss[last]["next"]]
            for k in range(i + 1, last):
                if "gap" in ss[k] or ss[k]["level"] < s["level"]:
                    fail("thread %d: segments %d..%d of one activation hold "
                         "segment %d below it" % (tid, s["number"],
                                                  ss[last]["number"], ss[k]["number"]))
            end = thread_end
            for k in range(last + 1, len(ss)):
                if "gap" in ss[k] or ss[k]["level"] <= s["level"]:
                    end = ss[k]["insn_begin"]
                    break
            total += 1
            if end - s["insn_begin"] >= min_insns:
                acts[tid].append((s["number"], s.get("function", "??"),
                                  s["insn_begin"], end))
    return acts, gaps, total


def stepper_activations(listing, functions):
    """(name, instructions) per activation of the functions, in entry order."""
    entry = {int(e, 16): n for n, e, r in functions}
    ret = {int(r, 16): n for n, e, r in functions}
    out, stack, count = [], [], 0
    with open(listing) as f:
        for line in f:
            if line.startswith("#"):
                continue
            off = int(line.split()[2], 16)
            count += 1
            if off in entry:
                stack.append((len(out), count))
                out.append([entry[off], None])
            if off in ret:
                i, begin = stack.pop()
                if out[i][0] != ret[off]:
                    fail("stepper: %s returns from %s's activation" % (ret[off], out[i][0]))
                out[i][1] = count - begin + 1
    if stack:
        fail("stepper: %d activations never returned" % len(stack))
    return [tuple(a) for a in out]


def check_times(a, other, times):
    if other["time_unit"] != a.time:
        fail("otherData says time_unit %r, expected %r (%s)"
             % (other["time_unit"], a.time, other.get("time_note")))
    if a.time == "instructions":
        for tid, tt in times.items():
            for insn, ts in tt:
                if ts != insn:
                    fail("thread %d: ts %d for instruction %d" % (tid, ts, insn))
        print("ok: times are instruction numbers, as otherData says")
        return
    spans = {}
    with open(a.tsc_spans) as f:
        for line in f:
            path, first, last, count = line.split()
            tid = int(path.rsplit("/", 1)[-1].split(".")[0])
            spans[tid] = (int(first), int(last), int(count))
    origin = other["tsc_origin"]
    scale = other["tsc_ticks_per_ts"]
    if origin != min(spans[tid][0] for tid in times):
        fail("tsc_origin %d is not the earliest first TSC %d"
             % (origin, min(spans[tid][0] for tid in times)))
    for tid, tt in times.items():
        first, last, count = spans[tid]
        if not count:
            fail("thread %d: the stream has no TSC packet" % tid)
        for insn, ts in tt:
            tsc = round(ts * scale) + origin
            if not first <= tsc <= last:
                fail("thread %d: instruction %d at TSC %d, outside the "
                     "stream's TSC packets %d..%d" % (tid, insn, tsc,
                                                      first, last))
            if insn == 1 and tsc != first:
                fail("thread %d: instruction 1 at TSC %d, the stream's "
                     "first TSC is %d" % (tid, tsc, first))
    print("ok: %d threads' times lie within their streams' TSC packets, "
          "each thread's start at its first TSC" % len(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("calls")
    ap.add_argument("--min-insns", type=int, default=0)
    ap.add_argument("--stepper")
    ap.add_argument("--function", action="append", default=[])
    ap.add_argument("--time", choices=["instructions", "tsc"])
    ap.add_argument("--tsc-spans")
    a = ap.parse_args()

    doc, slices, instants, names, times = read_timeline(a.trace)
    acts, gaps, total = expected_activations(a.calls, max(a.min_insns, 1))
    other = doc["otherData"]
    for tid in acts:
        got = slices.get(tid, [])
        if got != acts[tid]:
            diff = [x for x in got if x not in acts[tid]][:3]
            miss = [x for x in acts[tid] if x not in got][:3]
            fail("thread %d: %d slices, dump --calls gives %d activations; "
                 "extra %s, missing %s" % (tid, len(got), len(acts[tid]), diff, miss))
        if instants.get(tid, []) != gaps[tid]:
            fail("thread %d: instant events %s, gaps in dump --calls %s"
                 % (tid, instants.get(tid, [])[:3], gaps[tid][:3]))
        if tid not in names:
            fail("thread %d has no thread_name" % tid)
    extra = set(slices) - set(acts)
    if extra:
        fail("slices for threads dump --calls does not list: %s" % sorted(extra))
    kept = sum(len(v) for v in acts.values())
    if (other["min_insns"], other["slices"], other["dropped_slices"]) != \
       (max(a.min_insns, 1), kept, total - kept):
        fail("otherData says min_insns %d, %d slices, %d dropped; expected "
             "%d, %d, %d" % (other["min_insns"], other["slices"],
                             other["dropped_slices"], max(a.min_insns, 1),
                             kept, total - kept))
    print("ok: %d threads, %d slices (%d below %d instructions left out), "
          "%d gaps, as dump --calls" % (len(acts), kept, total - kept,
                                         max(a.min_insns, 1),
                                         sum(len(g) for g in gaps.values())))

    if a.time:
        check_times(a, other, times)
    if a.stepper:
        functions = [f.split(":") for f in a.function]
        want = stepper_activations(a.stepper, functions)
        wanted = {n for n, e, r in functions}
        if a.min_insns:
            want = [w for w in want if w[1] >= a.min_insns]
        got = [(s[1], s[3] - s[2])
               for tid in sorted(slices) for s in sorted(slices[tid], key=lambda s: s[2])
               if s[1] in wanted]
        if got != want:
            for i, (g, w) in enumerate(zip(got, want)):
                if g != w:
                    fail("activation %d of %s: timeline %s, stepper %s"
                         % (i, sorted(wanted), g, w))
            fail("timeline has %d activations of %s, stepper %d"
                 % (len(got), sorted(wanted), len(want)))
        print("ok: %d activations of %s in the stepper's order and lengths"
              % (len(want), ", ".join(sorted(wanted))))


main()
