#!/bin/sh
# After `make install`, plain `gdb` has the plugin: hwtrecord.py in GDB's
# system gdbinit directory loads the installed plugin, so `record hwt`, the
# history commands and the past-position unwinder are there with no `source`
# line.
#
# 1. DESTDIR: `make install DESTDIR=D` puts hwtrecord.py in D + the configured
#    gdbinit directory, naming the plugin where it is installed.
# 2. A scratch prefix: the plugin installed there; GDB reads that gdbinit
#    directory as its system one (bound over the directory from
#    `gdb --configuration` in a private mount namespace; without one, the file
#    is given with -iex, which is what GDB does with each file there).
#    Oracles: GDB itself without the file (no `record hwt`, no frames above
#    frame 0 in the past), and GDB on the recording's core (the frames at the
#    crash; after reverse-finish, frame 0 is the core's frame 1's line and the
#    frames above are the core's, PC for PC).
set -eu
: "${TESTDIR:?}" "${SRCDIR:?}" "${HWTREC:?}" "${HWTREC_SERVER:?}" "${TOP_BUILDDIR:?}" \
	"${PLUGINDIR:?}" "${GDBINITDIR?}"
if [ -z "$GDBINITDIR" ]; then
	echo "SKIP: configured --without-gdbinit-dir"
	exit 77
fi
# The installed plugin, not the source tree's (hwtrecord.py honours this).
unset HWTREC_PYTHONDIR
prog="$TESTDIR/scenario-prog"
work=$(mktemp -d "${TMPDIR:-/tmp}/hwtrec-gdbinit.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
check() {	# check WHAT COMMAND...
	what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}

# 1. DESTDIR
make -s -C "$TOP_BUILDDIR/gdb-plugin/python" install DESTDIR="$work/dest" >/dev/null
check "hwtrecord.py installed in DESTDIR$GDBINITDIR" \
	test -f "$work/dest$GDBINITDIR/hwtrecord.py"
check "it loads the plugin from $PLUGINDIR" \
	grep -qF "_hwtrecord_load(\"$PLUGINDIR\")" "$work/dest$GDBINITDIR/hwtrecord.py"
check "the plugin is installed in DESTDIR$PLUGINDIR" \
	test -f "$work/dest$PLUGINDIR/hwtrecord/__init__.py"

# 2. A scratch prefix.  pkgdatadir and gdbinitdir are given whole: a tree
# configured with absolute directories (--sysconfdir=/etc) must not install
# outside the scratch one.
prefix="$work/prefix"
make -s -C "$TOP_BUILDDIR/gdb-plugin/python" install \
	pkgdatadir="$prefix/share/hwtrecord" \
	gdbinitdir="$prefix/etc/gdb/gdbinit.d" >/dev/null
gdbinit_d="$prefix/etc/gdb/gdbinit.d"
system_d=$(gdb --configuration |
	sed -n 's/^[[:space:]]*--with-system-gdbinit-dir=\([^ ]*\).*/\1/p')
mkdir "$work/home"

# with_gdbinit CMD ARGS: CMD as a user runs it, with the scratch gdbinit
# directory as GDB's system one; plain_gdb ARGS: `gdb ARGS` (no -nx) so.
if [ -n "$system_d" ] && [ -d "$system_d" ] &&
	unshare -m sh -c "mount --bind '$gdbinit_d' '$system_d'" 2>/dev/null; then
	echo "GDB reads $gdbinit_d as its system gdbinit directory ($system_d)"
	namespace=yes
	with_gdbinit() {
		HOME="$work/home" unshare -m sh -c \
			'mount --bind "$0" "$1" && shift && cd "$HOME" && exec "$@"' \
			"$gdbinit_d" "$system_d" "$@"
	}
	plain_gdb() { with_gdbinit gdb "$@"; }
else
	echo "no private mount namespace here: GDB is given $gdbinit_d/hwtrecord.py with -iex"
	namespace=no
	plain_gdb() {
		(cd "$work/home" && HOME="$work/home" gdb -iex "source $gdbinit_d/hwtrecord.py" "$@")
	}
fi

help=$(plain_gdb -batch -ex 'help record hwt' 2>&1 || true)
check "plain gdb has record hwt" \
	test "$(printf '%s\n' "$help" | head -n 1)" = "Record with hwtrecord, or replay a recording."
without=$(gdb -nx -batch -ex 'help record hwt' 2>&1 || true)
check "gdb -nx has none (the check can fail)" \
	test "$without" = 'Undefined record command: "hwt".  Try "help record".'

# A replay: the scenario program's crash, recorded.
"$HWTREC" record -o "$work/crash.hwtrec" -- "$prog" >/dev/null 2>&1 || true
test -s "$work/crash.hwtrec/core" || { echo "FAIL: no core in the recording"; exit 1; }

# frames: "PC FUNCTION FILE:LINE" for each frame of a bt.
frames() {
	sed -n 's/^#[0-9]*  *\(0x[0-9a-f]*\) in \([^ ]*\) (.*) at \(.*\)$/\1 \2 \3/p'
}
oracle=$(gdb -nx -batch -ex 'echo ==bt\n' -ex bt "$prog" "$work/crash.hwtrec/core" 2>&1 |
	sed '1,/^==bt$/d' | frames)
server_dir=$(dirname "$HWTREC_SERVER")
session() {	# session GDB-RUNNER: bt and the call history at the end, reverse-finish, bt
	"$@" -batch -ex "target remote | $server_dir/hwtrec-server $work/crash.hwtrec" \
		-ex 'echo ==end\n' -ex bt \
		-ex 'echo ==calls\n' -ex 'record function-call-history' \
		-ex reverse-finish -ex 'echo ==past\n' -ex bt "$prog" 2>&1
}
out=$(session plain_gdb)
section() {	# the lines between ==$1 and the next ==
	printf '%s\n' "$out" | awk -v s="==$1" '$0 == s {p = 1; next} /^==/ {p = 0} p'
}
end=$(section end | frames)
past=$(section past | frames)
calls=$(section calls | grep -E '^[0-9]+	[^[:space:]]+$' || true)
echo "core:"; printf '%s\n' "$oracle"
echo "replay at the end:"; printf '%s\n' "$end"
echo "after reverse-finish:"; printf '%s\n' "$past"
check "the core has the crash's four frames" test "$(printf '%s\n' "$oracle" | wc -l)" -eq 4
check "at the end, bt is the core's" test "$end" = "$oracle"
check "after reverse-finish, frame 0 is at the core's frame 1's line" \
	test "$(printf '%s\n' "$past" | head -n 1 | cut -d' ' -f2-)" = \
	"$(printf '%s\n' "$oracle" | sed -n 2p | cut -d' ' -f2-)"
check "after reverse-finish, the frames above are the core's" \
	test "$(printf '%s\n' "$past" | tail -n +2)" = "$(printf '%s\n' "$oracle" | tail -n +3)"
check "record function-call-history ends in the crashing function" \
	test "$(printf '%s\n' "$calls" | tail -n 1 | awk '{print $2}')" = \
	"$(printf '%s\n' "$oracle" | head -n 1 | cut -d' ' -f2)"

# hwtrec replay loads its own plugin (here the source tree's, as a build
# tree's hwtrec finds it), not the installed one that hwtrecord.py would
# import first: it sets HWTREC_PYTHONDIR, which hwtrecord.py honours.
if [ "$namespace" = yes ]; then
	own="$(cd "$SRCDIR/../.." && pwd)/gdb-plugin/python/hwtrecord/__init__.py"
	loaded=$(with_gdbinit "$HWTREC" replay "$work/crash.hwtrec" -- -batch \
		-ex 'python import hwtrecord; print("==plugin " + hwtrecord.__file__)' 2>&1 |
		sed -n 's/^==plugin //p')
	loaded=$(readlink -f "$loaded" || true)
	echo "hwtrec replay loaded $loaded"
	check "hwtrec replay loads its own plugin ($own)" test "$loaded" = "$own"
fi
if [ "$fail" -ne 0 ]; then
	printf '%s\n' "$out"
	exit 1
fi
