#!/usr/bin/env python3
"""test-protocol: hwtrec-server over a pipe, fed well-formed, malformed,
truncated and oversized packets.  Expected replies follow the GDB manual's
"Remote Protocol" appendix: '+'/'-' acks, empty reply for unknown packets,
"E NN" for errors, 'm'/'l' for qXfer slices, and a clean exit (status 0) when
the connection drops."""
import os
import re
import select
import socket
import subprocess
import sys
import tempfile

SERVER = os.environ["HWTREC_SERVER"]
SRCDIR = os.environ["SRCDIR"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    else:
        print("ok:", what)


def frame(payload: bytes) -> bytes:
    return b"$" + payload + b"#" + b"%02x" % (sum(payload) & 0xFF)


class Server:
    def __init__(self, rec):
        self.p = subprocess.Popen([SERVER, "--no-history", rec],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.buf = b""

    def send_raw(self, data: bytes):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def read_some(self, timeout=5.0):
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not r:
            raise TimeoutError("no reply from the server")
        chunk = os.read(self.p.stdout.fileno(), 65536)
        if not chunk:
            raise EOFError("server closed its output")
        self.buf += chunk

    def read_ack(self):
        while not self.buf:
            self.read_some()
        c, self.buf = self.buf[:1], self.buf[1:]
        return c

    def read_packet(self, ack=True):
        """One reply; checks its checksum and acknowledges it."""
        while b"#" not in self.buf or len(self.buf) < self.buf.index(b"#") + 3:
            self.read_some()
        start = self.buf.index(b"$")
        end = self.buf.index(b"#", start)
        body, cs = self.buf[start + 1:end], self.buf[end + 1:end + 3]
        self.buf = self.buf[end + 3:]
        if int(cs, 16) != sum(body) & 0xFF:
            raise ValueError("bad checksum from server: %r" % body)
        if ack:
            self.send_raw(b"+")
        out, i = b"", 0
        while i < len(body):  # unescape
            if body[i:i + 1] == b"}":
                out += bytes([body[i + 1] ^ 0x20])
                i += 2
            else:
                out += body[i:i + 1]
                i += 1
        return out

    def ask(self, payload: bytes, ack=True):
        self.send_raw(frame(payload))
        if ack:
            a = self.read_ack()
            if a != b"+":
                raise ValueError("expected '+', got %r" % a)
        return self.read_packet(ack)

    def wait(self, timeout=10):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return None


def main():
    work = tempfile.mkdtemp(prefix="hwtrec-proto-")
    subprocess.run(["sh", os.path.join(SRCDIR, "make-core-recording.sh"), work],
                   check=True)
    rec = os.path.join(work, "rec.hwtrec")

    s = Server(rec)
    sup = s.ask(b"qSupported:multiprocess+;swbreak+;hwbreak+")
    for feat in (b"ReverseStep+", b"ReverseContinue+", b"PacketSize=", b"swbreak+",
                 b"qXfer:features:read+", b"qXfer:auxv:read+", b"Qbtrace:pt+"):
        check(feat in sup, "qSupported offers %s" % feat.decode())
    check(s.ask(b"qFooBar") == b"", "unknown packet: empty reply")
    check(s.ask(b"vMustReplyEmpty") == b"", "vMustReplyEmpty: empty reply")
    for bad in (b"m12", b"m12,", b"mzz,4", b"Hgzz", b"Z9,0,0", b"Z0,10",
                b"vCont;r1,2:1", b"vCont;", b"qXfer:features:read:target.xml:zz",
                b"p1234567", b"bx", b"c1234", b"m10000000000000000,1",
                b"qHwtr:goto:1:"):
        check(s.ask(bad) == b"E01", "malformed %s: E01" % bad.decode())
    check(s.ask(b"pff") == b"E01", "register 0xff does not exist: E01")
    check(s.ask(b"M1000,1:00") == b"E1e", "memory writes refused: E1e (EROFS)")
    # GDB 13 prints the text of an E. reply to G and P: the reason.
    for write in (b"G00", b"P0=0100000000000000"):
        check(s.ask(write).startswith(b"E.the recording is read-only"),
              "register write %s refused saying why" % write.decode())
    check(s.ask(b"m0,8") == b"E0e", "unmapped memory: E0e")
    check(s.ask(b"x10,0") == b"b", "x with length 0: 'b'")
    check(s.ask(b"Z2,1000,8") == b"", "watchpoints unsupported: empty reply")
    check(s.ask(b"Z0,1000,1") == b"OK" and s.ask(b"z0,1000,1") == b"OK",
          "Z0/z0 accepted")

    # Threads: the crashing thread first, then the other one.
    tl = s.ask(b"qfThreadInfo")
    check(tl.startswith(b"m") and tl.count(b",") == 1, "two threads listed: %r" % tl)
    check(s.ask(b"qsThreadInfo") == b"l", "thread list ends")
    tids = tl[1:].split(b",")
    check(s.ask(b"qC") == b"QC" + tids[0], "qC is the crashing thread")
    check(s.ask(b"T" + tids[1]) == b"OK", "second thread alive")
    check(s.ask(b"Tfffffff") == b"E02", "unknown thread: E02")
    check(s.ask(b"Hgfffffff") == b"E02", "Hg to an unknown thread: E02")
    check(s.ask(b"Hg" + tids[1]) == b"OK", "Hg to the second thread")
    stop = s.ask(b"?")
    check(stop.startswith(b"T0bthread:" + tids[0] + b";"),
          "halt reason: SIGSEGV in the crashing thread: %r" % stop)
    check(b"10:" in stop, "stop reply carries rip")

    # Registers: 560 bytes, all known at the end of history.
    g = s.ask(b"g")
    check(len(g) == 1120 and b"x" not in g, "g: 560 known bytes at the crash")
    rip = s.ask(b"p10")
    check(len(rip) == 16, "p10 (rip): 8 bytes")

    # qXfer slicing.
    xml = s.ask(b"qXfer:features:read:target.xml:0,10")
    check(xml == b'm<?xml version="1', "target.xml first 16 bytes with 'm': %r" % xml)
    check(s.ask(b"qXfer:features:read:target.xml:100000,10") == b"l",
          "target.xml past its end: 'l'")
    check(s.ask(b"qXfer:features:read:other.xml:0,10") == b"E01",
          "unknown annex: E01")
    check(s.ask(b"qXfer:nonsense:read::0,10") == b"", "unknown qXfer object: empty")

    # At the ends of history (no history here): replaylog stops, no move.
    # bs after Hg (and no Hc: "any thread") moves the Hg thread, as
    # gdbserver resumes its current thread; later stops and qC follow it.
    bs = s.ask(b"bs")
    check(bs.startswith(b"T05thread:" + tids[1] + b";") and
          bs.endswith(b"replaylog:begin;"),
          "bs without history, in the Hg thread: replaylog:begin (%r)" % bs)
    last = tids[1]
    c = s.ask(b"vCont;c")
    check(c.endswith(b"replaylog:end;"), "continue at the end: replaylog:end")

    # The plugin's packets.
    info = bytes.fromhex(s.ask(b"qHwtr:info").decode())
    check(b'"replaying":true' in info and tids[0] in b"%x" % int(tids[0], 16),
          "qHwtr:info is hex JSON: %r" % info[:80])
    check(s.ask(b"qHwtr:goto:" + tids[0] + b":1").startswith(b"E."),
          "qHwtr:goto without history: E.message")
    check(s.ask(b"qHwtr:nonsense") == b"", "unknown qHwtr command: empty")

    # Framing trouble.
    s.send_raw(b"$m0,4#00")
    check(s.read_ack() == b"-", "bad checksum: '-'")
    check(s.ask(b"qC") == b"QC" + last, "resend after '-' is answered")
    s.send_raw(b"garbage+-\x03")
    check(s.ask(b"qC") == b"QC" + last, "noise and ^C between packets ignored")
    s.send_raw(b"$qSupp")  # truncated: a new '$' starts over
    check(s.ask(b"qC") == b"QC" + last, "truncated packet dropped at next '$'")
    big = b"q" + b"a" * 0x20010
    s.send_raw(frame(big))
    check(s.read_ack() == b"+", "oversized packet acknowledged")
    check(s.read_packet() == b"E01", "oversized packet: E01")
    check(s.ask(b"qC") == b"QC" + last, "server works after an oversized packet")

    # No-ack mode: no acks either way.
    check(s.ask(b"QStartNoAckMode") == b"OK", "QStartNoAckMode: OK")
    check(s.ask(b"qC", ack=False) == b"QC" + last, "no-ack mode answers")
    check(s.buf == b"", "no stray acks in no-ack mode")

    # A dropped connection ends the server cleanly.
    s.send_raw(b"$m0,")
    s.p.stdin.close()
    check(s.wait() == 0, "dropped connection: exit status 0")

    # vKill ends it too, after OK.
    s = Server(rec)
    check(s.ask(b"vKill;1") == b"OK", "vKill: OK")
    check(s.wait() == 0, "vKill: exit status 0")

    # --listen: one GDB on loopback TCP; the port (0: any) is on stderr.
    lp = subprocess.Popen([SERVER, "--no-history", "--listen", "0", rec],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    line = lp.stderr.readline().decode()
    m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    check(m is not None, "--listen names its port: %r" % line)
    if m:
        sock = socket.create_connection(("127.0.0.1", int(m.group(1))), timeout=10)
        sock.sendall(frame(b"qC"))
        data = b""
        while data.count(b"#") < 1 or len(data) < data.index(b"#") + 3:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
        check(data == b"+" + frame(b"QC" + tids[0]), "qC over TCP: %r" % data)
        sock.close()
    try:
        check(lp.wait(10) == 0, "--listen: exit status 0 when GDB goes away")
    except subprocess.TimeoutExpired:
        lp.kill()
        check(False, "--listen: server did not exit")

    subprocess.run(["rm", "-rf", work])
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
