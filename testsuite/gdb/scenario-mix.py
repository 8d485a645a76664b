#!/usr/bin/env python3
"""Random command mixes for the scenario harness: commands no one wrote
by hand, compared with record full the same way as the written scenarios.

  scenario-mix.py [--seed N] [--commands K] TEMPLATE.scn OUT.scn

TEMPLATE is a written scenario (scenarios/*.scn): its directives (program,
end signal, what is not compared and why) are kept, its commands are not.
OUT gets K commands (default 40) drawn with seed N from the moves a user
makes after a crash: reverse-step/next/stepi/finish and their forward
twins, up/down, breakpoints on the program's own lines and functions
with reverse-continue, `info locals`/`info args`/`bt`.  Run OUT with
run-scenario (`make mix` in testsuite/gdb runs a set of them).

A difference is not always ours: a local read before its first store
holds what earlier calls left on the stack, which differs between the
native run and the run under Valgrind; triage each by hand.
"""

import argparse
import importlib.machinery
import importlib.util
import os
import random
import re
import sys

# Directives that describe the program and its comparison, not a stop.
KEEP = ("#program", "#end-signal", "#record-from", "#record-options", "#pie",
        "#whole-stack", "#ignore ", "#values", "#must-know", "#compare-output",
        "#compare-prints", "#setup", "#setup-full", "#heap-anchor",
        "#server-env", "#no-history-numbers")

FUNCTION_DEF = re.compile(
    r"^(?:static\s+|inline\s+|extern\s+)*[A-Za-z_][\w\s\*&:<>,]*?\b"
    r"([A-Za-z_]\w*)\s*\(([^;]*)$")
NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "sizeof", "main"}


def template_header(path):
    header = []
    with open(path) as f:
        for line in f:
            if line.startswith(KEEP) or line.rstrip() in KEEP:
                header.append(line.rstrip("\n"))
    return header


def run_scenario():
    """run-scenario as a module: its program_source (no .py suffix)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "run-scenario")
    loader = importlib.machinery.SourceFileLoader("run_scenario", path)
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_loader("run_scenario", loader))
    loader.exec_module(module)
    return module


def source_places(path):
    """The program's own functions and the lines of statements in them."""
    functions, lines = [], []
    depth = 0
    with open(path) as f:
        for number, text in enumerate(f, 1):
            stripped = text.strip()
            if depth == 0:
                m = FUNCTION_DEF.match(text)
                if m and m.group(1) not in NOT_FUNCTIONS and \
                        "operator" not in text:
                    functions.append(m.group(1))
            elif stripped.endswith(";") and not stripped.startswith(
                    ("//", "/*", "*", "#", "return;")) and \
                    "static " not in stripped:
                lines.append(number)
            depth += text.count("{") - text.count("}")
            depth = max(depth, 0)
    return functions, lines


def data_moves(rng, name, lines, known, watch=True):
    """With --data-moves, on a recording with its data log: what a user
    asks of values in the past, drawn over KNOWN (the template's #must-know
    globals): a breakpoint whose condition reads one (GDB evaluates it at
    every hit, so a wrong value there stops elsewhere), a software
    watchpoint on one with reverse-continue (not with WATCH false: where
    record full starts later than hwtrec's history, GDB single-steps a
    software watchpoint back over all the code before, which takes longer
    than run-scenario waits), a print of one."""
    def condition():
        modulo = rng.randint(2, 4)
        return "(long)(%s) %% %d == %d" % (rng.choice(known), modulo,
                                           rng.randrange(modulo))
    moves = [(2, lambda: ["watch %s" % rng.choice(known), "reverse-continue",
                          "delete"], 3)] if watch else []
    moves.append((2, lambda: "p %s" % rng.choice(known), 0))
    if lines:
        moves.append((3, lambda: ["break %s:%d if %s" % (
            name, rng.choice(lines), condition()), "reverse-continue",
            "delete"], 3))
    return moves


def more_moves(rng, name, lines, functions, data):
    """With --more-moves: the commands no other draw makes.  Returned as
    (reverse, forward, still) lists of moves, as commands() takes them.
    until/advance (to a line or function), finish and reverse-finish from
    an outer frame (`up` first: GDB finishes frame 1), ignore counts on a
    breakpoint both ways and `continue N`, `record goto end` and `begin`
    (begin takes record full to its history's start, main: there the
    comparison stops, so it is rare), stepi/nexti counts over calls (the
    PLT in dynamically linked programs), and the frame and memory commands
    that print (`info frame`, `x/4i $pc`, `x/8gx $sp`, `info line`,
    `display`).  With DATA (a data-log template): a location watchpoint on
    the stack slot at $sp (a local's or a saved register's) followed back.
    Not drawn: `record goto N` (instruction numbers count from each half's
    own start) and rwatch/awatch (GDB 13's record full never triggers a
    hardware watchpoint while it replays, and read watchpoints have no
    software form)."""
    def line():
        return "%s:%d" % (name, rng.choice(lines))
    reverse = [
        (3, lambda: ["up", "reverse-finish"], 1),
        (2, lambda: "reverse-nexti %d" % rng.randint(2, 12), 1),
        (1, lambda: ["record goto begin", "stepi", "next"], 0),
    ]
    forward = [
        (4, lambda: "until", -1),
        (2, lambda: "nexti %d" % rng.randint(2, 12), -1),
        (2, lambda: "stepi %d" % rng.randint(2, 12), -1),
        (2, lambda: ["up", "finish"], -1),
        (1, lambda: ["record goto end", "reverse-next"], 0),
    ]
    still = [
        (2, lambda: "info frame", 0),
        (2, lambda: "x/4i $pc", 0),
        (1, lambda: "x/8gx $sp", 0),
        (1, lambda: "p $sp", 0),
        (1, lambda: "info line", 0),
        (1, lambda: ["display/i $pc", "reverse-stepi", "stepi",
                     "undisplay"], 0),
    ]
    if lines:
        reverse.append((3, lambda: ["break %s" % line(), "ignore $bpnum %d"
                                    % rng.randint(1, 3), "reverse-continue",
                                    "delete"], 3))
        forward += [
            (3, lambda: "until %s" % line(), -2),
            (3, lambda: "advance %s" % line(), -2),
            (2, lambda: ["break %s" % line(), "continue %d"
                         % rng.randint(2, 3), "delete"], -2),
        ]
    if functions:
        forward.append((2, lambda: "advance %s" % rng.choice(functions), -2))
    if data:
        # A software watchpoint in both halves: GDB 13's record full never
        # triggers a hardware one while it replays (values-types seed 14,
        # live: record full ran back to main over middle's store into the
        # slot, where hwtrec stopped).
        reverse.append((2, lambda: ["set can-use-hw-watchpoints 0",
                                    "watch -l *(long *)$sp",
                                    "reverse-continue", "delete",
                                    "set can-use-hw-watchpoints 1"], 2))
    return reverse, forward, still


def print_moves(rng, shown):
    """With --print-moves: how a newcomer looks at values, drawn over SHOWN
    (the template's #values expressions, fields and array slices too):
    print with and without /x, through the pointer (`p *E`: where E is no
    pointer both halves say so alike), whatis and ptype, `output`, and the
    caller's locals (`up`, `info locals`, `down`).  Only the printing
    commands: #compare-prints (if the template has it) compares their
    text, #values every value after them."""
    def pick():
        return rng.choice(shown)
    return [
        (3, lambda: "p %s" % pick(), 0),
        (2, lambda: "p/x %s" % pick(), 0),
        (2, lambda: "p *%s" % pick(), 0),
        (1, lambda: "output %s" % pick(), 0),
        (1, lambda: "whatis %s" % pick(), 0),
        (1, lambda: "ptype %s" % pick(), 0),
        (2, lambda: ["up", "info locals", "down"], 0),
    ]


def commands(rng, count, source, functions, lines, known=(), watch=True,
             more=False, data=False, shown=()):
    """COUNT commands.  Forward moves only where earlier reverse moves left
    room for them (BACK counts the moves away from the end, roughly): at the
    end record full goes on live and the fatal signal ends its process,
    where hwtrec replay stops, which is no difference worth a mix."""
    name = os.path.basename(source)
    reverse = [
        (14, lambda: "reverse-step", 1),
        (14, lambda: "reverse-next", 1),
        (6, lambda: "reverse-stepi", 1),
        (8, lambda: "reverse-finish", 1),
        (2, lambda: "reverse-next %d" % rng.randint(2, 6), 3),
        (2, lambda: "reverse-step %d" % rng.randint(2, 6), 3),
        (2, lambda: "reverse-stepi %d" % rng.randint(2, 40), 2),
    ]
    if lines:
        reverse.append((5, lambda: ["break %s:%d" % (name, rng.choice(lines)),
                                    "reverse-continue", "delete"], 3))
        reverse.append((2, lambda: ["tbreak %s:%d" % (name, rng.choice(lines)),
                                    "reverse-continue"], 3))
    if functions:
        reverse.append((4, lambda: ["break %s" % rng.choice(functions),
                                    "reverse-continue", "delete"], 3))
    if known:
        reverse += data_moves(rng, name, lines, known, watch)
    forward = [
        (6, lambda: "step", -1),
        (6, lambda: "next", -1),
        (3, lambda: "stepi", -1),
        (3, lambda: "finish", -1),
    ]
    still = [
        (3, lambda: "up", 0),
        (3, lambda: "down", 0),
        (4, lambda: "bt", 0),
        (4, lambda: "info locals", 0),
        (3, lambda: "info args", 0),
        (2, lambda: "p $pc", 0),
        (2, lambda: "frame 0", 0),
    ]
    if shown:
        still = still + print_moves(rng, shown)
    if more:
        extra = more_moves(rng, name, lines, functions, data and watch)
        reverse, forward, still = (a + b for a, b in zip(
            (reverse, forward, still), extra))
    # What #compare-prints compares, at the crash, whatever follows.
    out = ["info locals", "bt"]
    back = 0
    while len(out) < count:
        moves = reverse + still + (forward if back >= 2 else [])
        pick = rng.uniform(0, sum(m[0] for m in moves))
        for weight, make, away in moves:
            pick -= weight
            if pick <= 0:
                made = make()
                out.extend(made if isinstance(made, list) else [made])
                back += away
                break
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--commands", type=int, default=40)
    parser.add_argument("--data-moves", action="store_true",
                        help="also conditions, watchpoints and prints on the "
                        "template's #must-know globals (data-log templates)")
    parser.add_argument("--more-moves", action="store_true",
                        help="also until/advance, finish from an outer "
                        "frame, ignore counts, record goto, stepi/nexti "
                        "counts, frame and memory commands")
    parser.add_argument("--print-moves", action="store_true",
                        help="also p, p/x, p *, output, whatis and ptype of "
                        "the template's #values expressions, and info "
                        "locals in the caller")
    parser.add_argument("template")
    parser.add_argument("out")
    args = parser.parse_args()
    srcdir = os.path.dirname(os.path.dirname(os.path.abspath(args.template)))
    header = template_header(args.template)
    program = next(l.split()[1] for l in header if l.startswith("#program"))
    source = run_scenario().program_source(program, srcdir)
    if not os.path.exists(source):
        sys.exit("scenario-mix: no source for %s" % program)
    functions, lines = source_places(source)
    rng = random.Random("%s/%d" % (os.path.basename(args.template), args.seed))
    known = []
    data = not any(l.startswith("#record-options") and "--no-data" in l
                   for l in header)
    if args.data_moves and data:
        for l in header:
            if l.startswith("#must-know"):
                known += [v for v in l.split()[1:]
                          if "@" not in v and not v.startswith("$")]
    shown = []
    if args.print_moves:
        for l in header:
            if l.startswith("#values"):
                # "@" would be taken for a line marker (scenario-driver).
                shown += [v for v in l.split()[1:]
                          if "@" not in v and not v.startswith("$")]
    body = commands(rng, args.commands, source, functions, lines, known,
                    not any(l.startswith("#record-from") for l in header),
                    args.more_moves, data, shown)
    with open(args.out, "w") as f:
        f.write("# scenario-mix.py --seed %d --commands %d%s%s%s %s\n"
                % (args.seed, args.commands,
                   " --data-moves" if args.data_moves else "",
                   " --more-moves" if args.more_moves else "",
                   " --print-moves" if args.print_moves else "",
                   os.path.basename(args.template)))
        # record full's history starts at main and goes on live at its
        # end: compare up to either.  The
        # lines printed at stops are left to #values (finish's value), as
        # a mix need not print any.
        header = [l for l in header if l != "#compare-output"]
        header.append("#until-history-edges")
        f.write("\n".join(header + body) + "\n")


if __name__ == "__main__":
    main()
