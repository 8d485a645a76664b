#!/bin/sh
# configure's default for the gdbinit file (configure.ac, --with-gdbinit-dir):
# with the default prefix (/usr/local), which GDB reads nothing under, the
# file still goes to the system gdbinit directory GDB itself names
# (`gdb --configuration`: the oracle) when this user may write it, as root
# installing to /usr/local may; otherwise configure prints the exact command
# that links the installed file into GDB's directory.  Then `make install
# DESTDIR=D` of the plugin puts hwtrecord.py there, loading the plugin from
# the prefix.
set -eu
: "${SRCDIR:?}"
top_srcdir=$(cd "$SRCDIR/../.." && pwd)
if [ -f "$top_srcdir/config.status" ]; then
	echo "SKIP: the source tree is configured in place (no second build tree from it)"
	exit 77
fi
system_d=$(gdb --configuration |
	sed -n 's/^[[:space:]]*--with-system-gdbinit-dir=\([^ ]*\).*/\1/p')
if [ -z "$system_d" ]; then
	echo "SKIP: this gdb has no system gdbinit directory"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/hwtrec-gdbinit-default.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
check() {	# check WHAT COMMAND...
	what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}

mkdir "$work/build"
(cd "$work/build" && "$top_srcdir/configure" --prefix=/usr/local) >"$work/configure.log" 2>&1 || {
	tail -n 30 "$work/configure.log"
	echo "FAIL: configure"
	exit 1
}
configured=$(sed -n 's/^gdbinitdir = //p' "$work/build/gdb-plugin/python/Makefile")
# Whether this user may write the directory (or the nearest one above it).
d=$system_d
while [ ! -d "$d" ] && [ "$d" != / ]; do d=$(dirname "$d"); done
if [ -w "$d" ]; then
	check "--prefix=/usr/local: hwtrecord.py goes to GDB's $system_d (configured: $configured)" \
		test "$configured" = "$system_d"
	installed_d=$system_d
else
	link="ln -s /usr/local/etc/gdb/gdbinit.d/hwtrecord.py $system_d/"
	check "--prefix=/usr/local, $system_d not writable: SYSCONFDIR/gdb/gdbinit.d" \
		test "$configured" = '${sysconfdir}/gdb/gdbinit.d'
	check "configure says: $link" grep -qF "$link" "$work/configure.log"
	installed_d=/usr/local/etc/gdb/gdbinit.d
fi
make -s -C "$work/build/gdb-plugin/python" install DESTDIR="$work/dest" >/dev/null
check "make install DESTDIR=D: D$installed_d/hwtrecord.py" \
	test -f "$work/dest$installed_d/hwtrecord.py"
check "... loading the plugin from /usr/local/share/hwtrecord/python" \
	grep -qF '_hwtrecord_load("/usr/local/share/hwtrecord/python")' \
	"$work/dest$installed_d/hwtrecord.py"
exit "$fail"
