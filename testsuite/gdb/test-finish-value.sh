#!/bin/sh
# The plugin's `finish` correction (gdb-plugin/python/hwtrecord/
# finish_value.py) at a past position of a recording without data, where
# the return register is not known (recovery off): GDB 13 alone would print
# "Value returned is $1 = 0" for square(6), which returned 36 (the oracle:
# GDB on the live program).  The plugin must
# - print <unavailable> (or the true value, never another one),
# - leave a user's hook-finish and hookpost-finish in place and still
#   correct the line when the user defined them after it was loaded,
# - not be echoed under `set trace-commands on` (it is no user command),
# - not run for reverse-finish, and leave `print finish` as it was,
# - leave `$` of the function's return type (unavailable), not rax's.
set -eu
: "${TESTDIR:?}" "${HWTREC:?}"
prog="$TESTDIR/values-data-prog"
work=$(mktemp -d "${TMPDIR:-/tmp}/hwtrec-finish-value.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# Oracle: square's last call (x = 6) returns 36.
gdb -nx -batch -ex 'break square' -ex run -ex 'continue 5' -ex finish \
	"$prog" >oracle.raw 2>&1 || true
want=$(sed -n 's/^Value returned is \$[0-9]* = //p' oracle.raw)
[ "$want" = 36 ] || { cat oracle.raw; echo "FAIL: the oracle says '$want', not 36"; exit 1; }

"$HWTREC" record -q --no-data -o rec.hwtrec -- "$prog" >/dev/null 2>&1 || true
[ -f rec.hwtrec/core ] || { echo "FAIL: no recording"; exit 1; }

cat >hooks.gdb <<'GDB'
define hook-finish
echo USER-PRE\n
end
define hookpost-finish
echo USER-POST\n
end
GDB
cat >session.gdb <<'GDB'
set trace-commands on
break square
reverse-continue
echo ==finish\n
finish
echo ==after-finish\n
ptype $
whatis square
echo ==after-type\n
show print finish
delete
reverse-step
echo ==reverse-finish\n
reverse-finish
echo ==after-reverse-finish\n
show print finish
GDB

# Each session: without hooks of the user's, and with them (defined after
# the plugin was loaded, as a user's gdbinit or script does).
check_session() {	# NAME FIRST-GDB-SCRIPT
	name=$1
	HWTREC_RECOVERY_WINDOW=0 "$HWTREC" replay rec.hwtrec -- -batch -x "$2" \
		-x session.gdb >$name.raw 2>&1 || true
	sed -n '/^==finish/,/^==after-finish/p' $name.raw >$name.finish
	sed -n '/^==reverse-finish/,/^==after-reverse-finish/p' $name.raw >$name.reverse
	before=$fail
	# The value: the correction's line, and no value but 36 or <unavailable>.
	shown=$(sed -n 's/^Value returned is \$[0-9]* = //p' $name.finish |
		grep -v -x '<not displayed>' || true)
	case "$shown" in
	"<unavailable>"|36) ;;
	*) bad "$name: finish at square(6) showed '$shown' (want <unavailable> or 36)" ;;
	esac
	# `$` has square's return type (GDB's own `whatis square` says which),
	# even where its value is <unavailable>: a field or `*$` then reads as
	# not available, not as "not a structure pointer".
	sed -n '/^==after-finish/,/^==after-type/p' $name.raw >$name.type
	returns=$(sed -n 's/^type = \(.*\) (int)$/\1/p' $name.type)
	[ -n "$returns" ] && grep -q -x "type = $returns" $name.type ||
		bad "$name: \$ after finish is not of square's return type: $(tr '\n' ' ' <$name.type)"
	# Nothing of the plugin echoed: the only traced lines are the session's
	# and the user's hooks'.
	traced=$(grep '^+' $name.raw | grep -v \
		-e '^+\(break\|delete\|reverse-continue\|continue\|echo\|finish\|show\|reverse-step\|step\|reverse-finish\|ptype\|whatis\)\( \|$\)' \
		-e '^++echo USER-\(PRE\|POST\)' || true)
	[ -z "$traced" ] || bad "$name: commands echoed that the session did not give: $traced"
	# reverse-finish went back to main's call and printed no value.
	grep -q '^Value returned' $name.reverse && bad "$name: reverse-finish printed a value"
	grep -q 'main () at .*values-data-prog.c:36' $name.reverse ||
		bad "$name: reverse-finish did not reach main's call"
	[ "$(grep -c "Printing of return value after .finish' is on" $name.raw)" = 2 ] ||
		bad "$name: print finish was left off"
	[ "$fail" = "$before" ] || cat $name.raw
}
echo >nothing.gdb
check_session plain nothing.gdb
check_session user-hooks hooks.gdb
# The user's hooks ran around finish, once each.
[ "$(grep -c -x USER-PRE user-hooks.finish)" = 1 ] &&
	[ "$(grep -c -x USER-POST user-hooks.finish)" = 1 ] ||
	bad "the user's hook-finish/hookpost-finish did not run once each"
if [ "$fail" = 0 ]; then
	echo "ok: finish shows '$shown' (the program returned $want), with and without the user's hooks; nothing of the plugin echoed; reverse-finish untouched"
fi
exit "$fail"
