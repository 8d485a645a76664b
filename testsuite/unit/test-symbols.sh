#!/bin/sh
# Functions named as GDB names them: a program whose entry point _start is
# a symbol of no type (notype-start.S: .globl without .type) is recorded
# with the software source; every instruction's function and offset in
# `hwtrec dump --insn --json` is what GDB's `info symbol` says of its
# address in the same executable, and --calls names _start, not ??.
set -u
: "${HWTREC:?}" "${SRCDIR:?}"
command -v gdb >/dev/null 2>&1 || { echo "SKIP: gdb not found"; exit 77; }
# The sanitizer tree (scripts/check-sanitizers.sh) builds no Valgrind tool.
if [ "${HWTR_SANITIZERS:-no}" = yes ]; then
	echo "SKIP: needs the Valgrind tool, which the sanitizer tree does not build"
	exit 77
fi
tmp=$(mktemp -d /tmp/hwtr-symbols-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

cc -nostdlib -static -no-pie -o notype-start "$SRCDIR/notype-start.S" ||
	fail "cannot build notype-start"
readelf -s notype-start | grep -q " NOTYPE  GLOBAL DEFAULT .* _start$" ||
	fail "_start is not a global symbol of no type here"
"$HWTREC" record -q --source=valgrind -o n.hwtrec -- ./notype-start \
	>record.out 2>record.err || { cat record.err; fail "hwtrec record"; }
"$HWTREC" dump n.hwtrec --insn --json >insn.json || fail "hwtrec dump --insn"
"$HWTREC" dump n.hwtrec --calls >calls.txt || fail "hwtrec dump --calls"

python3 - <<'PY' || exit 1
import json, re, subprocess, sys
insns = [json.loads(l) for l in open("insn.json") if l.strip()]
if len(insns) != 9:
    sys.exit("FAIL: %d instructions, the program runs 9" % len(insns))
cmd = ["gdb", "-nx", "-batch"]
for i in insns:
    cmd += ["-ex", "info symbol " + i["ip"]]
cmd.append("./notype-start")
out = subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()
for i, line in zip(insns, out):
    m = re.match(r"(\S+)(?: \+ (\d+))? in section", line)
    if not m:
        sys.exit("FAIL: gdb says %r of %s" % (line, i["ip"]))
    want = (m.group(1), int(m.group(2) or 0))
    got = (i.get("function"), i.get("offset"))
    if want != got:
        sys.exit("FAIL: %s: GDB says %s+%d, we say %s" % (i["ip"], want[0],
                                                          want[1], got))
print("%d instructions named as GDB names them" % len(insns))
PY
calls=$(cut -f2 calls.txt | tr '\n' ' ')
[ "$calls" = "_start work _start work _start " ] || fail "--calls: $calls"
echo "PASS: --calls: $calls"

# A static glibc program: its .plt (IRELATIVE slots) and the sizeless _init
# before it, named as GDB's `info symbol` names them (no function in .plt:
# "No symbol matches"; we used to say *ABS*+0x...@plt, or _init).
cc -g -O0 -static -no-pie -o static-plt "$SRCDIR/static-plt.c" ||
	fail "cannot build static-plt"
"$HWTREC" record -q --source=valgrind -o s.hwtrec -- ./static-plt \
	>record.out 2>record.err || [ -f s.hwtrec/manifest.json ] ||
	{ cat record.err; fail "hwtrec record static-plt"; }
"$HWTREC" dump s.hwtrec --insn --json >sinsn.json || fail "hwtrec dump static-plt"
python3 - <<'PY' || exit 1
import json, re, subprocess, sys
sections = {}
out = subprocess.run(["readelf", "-SW", "static-plt"], capture_output=True,
                     text=True).stdout
for m in re.finditer(r"\]\s+(\.init|\.plt)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", out):
    start = int(m.group(2), 16)
    sections[m.group(1)] = (start, start + int(m.group(3), 16))
if ".plt" not in sections:
    sys.exit("FAIL: static-plt has no .plt section: %r" % out)
ips = set()
for line in open("sinsn.json"):
    if line.strip():
        ip = int(json.loads(line)["ip"], 16)
        if any(a <= ip < b for a, b in sections.values()):
            ips.add(ip)
plt = [ip for ip in ips if sections[".plt"][0] <= ip < sections[".plt"][1]]
if not plt:
    sys.exit("FAIL: no instruction of static-plt ran in .plt")
names = {}
for line in open("sinsn.json"):
    if line.strip():
        i = json.loads(line)
        names[int(i["ip"], 16)] = (i.get("function"), i.get("offset"))
ips = sorted(ips)
cmd = ["gdb", "-nx", "-batch"]
for ip in ips:
    cmd += ["-ex", "info symbol %#x" % ip]
cmd.append("./static-plt")
out = subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()
if len(out) != len(ips):
    sys.exit("FAIL: gdb said %d lines for %d addresses" % (len(out), len(ips)))
for ip, line in zip(ips, out):
    m = re.match(r"(\S+)(?: \+ (\d+))? in section", line)
    want = (m.group(1), int(m.group(2) or 0)) if m else (None, None)
    got = names[ip]
    if want[0] is None:
        got = (got[0] if got[0] not in ("??", "") else None, None)
    if want != got:
        sys.exit("FAIL: static-plt %#x: GDB says %r, we say %r" % (ip, line, got))
print("PASS: %d addresses of static-plt's .init and .plt (%d in .plt) named "
      "as GDB names them" % (len(ips), len(plt)))
PY
