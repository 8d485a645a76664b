#!/usr/bin/env python3
"""test-listing-stream: a listing of a whole thread (qHwtr:insn-history over
every instruction) streams out of hwtrec-server: its memory does not grow
with the range (issue 16: about 390 bytes of server memory per instruction,
the text and its hex copy built whole before the reply).

The recording is mkrec-long's (libipt's encoder over long-loop.S), so every
line is known: its number, and its address from objdump's disassembly
(_start's xor, then add/sub/dec/jnz per iteration, then exit's mov, xor,
syscall).  The server's peak RSS (VmHWM) may grow by at most MAX_GROWTH
while it sends a listing of INSNS instructions (several times that in
text)."""
import os
import re
import select
import subprocess
import sys
import tempfile

SERVER = os.environ["HWTREC_SERVER"]
TESTDIR = os.environ["TESTDIR"]
ITERATIONS = 150000
MAX_GROWTH_KB = 32 * 1024
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def frame(payload):
    return b"$" + payload + b"#" + b"%02x" % (sum(payload) & 0xFF)


def vm_hwm_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"^VmHWM:\s+(\d+) kB", f.read(), re.M).group(1))


def disassembly(code):
    out = subprocess.run(["objdump", "-d", code], capture_output=True, text=True,
                         check=True).stdout
    return [int(m.group(1), 16) for m in re.finditer(r"^\s*([0-9a-f]+):", out, re.M)]


class Conn:
    def __init__(self, p):
        self.p = p
        self.buf = b""

    def read(self):
        r, _, _ = select.select([self.p.stdout], [], [], 120)
        if not r:
            raise TimeoutError("no reply")
        c = os.read(self.p.stdout.fileno(), 1 << 20)
        if not c:
            raise EOFError("server closed")
        self.buf += c

    def send(self, payload):
        os.write(self.p.stdin.fileno(), frame(payload))

    def reply(self):
        """A whole (small) reply's payload."""
        while b"#" not in self.buf[self.buf.find(b"$") + 1:] or \
                len(self.buf) < self.buf.index(b"#", self.buf.find(b"$")) + 3:
            self.read()
        s = self.buf.index(b"$")
        e = self.buf.index(b"#", s)
        payload, self.buf = self.buf[s + 1:e], self.buf[e + 3:]
        return payload

    def stream_lines(self):
        """The hex payload of a long reply, decoded, line by line, as it
        comes (the test keeps no more than a piece of it either); then
        self.checksum_ok says whether the checksum matched."""
        while b"$" not in self.buf:
            self.read()
        self.buf = self.buf[self.buf.index(b"$") + 1:]
        pending = b""
        total = 0
        while True:
            end = self.buf.find(b"#")
            part = self.buf if end < 0 else self.buf[:end]
            even = len(part) - len(part) % 2
            total += sum(part[:even])
            pending += bytes.fromhex(part[:even].decode())
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield line.decode()
            self.buf = self.buf[even:]
            if end >= 0 and even == end:
                while len(self.buf) < 3:
                    self.read()
                self.checksum_ok = int(self.buf[1:3], 16) == total % 256
                self.buf = self.buf[3:]
                if pending:
                    yield pending.decode()
                return
            self.read()


def main():
    code = os.path.join(TESTDIR, "long-code")
    addrs = disassembly(code)
    start, loop_body, exit_seq = addrs[0], addrs[1:5], addrs[5:8]
    with tempfile.TemporaryDirectory(prefix="hwtrec-listing-") as work:
        rec = os.path.join(work, "rec.hwtrec")
        made = subprocess.run([os.path.join(TESTDIR, "mkrec-long"), code, rec,
                               str(ITERATIONS)], capture_output=True, text=True,
                              check=True)
        insns = int(made.stdout)
        p = subprocess.Popen([SERVER, rec], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
        c = Conn(p)
        try:
            c.send(b"QStartNoAckMode")
            check(c.reply() == b"OK", "no-ack mode")
            os.write(p.stdin.fileno(), b"+")   # the OK is still acknowledged
            c.send(b"qHwtr:info:1")   # waits for the history
            info = bytes.fromhex(c.reply().decode()).decode()
            check('"instructions":%d,' % insns in info,
                  "the history has the generator's %d instructions" % insns)
            before = vm_hwm_kb(p.pid)
            c.send(b"qHwtr:insn-history:1:1,%x:0" % insns)
            expected_n = 1
            wrong = None
            for line in c.stream_lines():
                m = re.match(r"^(\d+)\t\s*(?:=> )?0x([0-9a-f]+)", line)
                n = expected_n
                if n == 1:
                    want = start
                elif n > insns - 3:
                    want = exit_seq[n - (insns - 2)]
                else:
                    want = loop_body[(n - 2) % 4]
                if not m or int(m.group(1)) != n or int(m.group(2), 16) != want:
                    wrong = wrong or "line %d: %r (expected %#x)" % (n, line, want)
                expected_n += 1
            after = vm_hwm_kb(p.pid)
            check(c.checksum_ok, "the streamed reply's checksum")
            check(wrong is None, "every line has its number and objdump's address"
                  + ("" if wrong is None else ": " + wrong))
            check(expected_n - 1 == insns, "%d lines for %d instructions"
                  % (expected_n - 1, insns))
            check(after - before <= MAX_GROWTH_KB,
                  "the server's peak RSS grew by %d KiB for %d instructions "
                  "(%.1f bytes each; at most %d KiB)"
                  % (after - before, insns, (after - before) * 1024.0 / insns,
                     MAX_GROWTH_KB))
            c.send(b"vKill;1")
            c.reply()
        finally:
            p.kill()
            p.wait()


main()
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
