#!/bin/sh
# A library with 30,000 PLT stubs and 60,000 relocations (symbols.c): its
# stubs are named as objdump names them, and opening a recording that maps
# it takes well under 2 s of CPU.  Each stub's name comes from the relocation
# of its GOT slot; the slot used to be looked up by a scan of every
# relocation per stub (30,000 x 60,000: 3-5 s here), now by binary search
# (0.2 s).  The program calls two stubs, ext7@plt and ext29999@plt, whose
# targets it defines itself; every instruction of them in
# `hwtrec dump --insn --json` is named NAME@plt + offset as objdump's labels
# say.
set -u
: "${HWTREC:?}"
if [ "${HWTR_SANITIZERS:-no}" = yes ]; then
	echo "SKIP: needs the Valgrind tool, which the sanitizer tree does not build"
	exit 77
fi
command -v objdump >/dev/null 2>&1 || { echo "SKIP: objdump not found"; exit 77; }
tmp=$(mktemp -d /tmp/hwtr-plt-many-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

n=30000
python3 - "$n" <<'PY' || fail "cannot write the sources"
import sys
n = int(sys.argv[1])
with open("big.c", "w") as f:
    for i in range(n):
        f.write("extern void ext%d(void);\n" % i)
    # Weak, so that the program loads without them: a data relocation each.
    for i in range(n):
        f.write("extern int var%d __attribute__((weak));\n" % i)
    f.write("int *const table[] = {\n")
    for i in range(n):
        f.write("&var%d,\n" % i)
    f.write("};\nvoid call_all(int k)\n{\n")
    for i in range(n):
        f.write("\tif (k == %d)\n\t\text%d();\n" % (i, i))
    f.write("}\n")
with open("main.c", "w") as f:
    f.write("void call_all(int);\nvoid ext7(void) {}\nvoid ext%d(void) {}\n"
            "int main(void)\n{\n\tcall_all(7);\n\tcall_all(%d);\n\treturn 0;\n}\n"
            % (n - 1, n - 1))
PY
cc -O0 -fPIC -shared -o libbig.so big.c || fail "cannot build libbig.so"
# The program defines the two functions it has called (-rdynamic); lazy
# binding leaves the others unresolved.
cc -O0 -rdynamic -o main main.c -L. -lbig -Wl,-rpath,"$tmp" \
	-Wl,--unresolved-symbols=ignore-all || fail "cannot build main"
./main || fail "main does not run"
"$HWTREC" record -q --source=valgrind --no-data -o m.hwtrec -- ./main >record.out 2>record.err ||
	{ cat record.err; fail "hwtrec record"; }

python3 - "$HWTREC" "$n" <<'PY' || exit 1
import bisect, json, re, resource, subprocess, sys
hwtrec, n = sys.argv[1], int(sys.argv[2])

before = resource.getrusage(resource.RUSAGE_CHILDREN)
info = subprocess.run([hwtrec, "info", "m.hwtrec"], capture_output=True, text=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
if info.returncode:
    sys.exit("FAIL: hwtrec info: " + info.stderr)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print("hwtrec info: %.2f s CPU" % cpu)
if cpu >= 2.0:
    sys.exit("FAIL: hwtrec info took %.2f s of CPU (PLT names looked up by "
             "a scan per stub?)" % cpu)

# objdump's labels: "00000000002441c0 <ext7@plt>:"; link addresses, made
# file offsets with the .plt section's address and offset.
out = subprocess.run(["objdump", "-d", "-j", ".plt", "libbig.so"],
                     capture_output=True, text=True, check=True).stdout
labels = {int(a, 16): name for a, name in
          re.findall(r"^([0-9a-f]+) <([^>]+@plt)>:", out, re.M)}
sec = subprocess.run(["readelf", "-SW", "libbig.so"], capture_output=True,
                     text=True, check=True).stdout
m = re.search(r"\]\s+\.plt\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", sec)
if not m or len(labels) < n:
    sys.exit("FAIL: objdump shows %d PLT stubs, the library has %d" % (len(labels), n))
addr, off, size = (int(x, 16) for x in m.groups())
starts = sorted(labels)

# The program's two calls come at its end, after the loader's work (15 M
# instructions, whose JSON listing alone took 100 s): list the last million.
m = re.search(r"(\d+) instructions", info.stdout)
if not m:
    sys.exit("FAIL: hwtrec info gives no instruction count:\n" + info.stdout)
last = int(m.group(1))
dump = subprocess.run([hwtrec, "dump", "m.hwtrec", "--insn",
                       "%d,%d" % (max(1, last - 1000000), last), "--json"],
                      capture_output=True, text=True, check=True).stdout
seen = set()
for line in dump.splitlines():
    i = json.loads(line)
    if not i.get("object", "").endswith("/libbig.so"):
        continue
    link = i["object_offset"] - off + addr
    if not addr <= link < addr + size:
        continue
    j = bisect.bisect_right(starts, link)
    if j == 0:
        continue	# PLT0, the resolver's stub: no symbol
    k = starts[j - 1]
    want = (labels[k], link - k)
    got = (i.get("function"), i.get("offset"))
    if want != got:
        sys.exit("FAIL: %s: objdump says %s+%d, we say %s" % (i["ip"], want[0],
                                                              want[1], got))
    seen.add(want[0])
expected = {"ext7@plt", "ext%d@plt" % (n - 1)}
if not expected <= seen:
    sys.exit("FAIL: the stubs run were %s, not %s" % (sorted(seen), sorted(expected)))
print("PASS: %s named as objdump names them" % ", ".join(sorted(expected)))
PY
