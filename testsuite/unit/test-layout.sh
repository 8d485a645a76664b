#!/bin/sh
# The source tree's layout (issue 17 item 1, DESIGN.md section 2): a trace
# source lives under kernel/ with both its sides, and the dependency arrow
# points one way.  Fails when
#   - a file under kernel/ or formats/ includes anything from tools/ (read
#     from the #include lines, each resolved against the including file's
#     folder, and any include that names a tools/ folder at all);
#   - tools/ holds a recorder: a file that writes a recording's trace,
#     threads or sideband through the writer, or that includes a source's
#     internals from kernel/ (only kernel/source.h and each source's table
#     header, *-source.h, are the command's to use).
set -u
: "${TOP_SRCDIR:?}"
top=$(cd "$TOP_SRCDIR" && pwd -P)
status=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hwtr-layout-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; status=1; }

[ -d "$top/kernel" ] && [ -d "$top/tools" ] || { echo "FAIL: no kernel/ or tools/ in $top"; exit 1; }

# 1. Nothing under kernel/ or formats/ includes from tools/.
for f in $(find "$top/kernel" "$top/formats" -name '*.[ch]' | sort); do
	dir=$(dirname "$f")
	sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" |
	while read -r inc; do
		target=$(realpath -m "$dir/$inc")
		case "$inc:$target" in
		tools/*|*/tools/*|*:"$top"/tools/*)
			echo "${f#$top/}: includes \"$inc\"" ;;
		esac
	done
done > "$tmp/includes"
if [ -s "$tmp/includes" ]; then
	while read -r line; do bad "$line: kernel/ and formats/ may not use tools/"; done < "$tmp/includes"
fi

# 2. tools/ is the command line: no file in it writes a recording's content
# or reaches into a source's internals.
writers='hwtr_writer_\(create\|add_thread\|add_source\|trace\|append_trace\|open_trace\|event\|add_core\)[ \t]*('
for f in $(find "$top/tools" -name '*.[ch]' | sort); do
	rel=${f#$top/}
	if grep -n "$writers" "$f" > /dev/null; then
		echo "$rel: writes a recording ($(grep -o "$writers" "$f" | head -1 | tr -d ' (')): a recorder belongs under kernel/"
	fi
	sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" |
	while read -r inc; do
		target=$(realpath -m "$(dirname "$f")/$inc")
		case "$target" in
		"$top"/kernel/source.h|"$top"/kernel/*/*-source.h|"$top"/kernel/*/*/*-source.h) ;;
		"$top"/kernel/*) echo "$rel: includes \"$inc\", a source's internals" ;;
		esac
	done
done > "$tmp/tools"
if [ -s "$tmp/tools" ]; then
	while read -r line; do bad "$line"; done < "$tmp/tools"
fi

# The check must have looked at something: the three sources' recorders.
for f in kernel/valgrind/host/valgrind-source.c kernel/linux/perf-source.c \
	 kernel/freebsd/hwt-source.c; do
	[ -f "$top/$f" ] || bad "$f: missing (each source's recorder lives beside its kernel side)"
done
[ $status = 0 ] && echo "PASS: kernel/ and formats/ use nothing of tools/; tools/ holds no recorder"
exit $status
