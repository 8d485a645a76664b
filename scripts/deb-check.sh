#!/bin/sh
# deb-check.sh [WORKDIR]: the Debian packages (debian/) checked end to end.
#
# 1. dpkg-buildpackage -us -uc -b in a scratch copy of this tree (the files
#    git tracks or would track; nocheck: make check is the test suite's job);
# 2. lintian on the result: no errors;
# 3. the packages hold exactly what `make install` of the same configured tree
#    installs (less libtool's .la; plus each package's copyright, changelog
#    and lintian overrides), each file in one package;
# 4. the packages unpacked (dpkg -x) into a scratch root, laid over /usr and
#    /etc/gdb/gdbinit.d in a private mount namespace (read-only overlays: the
#    machine's own files are untouched), as if installed: hwtrec --version
#    says debian/changelog's version; a crashing program recorded with the
#    packaged Valgrind tool; plain `gdb` (no -nx, no source line) replays it
#    with the packaged plugin: at the end bt is GDB-on-the-core's, after
#    reverse-finish the frames above frame 0 are the core's; a program built
#    with `pkg-config --cflags --libs hwtrecord` opens the recording.
#
# Needs root (the mount namespace), debhelper, lintian (scripts/install-deps.sh
# installs them).  WORKDIR is kept when given; a fresh one is removed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -gt 0 ]; then
	work=$1
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/hwtrec-deb-check.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)
fail=0
passed=0
failed=0
check() {	# check WHAT COMMAND...
	what=$1
	shift
	if "$@"; then
		echo "ok: $what"
		passed=$((passed + 1))
	else
		echo "FAIL: $what"
		fail=1
		failed=$((failed + 1))
	fi
}
step() { echo "== $* ($(date +%T))"; }

command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null &&
	command -v lintian >/dev/null || {
	echo "deb-check: needs dpkg-dev, debhelper and lintian (scripts/install-deps.sh)" >&2
	exit 1
}
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || {
	echo "deb-check: $top is not a git checkout (the copy takes git's file list)" >&2
	exit 1
}

step "building the packages in $work/src"
rm -rf "$work/src" "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo
mkdir "$work/src"
git -C "$top" ls-files -z --cached --others --exclude-standard |
	(cd "$top" && tar -cf - --null -T -) | tar -xf - -C "$work/src"
if ! (cd "$work/src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" DEB_BUILD_PROFILES=nocheck \
	dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -n 60 "$work/build.log"
	echo "FAIL: dpkg-buildpackage (log: $work/build.log)"
	echo "deb-check: 0 passed, 1 failed"
	trap - EXIT
	exit 1
fi
version=$(cd "$work/src" && dpkg-parsechangelog -S Version)
# The packages; the -dbgsym ones hold debug files that make install does not.
debs=$(ls "$work"/*_"$version"_*.deb | grep -v -e '-dbgsym_')
printf '%s\n' "$debs" | sed 's|.*/||'
for p in hwtrecord libhwtrecord0 libhwtrecord-dev gdb-hwtrecord; do
	check "package $p built" test -f "$(ls "$work/${p}_${version}"_*.deb 2>/dev/null | head -n 1)"
done

step "lintian"
lintian --fail-on error "$work"/hwtrecord_"$version"_*.changes >"$work/lintian.log" 2>&1 &&
	lint=0 || lint=$?
cat "$work/lintian.log"
check "lintian reports no error" test "$lint" -eq 0

step "the packages' files against make install"
rm -rf "$work/ref"
make -s -C "$work/src/debian/build" install DESTDIR="$work/ref" >/dev/null
(cd "$work/ref" && find . ! -type d ! -name '*.la' | sed 's|^\.||' | sort) >"$work/ref.list"
: >"$work/pkg.list"
for deb in $debs; do
	pkg=$(dpkg-deb -f "$deb" Package)
	# Directories aside; what Debian adds to every package aside.
	dpkg-deb --fsys-tarfile "$deb" | tar -tf - | sed 's|^\.||' | grep -v '/$' |
		grep -v -x -e "/usr/share/doc/$pkg/copyright" \
			-e "/usr/share/doc/$pkg/changelog.gz" \
			-e "/usr/share/lintian/overrides/$pkg" |
		sed "s|\$| $pkg|" >>"$work/pkg.list"
done
# dh_compress gzips man pages and larger documents; README.md is
# debian/hwtrecord.docs' (it is not installed by make install).
sed -e 's#^\(/usr/share/\(man\|doc\)/.*\)\.gz #\1 #' \
	-e '\#^/usr/share/doc/hwtrecord/README.md #d' "$work/pkg.list" |
	sort >"$work/pkg.sorted"
cut -d' ' -f1 "$work/pkg.sorted" >"$work/pkg.files"
check "no file is in two packages" test -z "$(uniq -d "$work/pkg.files")"
diff -u "$work/ref.list" "$work/pkg.files" >"$work/files.diff" || cat "$work/files.diff"
check "the packages hold what make install installs ($(wc -l <"$work/ref.list") files; diff: - make install only, + packages only)" \
	test ! -s "$work/files.diff"
grep -q ' gdb-hwtrecord$' "$work/pkg.sorted" &&
	check "the gdbinit file is gdb-hwtrecord's" \
		grep -qx '/etc/gdb/gdbinit.d/hwtrecord.py gdb-hwtrecord' "$work/pkg.sorted"
if [ "$(dpkg --print-architecture)" = amd64 ]; then
	check "the Valgrind tool is hwtrecord's" \
		grep -qx '/usr/libexec/hwtrecord/valgrind/hwtrec-amd64-linux hwtrecord' "$work/pkg.sorted"
	# The tool is linked with this valgrind's static core.
	valgrind_version=$(dpkg-query -W -f='${Version}' valgrind)
	check "hwtrecord depends on exactly valgrind $valgrind_version" \
		sh -c 'dpkg-deb -f "$0" Depends | tr "," "\n" | grep -qx " *valgrind (= $1)"' \
		"$(ls "$work/hwtrecord_${version}"_*.deb)" "$valgrind_version"
fi

step "the packages unpacked over /usr and /etc/gdb/gdbinit.d"
rm -rf "$work/root" "$work/run"
mkdir -p "$work/root" "$work/run/home"
for deb in $debs; do dpkg -x "$deb" "$work/root"; done
# installed CMD ARGS: CMD with the unpacked packages as if installed.
installed() {
	env -u HWTREC_PYTHONDIR -u HWTREC_VALGRIND_LIB -u HWTREC_SERVER \
		HOME="$work/run/home" unshare -m sh -c '
		mount -t overlay overlay -o "lowerdir=$0/usr:/usr" /usr &&
		mount -t overlay overlay \
			-o "lowerdir=$0/etc/gdb/gdbinit.d:/etc/gdb/gdbinit.d" /etc/gdb/gdbinit.d &&
		cd "$HOME" && exec "$@"' "$work/root" "$@"
}
# A machine (a container) without mount namespaces or overlayfs cannot lay
# the packages over /usr: say so and stop here rather than fail on it.
if ! installed true 2>"$work/overlay.err"; then
	echo "SKIP: the installed checks: cannot lay the packages over /usr here" \
		"($(head -n 1 "$work/overlay.err"))"
	echo "deb-check: $passed passed, $failed failed, the installed checks skipped"
	exit "$fail"
fi
check "hwtrec --version says $version" \
	test "$(installed /usr/bin/hwtrec --version)" = "hwtrec (hwtrecord) $version"

cat >"$work/run/crash.c" <<'EOF'
#include <stddef.h>
static int *slot(int i) { return i == 3 ? NULL : (int *)0; }
static void store(int i, int v) { int *p = slot(i); *p = v; }
static void fill(int n) { for (int i = 3; i < n; i++) store(i, i * 10); }
int main(void) { fill(4); return 0; }
EOF
cc -g -O0 -o "$work/run/crash" "$work/run/crash.c"
installed /usr/bin/hwtrec record -o "$work/run/crash.hwtrec" -- "$work/run/crash" \
	>"$work/run/record.log" 2>&1 || true
check "the packaged Valgrind tool recorded the crash (a core)" \
	test -s "$work/run/crash.hwtrec/core"

# frames: "PC FUNCTION FILE:LINE" for each frame of a bt.
frames() {
	sed -n 's/^#[0-9]*  *\(0x[0-9a-f]*\) in \([^ ]*\) (.*) at \(.*\)$/\1 \2 \3/p'
}
oracle=$(gdb -nx -batch -ex 'echo ==bt\n' -ex bt "$work/run/crash" "$work/run/crash.hwtrec/core" 2>&1 |
	sed '1,/^==bt$/d' | frames)
out=$(installed gdb -batch -ex "target remote | /usr/bin/hwtrec-server $work/run/crash.hwtrec" \
	-ex 'python import hwtrecord; print("==plugin " + hwtrecord.__file__)' \
	-ex 'echo ==end\n' -ex bt -ex reverse-finish -ex 'echo ==past\n' -ex bt \
	"$work/run/crash" 2>&1 || true)
section() {	# the lines between ==$1 and the next ==
	printf '%s\n' "$out" | awk -v s="==$1" '$0 == s {p = 1; next} /^==/ {p = 0} p'
}
end=$(section end | frames)
past=$(section past | frames)
echo "GDB on the core:"; printf '%s\n' "$oracle"
echo "plain gdb on hwtrec-server, after reverse-finish:"; printf '%s\n' "$past"
check "plain gdb loads the packaged plugin" \
	test "$(printf '%s\n' "$out" | sed -n 's/^==plugin //p')" = \
	/usr/share/hwtrecord/python/hwtrecord/__init__.py
check "GDB on the core shows main, fill, store" \
	test "$(printf '%s\n' "$oracle" | cut -d' ' -f2 | tr '\n' ' ')" = "store fill main "
check "at the end, bt is the core's" test "$end" = "$oracle"
check "after reverse-finish, frame 0 is at the core's frame 1's line" \
	test "$(printf '%s\n' "$past" | head -n 1 | cut -d' ' -f2-)" = \
	"$(printf '%s\n' "$oracle" | sed -n 2p | cut -d' ' -f2-)"
check "after reverse-finish, the frames above are the core's" \
	test "$(printf '%s\n' "$past" | tail -n +2)" = "$(printf '%s\n' "$oracle" | tail -n +3)"

cat >"$work/run/open.c" <<'EOF'
#include <hwtrecord.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	struct hwtr_recording *rec;
	int err = hwtr_recording_open(argv[1], &rec);

	if (err < 0) {
		printf("error %s: %s\n", hwtr_errstr(err), hwtr_last_error());
		return 1;
	}
	printf("opened %s\n", hwtr_recording_path(rec));
	hwtr_recording_close(rec);
	return argc - 2;
}
EOF
opened=$(installed sh -c 'cd "$0" && cc -o open open.c $(pkg-config --cflags --libs hwtrecord) &&
	./open "$1"' "$work/run" "$work/run/crash.hwtrec" 2>&1 || true)
check "a program built with pkg-config hwtrecord opens the recording ($opened)" \
	test "$opened" = "opened $work/run/crash.hwtrec"

if [ "$fail" -ne 0 ]; then
	printf '%s\n' "$out"
	echo "work directory kept: $work"
	trap - EXIT
fi
echo "deb-check: $passed passed, $failed failed"
exit "$fail"
