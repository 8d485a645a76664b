#!/bin/sh
# test-server-core: at the crash, GDB through hwtrec-server shows what GDB
# shows reading the same core directly (the oracle): backtraces of both
# threads, every general, x87 and SSE register, memory, disassembly, locals
# of an outer frame, and the shared-library list.
set -eu
: "${HWTREC_SERVER:?}" "${TESTDIR:?}" "${SRCDIR:?}"
prog="$TESTDIR/crash-threads"
work=$(mktemp -d /tmp/hwtrec-core-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

sh "$SRCDIR/make-core-recording.sh" "$work"

cat > cmds.gdb <<'GDB'
echo ==bt\n
bt
echo ==regs\n
info registers rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags cs ss ds es fs gs fs_base gs_base
echo ==fp\n
info registers fctrl fstat ftag fiseg fioff foseg fooff fop mxcsr
p $st0
p $st7
p/x $xmm0.uint128
p/x $xmm1.uint128
p/x $xmm7.uint128
p/x $xmm15.uint128
echo ==mem\n
x/16xg $sp
x/6i $pc
echo ==frame\n
frame 3
info locals
p first
p last
echo ==threads\n
thread 2
bt
thread 1
echo ==libs\n
info sharedlibrary
echo ==siginfo\n
p $_siginfo.si_signo
p $_siginfo.si_code
p $_siginfo._sifields._sigfault.si_addr
echo ==unreadable\n
frame 3
p *first.next
GDB

# Only what follows the first marker is compared: the banners differ.
# Thread names differ (libthread_db on the core: "Thread 0x.. (LWP n)").
# Through the server GDB reads the libraries over vFile, and names them so
# ("target:/lib/...").  On a host with AMX the kernel's core holds an xstate
# note larger than GDB 13 knows, and GDB on the core warns "Unexpected size
# of section `.reg-xstate/PID'" (platform-facts §F); the server's registers
# come from the recording, so it has no such note.
normalise() {
	sed -n '/^==bt/,$p' "$1" | sed 's| target:/| /|' | grep -v 'warning: Section' |
		grep -v "warning: Unexpected size of section \`.reg-xstate/" |
		grep -v '^\[Switching to thread' | grep -v '^\[Inferior 1' |
		grep -v '^\[Current thread'
}
gdb -nx -batch -x cmds.gdb "$prog" oracle.core > oracle.out 2>&1 || true
gdb -nx -batch -ex "target remote | $HWTREC_SERVER --no-history rec.hwtrec" \
	-x cmds.gdb > server.out 2>&1 || true
normalise oracle.out > oracle.txt
normalise server.out > server.txt
if ! diff -u oracle.txt server.txt; then
	echo "FAIL: GDB through hwtrec-server differs from GDB on the core"
	exit 1
fi
# The comparison must have covered something real.
for want in 'in inner (n=0x0)' 'in idle_thread' 'rip            0x' 'libc.so.6' \
	    'Cannot access memory at address 0x0' 'first = {value = 1, next = 0x0}'; do
	grep -q "$want" server.txt || { echo "FAIL: '$want' missing"; cat server.txt; exit 1; }
done
# $_siginfo at the crash (the core's NT_SIGINFO): SIGSEGV, SEGV_MAPERR, the
# NULL that inner() loaded through.
siginfo=$(sed -n '/^==siginfo/,/^==unreadable/p' server.txt | grep '^\$[0-9]* = ' | sed 's/^\$[0-9]* = //' | tr '\n' ' ')
if [ "$siginfo" != "11 1 (void *) 0x0 " ]; then
	echo "FAIL: \$_siginfo at the crash: '$siginfo', want '11 1 (void *) 0x0'"
	sed -n '/^==siginfo/,/^==unreadable/p' server.txt; exit 1
fi
echo "PASS: $(wc -l < server.txt) lines identical"
