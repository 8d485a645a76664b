#!/bin/sh
# The README's demo: build hwtrecord on a fresh Debian 12, record a program
# that crashes (scripts/demo/crash.c) with `hwtrec record`, then open the
# crash with `hwtrec replay` and go back from it (scripts/demo/replay.gdb):
# bt, reverse-step back into find_item where the NULL came from,
# reverse-finish to the line that set the pointer, the function-call history.
#
# HWTREC_BUILD=DIR uses an existing build directory instead of installing
# and building.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${HWTREC_BUILD:-}" ]; then
	build=$(cd "$HWTREC_BUILD" && pwd)
else
	"$top/scripts/install-deps.sh"
	"$top/scripts/build.sh"
	build="$top/build"
fi
hwtrec="$build/tools/hwtrec"
server="$build/gdb-plugin/server/hwtrec-server"
plugin="$build/gdb-plugin/python/hwtrecord-uninstalled.gdb"
work=$(mktemp -d "${TMPDIR:-/tmp}/hwtrec-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== building the demo program"
cc -g -O0 -o "$work/crash" "$top/scripts/demo/crash.c"
echo "== hwtrec record -- ./crash"
status=0
(cd "$work" && "$hwtrec" record -o crash.hwtrec -- ./crash) || status=$?
if [ ! -d "$work/crash.hwtrec" ]; then
	echo "demo: hwtrec record made no recording (exit $status)" >&2
	exit 1
fi
echo "== hwtrec info crash.hwtrec"
"$hwtrec" info "$work/crash.hwtrec" || true

echo "== hwtrec replay crash.hwtrec (GDB, with scripts/demo/replay.gdb)"
if "$hwtrec" replay --help >/dev/null 2>&1; then
	(cd "$work" && "$hwtrec" replay crash.hwtrec -- -batch \
		-x "$top/scripts/demo/replay.gdb")
elif [ -x "$server" ]; then
	echo "demo: \`hwtrec replay' is not built yet; running what it runs:" \
		"gdb -x $plugin -ex 'target remote | hwtrec-server crash.hwtrec'"
	(cd "$work" && gdb -nx -batch -x "$plugin" -ex "file ./crash" \
		-ex "target remote | $server crash.hwtrec" \
		-x "$top/scripts/demo/replay.gdb")
else
	echo "demo: missing \`hwtrec replay' and hwtrec-server ($server)" >&2
	exit 1
fi
