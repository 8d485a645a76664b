#!/bin/sh
# x87 results in the data log (kernel/valgrind/instrument.c): an
# instruction that writes the x87 stack only through VEX's indexed write
# (PutI), with FTOP unchanged, as `fdivs` writing st0, must be logged.
# retkinds-prog's ld(5) is `fildll; fdivs; ret`: before, the log held st0
# after `fildll` only, and `finish` from ld(5) said "Value returned is 5".
# The oracle is GDB on the live program (record full's replay shows 0
# there); the log keeps x87 values as VEX does, as doubles
# (doc/recording-format.md), so the two agree to 15 significant digits.
set -eu
: "${TESTDIR:?}" "${HWTREC:?}"
prog="$TESTDIR/retkinds-prog"
work=$(mktemp -d "${TMPDIR:-/tmp}/hwtrec-x87-log.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

gdb -nx -batch -ex 'break ld if a == 5' -ex run -ex finish \
	"$prog" >oracle.raw 2>&1 || true
want=$(sed -n 's/^Value returned is \$[0-9]* = //p' oracle.raw)
case "$want" in
1.666666666666666*) ;;
*) cat oracle.raw; echo "FAIL: the oracle says '$want'"; exit 1 ;;
esac

"$HWTREC" record -q -o rec.hwtrec -- "$prog" >/dev/null 2>&1 || true
[ -f rec.hwtrec/manifest.json ] || { echo "FAIL: no recording"; exit 1; }
"$HWTREC" replay rec.hwtrec -- -nx -batch -ex 'break ld if a == 5' \
	-ex reverse-continue -ex finish -ex 'p $st0' >replay.raw 2>&1 || true
got=$(sed -n 's/^Value returned is \$[0-9]* = //p' replay.raw)
st0=$(sed -n 's/^\$[0-9]* = //p' replay.raw | tail -1)
fail=0
for v in "$got" "$st0"; do
	case "$v" in
	1.666666666666666*) ;;
	*) fail=1 ;;
	esac
done
if [ $fail = 1 ]; then
	cat replay.raw
	echo "FAIL: ld(5) returned '$got' (st0 '$st0') under hwtrec, '$want' live"
	exit 1
fi
echo "ok: ld(5) returned $got under hwtrec, $want live"
