#!/bin/sh
# The shared library's symbol surface is the public header, both ways: every
# function include/hwtrecord.h declares is exported by libhwtrecord.so, and
# the library exports nothing else (no internal concept, nothing in libipt's
# pt_ or jansson's json_ prefix).  The header is read with its comments,
# preprocessor lines and __attribute__ lists removed; the library's dynamic
# symbol table is listed by nm -D --defined-only.
set -u
: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
nm=${NM:-nm}
header="$TOP_SRCDIR/libhwtrecord/include/hwtrecord.h"
la="$TOP_BUILDDIR/libhwtrecord/libhwtrecord.la"
fail() { echo "FAIL: $*"; exit 1; }

[ -f "$la" ] || fail "no $la"
dlname=$(sed -n "s/^dlname='\(.*\)'$/\1/p" "$la")
[ -n "$dlname" ] || { echo "SKIP: libhwtrecord built without a shared library"; exit 77; }
so="$TOP_BUILDDIR/libhwtrecord/.libs/$dlname"
[ -f "$so" ] || fail "no $so"

tmp=$(mktemp -d /tmp/hwtr-exports-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Declared: every name directly followed by "(" outside comments, macros and
# attributes.  Function-pointer types would show as "(*name)(" and are not
# caught; the header has none.
perl -0777 -ne '
	s{/\*.*?\*/}{ }gs;			# comments
	s{^[ \t]*#.*$}{}gm;			# preprocessor lines
	s{__attribute__\s*(\((?:[^()]++|(?1))*\))}{}g;
	print "$1\n" while /\b([A-Za-z_]\w*)\(/g;
' "$header" | sort -u >"$tmp/declared" || fail "cannot read $header"
[ -s "$tmp/declared" ] || fail "no declarations found in $header"

# Exported: defined dynamic symbols.  Older linkers add their own section
# bounds; those are no API of ours.
$nm -D --defined-only "$so" >"$tmp/nm" || fail "$nm -D $so"
awk 'NF >= 3 { print $3 }' "$tmp/nm" |
	grep -v -x -e _init -e _fini -e __bss_start -e _edata -e _end |
	sort -u >"$tmp/exported"
[ -s "$tmp/exported" ] || fail "$so exports nothing"

status=0
bad=$(grep -v '^hwtr_' "$tmp/declared")
[ -z "$bad" ] || { echo "FAIL: declared without the hwtr_ prefix:" $bad; status=1; }
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
[ -z "$missing" ] || { echo "FAIL: declared in hwtrecord.h, not exported:" $missing; status=1; }
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
[ -z "$extra" ] || {
	echo "FAIL: exported, not declared in hwtrecord.h ($(echo "$extra" | wc -l)):" $extra
	status=1
}
[ $status -eq 0 ] &&
	echo "PASS: $(wc -l <"$tmp/exported") symbols exported, the $(wc -l <"$tmp/declared") functions hwtrecord.h declares"
exit $status
