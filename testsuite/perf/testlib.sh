# testlib.sh: shared by the perf tests (sourced).  A scratch directory that
# is also $HOME and $PERF_BUILDID_DIR's parent, so that perf's build-id cache
# (~/.debug) of the user is never read or written; programs built from
# ../programs; recordings made with the Valgrind source.
set -eu
: "${HWTREC:?}" "${PROGRAMS_SRC:?}" "${PERF_TESTS:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/hwtr-perf.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" PERF_BUILDID_DIR="$work/home/.debug"
mkdir -p "$HOME"
cd "$work"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

need_perf() {
	command -v perf >/dev/null 2>&1 || skip "perf is not installed"
	perf version >/dev/null 2>&1 || skip "perf does not run here"
}

# build NAME [CFLAGS...]: ../programs/NAME.c into ./NAME
build() {
	name=$1; shift
	cc -std=gnu11 -g -O0 "$@" -o "$name" "$PROGRAMS_SRC/$name.c"
}

# record NAME ARGS...: ./NAME under the Valgrind source, into NAME.hwtrec
record() {
	name=$1; shift
	"$HWTREC" record -q --source=valgrind -o "$name.hwtrec" -- "./$name" "$@" \
		>"$name.out" 2>"$name.err" || {
		rc=$?; cat "$name.err"; fail "hwtrec record $name exited $rc"; }
}
