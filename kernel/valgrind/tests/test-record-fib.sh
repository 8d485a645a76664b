#!/bin/sh
# Record tests/fib under the hwtrec tool and decode it with libipt alone
# (pt-insn-list).  Checks against values that do not come from our trace:
# the exit status (3), zero decode errors, and the number of entries of fib,
# which for fib(20) is 2*fib(21)-1 = 21891 by arithmetic.  Valgrind loads the
# program at another base, so fib's address is taken from the sideband's
# mapping of the file plus the symbol's offset from nm.
set -u
hwtrec=../../tools/hwtrec
rec=fib-test.hwtrec
rm -rf "$rec"
"$hwtrec" record -q -o "$rec" -- ./tests/fib 20 >/dev/null
rc=$?
[ "$rc" -eq 3 ] || { echo "FAIL: exit status $rc, want 3"; exit 1; }
./pt-insn-list "$rec" > fib-test.insns
st=$?
grep ' error ' fib-test.insns && { echo "FAIL: decode errors"; exit 1; }
[ "$st" -eq 0 ] || { echo "FAIL: pt-insn-list status $st"; exit 1; }
off=$(nm tests/fib | awk '$3 == "fib" { print $1 }')
line=$(grep '"event":"mmap"' "$rec/sideband.jsonl" | grep "tests/fib\"" | head -1)
addr=$(echo "$line" | sed 's/.*"addr":"\(0x[0-9a-f]*\)".*/\1/')
pgoff=$(echo "$line" | sed 's/.*"pgoff":\([0-9]*\).*/\1/')
fib_ip=$(printf '0x%x' $((addr - pgoff + 0x$off)))
n=$(grep -c " $fib_ip\$" fib-test.insns)
[ "$n" -eq 21891 ] || { echo "FAIL: fib entered $n times at $fib_ip, want 21891"; exit 1; }
echo "PASS: fib entered $n times, no decode errors"
rm -rf "$rec" fib-test.insns
