#!/usr/bin/env python3
"""progress_lines.py: what a terminal shows of hwtrec's byte progress
(libhwtrecord/progress.c), checked from the bytes script(1) caught.

usage: progress_lines.py TTY TOTAL WHAT PHASE... [--plain FILE]

Lines "\\rhwtrec: PHASE: DONE of TOTAL of WHAT (P%)[, about N s left]\\e[K":
- at least one, the PHASEs met in the order given (not every one need
  show: a phase shorter than a quarter second has no line);
- each line's total is TOTAL bytes as progress.c writes it (human());
- per phase, bytes and percentages never go back, bytes never pass TOTAL
  (by more than the rounding of the unit shown), percentages never 100+;
- the line is erased at the end ("\\r\\e[K");
- with --plain FILE: without its progress lines the terminal holds what
  FILE holds (the same command's stdout with stderr a file).
Prints a line per phase; exits non-zero with a message on the first fault.
"""
import re
import sys

UNITS = {"bytes": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def human(n):
    """N bytes as progress.c writes them."""
    v, u = float(n), 0
    names = list(UNITS)
    while v >= 1000 and u + 1 < len(names):
        v, u = v / 1000, u + 1
    return "%d bytes" % n if u == 0 else "%.1f %s" % (v, names[u])


def main(argv):
    plain = None
    if len(argv) > 2 and argv[-2] == "--plain":
        plain, argv = argv[-1], argv[:-2]
    if len(argv) < 5:
        sys.exit(__doc__)
    tty, total, what, phases = argv[1], int(argv[2]), argv[3], argv[4:]
    data = open(tty, "rb").read().decode()
    units = "|".join(UNITS)
    line = re.compile(r"\rhwtrec: (%s): ([\d.]+) (%s) of ([\d.]+ (?:%s)) of %s "
                      r"\((\d+)%%\)(?:, about \d+ s left)?\x1b\[K"
                      % ("|".join(map(re.escape, phases)), units, units,
                         re.escape(what)))
    matches = list(line.finditer(data))
    if not matches:
        sys.exit("no progress line in %r" % data[:400])
    seen = {}
    for m in matches:
        phase, done, done_unit, of, pct = m.groups()
        seen.setdefault(phase, []).append((float(done) * UNITS[done_unit],
                                           of, int(pct)))
    order = [phases.index(phase) for phase in seen]
    if order != sorted(order):
        sys.exit("phases %s, not in the order %s" % (list(seen), phases))
    for phase, lines in seen.items():
        done = [d for d, of, p in lines]
        pct = [p for d, of, p in lines]
        totals = {of for d, of, p in lines}
        if totals != {human(total)}:
            sys.exit("%s: totals %s, not %s (%d bytes)"
                     % (phase, totals, human(total), total))
        if done != sorted(done) or pct != sorted(pct) or \
                max(done) > total * 1.0005 or max(pct) > 100:
            sys.exit("%s: bytes %s or percentages %s go back or pass %d"
                     % (phase, done, pct, total))
        print("ok: %s: %d progress lines, %.1f..%.1f MB of %s, %d%%..%d%%"
              % (phase, len(lines), done[0] / 1e6, done[-1] / 1e6,
                 human(total), pct[0], pct[-1]))
    rest = data[matches[-1].end():]
    if not rest.startswith("\r\x1b[K"):
        sys.exit("the progress line is not erased at the end: %r" % rest[:80])
    print("ok: erased at the end")
    if plain is not None:
        # The pty turns \n into \r\n.
        shown = line.sub("", data).replace("\r\x1b[K", "").replace("\r\n", "\n")
        expected = open(plain).read()
        if shown != expected:
            sys.exit("the terminal has more than the progress: %r, not %r"
                     % (shown[:300], expected))
        print("ok: nothing else on the terminal")


if __name__ == "__main__":
    main(sys.argv)
