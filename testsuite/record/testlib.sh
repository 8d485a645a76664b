# testlib.sh: shared by the tests of testsuite/record (sourced, POSIX sh).
# The test environment (Makefile.am) sets HWTREC, STEPPER, COMPARE, PROGDIR.

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# Skip (exit 77) when `hwtrec CMD` is not there yet: the binary is missing or
# the command is still the placeholder that says "not built yet".
need_hwtrec() {
	[ -x "$HWTREC" ] || skip "$HWTREC is not built"
	if "$HWTREC" "$1" --help 2>&1 | grep -q 'not built yet'; then
		skip "hwtrec $1 is missing (tools/$1.c is still a placeholder)"
	fi
}

# A child process of $1 (from /proc, without procps); nothing if none.
child_of() {
	if [ -r "/proc/$1/task/$1/children" ]; then	# Linux 3.5 and later
		set -- $(cat "/proc/$1/task/$1/children" 2>/dev/null)
		echo "$1"
		return
	fi
	for s in /proc/[0-9]*/stat; do
		# pid (comm) state ppid ...: comm may hold spaces, so cut at ") "
		ppid=$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' "$s" 2>/dev/null)
		if [ "$ppid" = "$1" ]; then
			s=${s#/proc/}
			echo "${s%/stat}"
			return
		fi
	done
}

# Process $1 has ended (gone, or a zombie nobody reaped yet).
process_gone() {
	[ ! -e "/proc/$1/stat" ] ||
		[ "$(sed 's/.*) \([A-Za-z]\) .*/\1/' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

need_valgrind() {
	command -v valgrind >/dev/null 2>&1 || skip "valgrind is not installed"
}

# Tools the checks read recordings and binaries with (scripts/install-deps.sh).
need_tools() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 ||
			fail "$tool is needed (run scripts/install-deps.sh)"
	done
}

# A fresh work directory for test NAME, in the build tree; removed when the
# test passes (call pass), kept for a look when it fails.
workdir() {
	WORK="$PWD/$1.dir"
	rm -rf "$WORK"
	mkdir -p "$WORK" || fail "cannot create $WORK"
}

pass() {
	[ -n "$WORK" ] && rm -rf "$WORK"
	exit 0
}

# Print a file into the log, indented, at most 40 lines.
show() {
	[ -s "$1" ] || return 0
	echo "--- $1:"
	sed -n '1,40s/^/    /p' "$1"
}

# After the values oracle (values-oracle.py under GDB, through vgdb) ran
# against a recorder RECORDER_PID whose Valgrind waits for a debugger
# (values-vgwrap.sh: --vgdb-error=0): when the oracle did not finish (no
# "E" line in ORACLE_FILE: GDB could not connect, or failed), stop that
# Valgrind, which would wait for ever, and fail showing GDB_OUT.
# GDB for the record-full oracle, with ../oracle's preload when it is built
# (../oracle/README.md: native record full on hosts with AMX); the program
# GDB starts does not get it (record_full.py).
oracle_gdb() {
	if [ -n "${HWTREC_ORACLE_PRELOAD:-}" ] && [ -e "$HWTREC_ORACLE_PRELOAD" ]; then
		LD_PRELOAD="$HWTREC_ORACLE_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}" gdb "$@"
	else
		gdb "$@"
	fi
}

oracle_finished() {	# RECORDER_PID ORACLE_FILE GDB_OUT
	grep -q '^E ' "$2" 2>/dev/null && return 0
	pkill -KILL -P "$1" 2>/dev/null
	wait "$1"
	show "$3"
	fail "the oracle did not finish"
}

# Expect exit status $2 (a number) from the command run by the caller, whose
# status is $1; $3 names the command.
expect_status() {
	[ "$1" = "$2" ] || fail "$3 exited with status $1, expected $2"
}

# The recording in $WORK/rec.hwtrec says the program died of signal $1.
check_end_signal() {
	m="$WORK/rec.hwtrec/manifest.json"
	state=$(jq -r '.end.state' "$m")
	sig=$(jq -r '.end.signal // empty' "$m")
	[ "$state" = signaled ] && [ "$sig" = "$1" ] || {
		echo "manifest end is state=$state signal=$sig, expected signaled $1" >&2
		return 1
	}
}

# GDB's backtrace of the recording's core, given the program, in
# $WORK/gdb-bt.txt (and the log); fails when the recording has no core.
core_backtrace() {
	m="$WORK/rec.hwtrec/manifest.json"
	core=$(jq -r '.core // empty' "$m")
	[ -n "$core" ] && [ -f "$WORK/rec.hwtrec/$core" ] || {
		echo "the recording has no core (manifest core: '$core')" >&2
		return 1
	}
	gdb -nx -batch -ex 'set width 0' -ex bt "$PROGDIR/$name" \
		"$WORK/rec.hwtrec/$core" >"$WORK/gdb-bt.txt" 2>&1
	show "$WORK/gdb-bt.txt"
}

# GDB, given the program and the recording's core, shows a backtrace whose
# frames are the functions $2... (innermost first), the first one stopped at
# the line of $1 marked CRASH-HERE.  GDB is the oracle: it reads the core as
# it reads any core.
check_core_backtrace() {
	src=$1
	shift
	core_backtrace || return 1
	line=$(grep -n '/\* CRASH-HERE' "$src" | head -1 | cut -d: -f1)
	i=0
	for fn in "$@"; do
		grep -Eq "^#$i +(0x[0-9a-f]+ in )?$fn " "$WORK/gdb-bt.txt" || {
			echo "frame #$i of GDB's backtrace is not $fn" >&2
			return 1
		}
		i=$((i + 1))
	done
	if [ -n "$line" ]; then
		grep -Eq "^#0 .*$(basename "$src"):$line\$" "$WORK/gdb-bt.txt" || {
			echo "frame #0 is not at $(basename "$src"):$line (CRASH-HERE)" >&2
			return 1
		}
	fi
}

# The program printed the same under recording as natively.
check_same_stdout() {
	cmp -s "$WORK/stepper.stdout" "$WORK/record.stdout" || {
		echo "the program's output differs under hwtrec record:" >&2
		diff "$WORK/stepper.stdout" "$WORK/record.stdout" >&2
		return 1
	}
}

# GDB's backtrace of the recording's core holds the functions $@ in this
# order (other frames, e.g. in libc, may come between).
check_core_backtrace_contains() {
	core_backtrace || return 1
	frames=$(sed -En 's/^#[0-9]+ +(0x[0-9a-f]+ in )?([^ ]+) .*/\2/p' "$WORK/gdb-bt.txt")
	for fn in "$@"; do
		frames=$(printf '%s\n' "$frames" | sed -n "/^$fn\$/,\$p")
		[ -n "$frames" ] || {
			echo "GDB's backtrace lacks $fn (in the order $*)" >&2
			return 1
		}
		frames=$(printf '%s\n' "$frames" | sed 1d)
	done
}

# threads: the program printed "threads: order W1 ... W8", the workers (by
# creation number) in the order they held the mutex.  If worker A held it
# before worker B, A began before B ended, which the recording's clocks must
# show, in two independent places:
#   - the sideband: thread-start TSC of A < thread-exit TSC of B;
#   - the trace itself: A's first TSC packet < B's last TSC packet (read with
#     libipt's packet decoder, hwtr-pt-times).
# If the dump carries a per-instruction "tsc", the stronger check is made as
# well: the TSC of each worker's call to pthread_mutex_unlock (made while
# holding the mutex) must increase strictly along the order.  Workers are
# matched to recorded threads by tid order (main first, then creation order).
check_happens_before() {
	rec="$WORK/rec.hwtrec"
	order=$(sed -n 's/^threads: order //p' "$WORK/record.stdout")
	[ -n "$order" ] || { echo "no 'threads: order' line in the output" >&2; return 1; }
	tids=$(jq -r '.threads[].tid' "$rec/manifest.json" | sort -n)
	n=$(printf '%s\n' "$tids" | wc -l)
	[ "$n" -eq 9 ] || { echo "the manifest lists $n threads, expected 9" >&2; return 1; }
	echo "mutex order (worker numbers): $order"
	prev=
	prev_unlock=
	have_tsc=$(grep -c '"tsc"' "$WORK/dump.jsonl" | head -1)
	for w in $order; do
		tid=$(printf '%s\n' "$tids" | sed -n "$((w + 1))p")
		start=$(jq -r "select(.event==\"thread-start\" and .tid==$tid) | .tsc" "$rec/sideband.jsonl" | head -1)
		end=$(jq -r "select(.event==\"thread-exit\" and .tid==$tid) | .tsc" "$rec/sideband.jsonl" | head -1)
		[ -n "$start" ] && [ -n "$end" ] || {
			echo "worker $w (tid $tid) has no thread-start/thread-exit in the sideband" >&2
			return 1
		}
		stream=$(jq -r ".threads[] | select(.tid == $tid) | .stream" "$rec/manifest.json")
		span=$("$PTTIMES" "$rec/$stream") || { echo "cannot read $rec/$stream" >&2; return 1; }
		set -- $span
		first=$2 last=$3
		[ "$4" -gt 0 ] || { echo "worker $w: no TSC packet in $stream" >&2; return 1; }
		echo "worker $w: tid $tid sideband start $start exit $end; trace TSC $first..$last"
		if [ -n "$prev" ]; then
			set -- $prev
			[ "$1" -lt "$end" ] || {
				echo "worker $3 held the mutex before worker $w, but its thread-start (tsc $1) is after worker $w's thread-exit (tsc $end)" >&2
				return 1
			}
			[ "$4" -lt "$last" ] || {
				echo "worker $3 held the mutex before worker $w, but its first TSC packet ($4) is after worker $w's last ($last)" >&2
				return 1
			}
		fi
		prev="$start $end $w $first"
		if [ "$have_tsc" -gt 0 ]; then
			unlock=$(jq -r "select(.thread==$tid and ((.insn // \"\") | test(\"call.*pthread_mutex_unlock\"))) | .tsc" "$WORK/dump.jsonl" | head -1)
			[ -n "$unlock" ] || { echo "worker $w: no call to pthread_mutex_unlock with a tsc in the dump" >&2; return 1; }
			if [ -n "$prev_unlock" ] && [ "$prev_unlock" -ge "$unlock" ]; then
				echo "worker $w unlocked at tsc $unlock, not after the previous holder ($prev_unlock)" >&2
				return 1
			fi
			prev_unlock=$unlock
		fi
	done
	[ "$have_tsc" -gt 0 ] ||
		echo "note: the dump has no per-instruction tsc; checked thread start/exit (sideband) and trace TSC spans only"
}

# File offset of symbol $2 in program $1 (nm's address, placed with the
# executable PT_LOAD of readelf), printed as 0x... in the stepper's format.
sym_offset() {
	addr=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$addr" ] || { echo "no symbol $2 in $1" >&2; return 1; }
	vaddr_to_offset "$1" "0x$addr"
}

vaddr_to_offset() {
	readelf -lW "$1" | awk '$1 == "LOAD" && $7 == "E" || $1 == "LOAD" && $8 == "E" { print $2, $3, $5 }' |
	while read -r off va size; do
		if [ $(($2)) -ge $((va)) ] && [ $(($2)) -lt $((va + size)) ]; then
			printf '0x%x\n' $(($2 - va + off))
		fi
	done
}

# Offset of the first instruction of function $2 in $1 whose disassembly
# matches the extended regex $3 (objdump, AT&T syntax).
insn_offset() {
	a=$(objdump -d --no-show-raw-insn "$1" |
		awk -v f="<$2>:" -v re="$3" '
			$2 == f { inside = 1; next }
			inside && /^$/ { exit }
			inside && $0 ~ re { sub(":", "", $1); print $1; exit }')
	[ -n "$a" ] || { echo "no instruction matching '$3' in $2 of $1" >&2; return 1; }
	vaddr_to_offset "$1" "0x$a"
}

# How many times the stepper listing $1 has offset $2 (any thread).
count_offset() {
	awk -v o="$2" '$1 != "#" && $3 == o { n++ } END { print n + 0 }' "$1"
}

# The recording's core shows the program where GDB shows it on the live
# process stopped at the same point: the same function and offset of the PC
# (`info symbol`, so load addresses do not matter), the same backtrace, and
# the same values of the GDB expressions $2... (registers that hold no
# address, variables).  $1 is what stops the live program besides a fatal
# signal (a GDB command run before `run`, e.g. "catch syscall exit_group"),
# or "".  GDB on the live program is the oracle.
check_core_like_live() {
	m="$WORK/rec.hwtrec/manifest.json"
	core=$(jq -r '.core // empty' "$m")
	[ -n "$core" ] && [ -f "$WORK/rec.hwtrec/$core" ] || {
		echo "the recording has no core (manifest core: '$core')" >&2
		return 1
	}
	stop=$1
	shift
	exprs=$(for e in "$@"; do printf '%s\n' "$e"; done)
	set -- -ex 'echo PC: ' -ex 'info symbol $pc'
	while IFS= read -r e; do
		[ -n "$e" ] && set -- "$@" -ex "printf \"VAL $e 0x%lx\\n\", $e"
	done <<EXPRS
$exprs
EXPRS
	set -- "$@" -ex 'set width 0' -ex 'echo BT:\n' -ex bt
	(cd "$WORK" && gdb -nx -batch ${stop:+-ex "$stop"} -ex run "$@" \
		"$PROGDIR/$name" >gdb-live.txt 2>&1 </dev/null)
	gdb -nx -batch "$@" "$PROGDIR/$name" "$WORK/rec.hwtrec/$core" \
		>"$WORK/gdb-core.txt" 2>&1
	for f in live core; do
		{ grep -E '^(PC:|VAL )' "$WORK/gdb-$f.txt"
		  sed -n '/^BT:$/,$p' "$WORK/gdb-$f.txt" |
			sed -En 's/^#[0-9]+ +(0x[0-9a-f]+ in )?([^ ]+) .*/FRAME \2/p'; } >"$WORK/state-$f.txt"
	done
	show "$WORK/state-live.txt"
	grep -q '^PC:' "$WORK/state-live.txt" || {
		echo "GDB on the live program shows no PC (gdb-live.txt)" >&2
		return 1
	}
	diff "$WORK/state-live.txt" "$WORK/state-core.txt" >&2 || {
		echo "the core's state differs from the live program's (< live, > core)" >&2
		return 1
	}
}

# At the fatal signal: check_core_like_live with no other stop.
check_fault_like_native() {
	check_core_like_live "" "$@"
}
