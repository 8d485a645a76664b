#!/bin/sh
# The tool when its recorder is gone: the program must run on, untraced, to
# its end, with its own output and exit status (the oracle: what the same
# shell loop prints and returns natively, "done" and 0).
#   1. gone before the program starts: the FIFO has no reader (an open that
#      waited for one would hang the program forever);
#   2. gone while it runs: the reader takes the first 100 bytes and exits;
#      the tool's next write fails with EPIPE, and the kernel's SIGPIPE for it
#      must not reach the program (it would die of it: status 141).
set -u
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: no valgrind"; exit 77; }
command -v timeout >/dev/null 2>&1 || { echo "SKIP: no timeout"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/tool-gone.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/events" || exit 1
failures=0
loop='i=0; while [ $i -lt 3000 ]; do i=$((i + 1)); done; echo done'

# run_traced NAME: the loop under the tool, sending to $dir/events.
run_traced() {
	VALGRIND_LIB="$PWD/lib" timeout 60 sh -c 'exec valgrind -q --tool=hwtrec \
		--hwtrec-fifo="$1" --hwtrec-pid=$$ /bin/sh -c "$2"' sh \
		"$dir/events" "$loop" >"$dir/$1.out" 2>"$dir/$1.err"
	st=$?
	if [ "$st" != 0 ] || [ "$(cat "$dir/$1.out")" != done ]; then
		echo "FAIL: $1: status $st, output '$(cat "$dir/$1.out")' (want 0, 'done')"
		sed 's/^/    /' "$dir/$1.err"
		failures=$((failures + 1))
	else
		echo "ok: $1: the program ran to its end untraced: $(head -1 "$dir/$1.err")"
	fi
}

run_traced no-reader

# The reader holds the FIFO open (read-write: no wait for a writer) before
# the tool starts, and goes away after 100 bytes.
sh -c 'exec 3<>"$1"; head -c 100 <&3 >"$2"' sh "$dir/events" "$dir/taken" &
reader=$!
i=0
until [ "$(readlink "/proc/$reader/fd/3" 2>/dev/null)" = "$dir/events" ] ||
      [ $i -ge 500 ]; do
	i=$((i + 1))
	sleep 0.01
done
run_traced reader-gone
wait $reader
[ "$(wc -c <"$dir/taken")" = 100 ] || {
	echo "FAIL: reader-gone: the reader took $(wc -c <"$dir/taken") bytes, not 100 (the recorder never ran)"
	failures=$((failures + 1))
}
[ "$failures" = 0 ]
