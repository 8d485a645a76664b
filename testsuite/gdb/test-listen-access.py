#!/usr/bin/env python3
"""test-listen-access: `hwtrec-server --listen` serves its owner only (issue
16: another local user connected to the loopback port and read memory from a
mode-0600 core).  A second user (`nobody`, through setpriv) tries each
transport and must get nothing: for the Unix socket, no way in to the
directory (mode 0700), and with the directory and socket opened up by hand,
a connection closed unanswered (SO_PEERCRED); for loopback TCP, a
connection closed unanswered (/proc/net/tcp's owner).  Then the owner's GDB
connects and reads the crash's registers: the oracle is GDB on the same
core.  Needs root (to be someone else); skipped (77) otherwise."""
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

SERVER = os.environ["HWTREC_SERVER"]
TESTDIR = os.environ["TESTDIR"]
SRCDIR = os.environ["SRCDIR"]
NOBODY = 65534
failures = []

# Connect (to a socket path, a port, or "6:PORT": 127.0.0.1 through an
# IPv6 socket, as an IPv4-mapped address), send what GDB sends first and a
# memory read, and print everything that came back; "EOF" when the server
# closed, or the connect error.
CLIENT = r"""
import socket, sys
target = sys.argv[1]
try:
    if target.startswith("/"):
        s = socket.socket(socket.AF_UNIX)
        s.connect(target)
    elif target.startswith("6:"):
        s = socket.socket(socket.AF_INET6)
        s.connect(("::ffff:127.0.0.1", int(target[2:])))
    else:
        s = socket.create_connection(("127.0.0.1", int(target)))
except OSError as e:
    print("CONNECT-ERROR", e.errno)
    sys.exit(0)
s.settimeout(float(sys.argv[2]) if len(sys.argv) > 2 else 10)
def frame(p):
    return b"$" + p + b"#" + b"%02x" % (sum(p) & 0xff)
got = b""
try:
    s.sendall(frame(b"qSupported:swbreak+") + b"+" + frame(b"g") + frame(b"m400000,40"))
    while True:
        c = s.recv(4096)
        if not c:
            print("EOF")
            break
        got += c
except OSError as e:
    print("ERROR", e)
print("RECEIVED", repr(got))
"""


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def closed_unanswered(out):
    """Not a byte back (not even an ack), and the connection ended: EOF, or
    a reset or broken pipe when the server closed while we still wrote."""
    return "RECEIVED b''" in out and ("EOF" in out or "ERROR" in out)


def as_nobody(target):
    return subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                           "--clear-groups", sys.executable, "-c", CLIENT, target],
                          capture_output=True, text=True, timeout=30).stdout


def as_owner(target):
    """The client as ourselves, giving up after 3 s of silence."""
    return subprocess.run([sys.executable, "-c", CLIENT, target, "3"],
                          capture_output=True, text=True, timeout=30).stdout


def gdb_rip(target_cmd):
    out = subprocess.run(["gdb", "-nx", "-batch", "-ex", target_cmd,
                          "-ex", "p/x $rip", "-ex", "detach"],
                         capture_output=True, text=True, timeout=60)
    m = re.search(r"^\$1 = (0x[0-9a-f]+)", out.stdout, re.M)
    return m.group(1) if m else out.stdout + out.stderr


servers = []


def start(args, work):
    err = open(os.path.join(work, "server.err"), "w+")
    p = subprocess.Popen([SERVER] + args, stdout=subprocess.DEVNULL, stderr=err)
    servers.append(p)
    return p, err


def exit_status(p):
    """The server's exit status, or None (and it is killed) if it does not
    end within 20 s: a failing check must not leave it waiting."""
    try:
        return p.wait(20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None


def wait_line(err, pattern, p):
    import time
    for _ in range(200):
        err.seek(0)
        m = re.search(pattern, err.read())
        if m:
            return m
        if p.poll() is not None:
            break
        time.sleep(0.05)
    err.seek(0)
    print("server stderr:", err.read())
    return None


def server_log(err):
    err.seek(0)
    return err.read()


def unix_default(work, rec, oracle):
    p, err = start(["--listen", rec], work)
    m = wait_line(err, r"listening on (/\S+)", p)
    check(m is not None, "--listen names its Unix socket")
    if not m:
        p.kill()
        return
    path = m.group(1)
    d = os.path.dirname(path)
    st = os.stat(d)
    check(stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.geteuid(),
          "the socket's directory %s is ours, mode 0700 (%o)" % (d, st.st_mode))
    out = as_nobody(path)
    check("CONNECT-ERROR 13" in out, "nobody cannot reach the socket: " + out.strip())
    # The directory and the socket opened up: the peer's uid still counts.
    os.chmod(d, 0o711)
    os.chmod(path, 0o666)
    out = as_nobody(path)
    check(closed_unanswered(out),
          "nobody's connection is closed unanswered: " + out.strip())
    check("refused a connection from uid %d" % NOBODY in server_log(err),
          "the server says it refused uid %d" % NOBODY)
    rip = gdb_rip("target remote " + path)
    check(rip == oracle, "the owner's GDB reads rip %s (GDB on the core: %s)" % (rip, oracle))
    check(exit_status(p) == 0, "the server exits 0 after GDB detaches")
    check(not os.path.exists(d), "the socket's directory is gone")


def unix_killed_while_waiting(work, rec):
    import signal
    p, err = start(["--listen", rec], work)
    m = wait_line(err, r"listening on (/\S+)", p)
    if not m:
        p.kill()
        check(False, "--listen names its Unix socket (second server)")
        return
    p.send_signal(signal.SIGTERM)
    rc = exit_status(p)
    check(rc == -signal.SIGTERM, "SIGTERM while waiting ends the server (%s)" % rc)
    check(not os.path.exists(os.path.dirname(m.group(1))),
          "... and its socket's directory is gone")


def unix_path_checked(work, rec):
    shared = os.path.join(work, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o755)
    p, err = start(["--listen=" + os.path.join(shared, "s"), rec], work)
    rc = exit_status(p)
    check(rc not in (0, None) and "mode 0700" in server_log(err),
          "--listen=PATH in a directory others can enter is refused: "
          + server_log(err).strip())


def tcp(work, rec, oracle):
    p, err = start(["--listen", "0", rec], work)
    m = wait_line(err, r"listening on 127\.0\.0\.1:(\d+)", p)
    check(m is not None, "--listen 0 names its port")
    if not m:
        p.kill()
        return
    port = m.group(1)
    out = as_nobody(port)
    check(closed_unanswered(out),
          "nobody's TCP connection is closed unanswered: " + out.strip())
    check("refused a connection from uid %d" % NOBODY in server_log(err),
          "the server says it refused uid %d" % NOBODY)
    out = as_nobody("6:" + port)
    check(closed_unanswered(out),
          "nobody's connection through an IPv6 socket is closed unanswered: "
          + out.strip())
    rip = gdb_rip("target remote 127.0.0.1:" + port)
    check(rip == oracle, "the owner's GDB reads rip %s (GDB on the core: %s)" % (rip, oracle))
    check(exit_status(p) == 0, "the server exits 0 after GDB detaches")
    # The owner through an IPv6 socket (its socket is in /proc/net/tcp6).
    p, err = start(["--listen", "0", rec], work)
    m = wait_line(err, r"listening on 127\.0\.0\.1:(\d+)", p)
    if m:
        out = as_owner("6:" + m.group(1))
        check("PacketSize=" in out, "the owner through an IPv6 socket is "
              "answered: " + out.strip()[:80])
        check(exit_status(p) == 0, "... and the server exits 0 when it goes")
    else:
        p.kill()
        check(False, "--listen 0 names its port (second server)")


def main():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("SKIP: needs root and setpriv to connect as another user")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="hwtrec-listen-") as work:
        subprocess.run(["sh", os.path.join(SRCDIR, "make-core-recording.sh"), work],
                       check=True, capture_output=True)
        rec = os.path.join(work, "rec.hwtrec")
        for name in os.listdir(rec):
            if name.startswith("core"):
                os.chmod(os.path.join(rec, name), 0o600)
        out = subprocess.run(["gdb", "-nx", "-batch", "-c", os.path.join(work, "oracle.core"),
                              os.path.join(TESTDIR, "crash-threads"), "-ex", "p/x $rip"],
                             capture_output=True, text=True).stdout
        oracle = re.search(r"^\$1 = (0x[0-9a-f]+)", out, re.M).group(1)
        try:
            unix_default(work, rec, oracle)
            unix_killed_while_waiting(work, rec)
            unix_path_checked(work, rec)
            tcp(work, rec, oracle)
        finally:
            for p in servers:
                if p.poll() is None:
                    p.kill()
                    p.wait()


main()
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
