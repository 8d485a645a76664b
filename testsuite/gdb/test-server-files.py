#!/usr/bin/env python3
"""test-server-files: hwtrec-server opens only regular files (issue 16: a
core or mapping path naming a FIFO hung the server forever, waiting for a
writer in open()).  A recording (mkrec-long's, small) is given a core that is
a FIFO: the server must refuse it, naming it, within seconds.  The same
recording with a mapping whose file is a FIFO: a memory read there (served
by the server's memory.c; --no-history, so that the library never opens
it) must answer an error at once, and a read in the real mapping must still
give the code's bytes (oracle: the ELF file itself)."""
import json
import os
import select
import subprocess
import sys
import tempfile

SERVER = os.environ["HWTREC_SERVER"]
TESTDIR = os.environ["TESTDIR"]
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def frame(payload):
    return b"$" + payload + b"#" + b"%02x" % (sum(payload) & 0xFF)


def ask(p, payload, timeout=10.0):
    """Send PAYLOAD, return the reply's payload (acks skipped), or None."""
    os.write(p.stdin.fileno(), frame(payload))
    buf = b""
    while True:
        r, _, _ = select.select([p.stdout], [], [], timeout)
        if not r:
            return None
        c = os.read(p.stdout.fileno(), 65536)
        if not c:
            return None
        buf += c
        start = buf.find(b"$")
        end = buf.find(b"#", start + 1)
        if start >= 0 and end >= 0 and len(buf) >= end + 3:
            os.write(p.stdin.fileno(), b"+")
            return buf[start + 1:end]


def make_recording(work, name):
    rec = os.path.join(work, name)
    subprocess.run([os.path.join(TESTDIR, "mkrec-long"),
                    os.path.join(TESTDIR, "long-code"), rec, "10"],
                   check=True, capture_output=True)
    return rec


def core_fifo(work):
    rec = make_recording(work, "core-fifo.hwtrec")
    with open(os.path.join(rec, "manifest.json")) as f:
        manifest = json.load(f)
    manifest["core"] = "core"
    with open(os.path.join(rec, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    os.mkfifo(os.path.join(rec, "core"))
    p = subprocess.Popen([SERVER, rec], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _, err = p.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        check(False, "a FIFO as the core: the server hung (killed after 15 s)")
        return
    err = err.decode(errors="replace")
    check(p.returncode != 0, "a FIFO as the core: the server refuses to start")
    check("core" in err and "regular file" in err,
          "... naming the core and why: " + err.strip())


def mapping_fifo(work):
    rec = make_recording(work, "map-fifo.hwtrec")
    fifo = os.path.join(work, "mapped-fifo")
    os.mkfifo(fifo)
    # The sideband grows after the recording finished: drop its length and
    # checksum from the manifest, or the reader refuses it as changed.
    with open(os.path.join(rec, "manifest.json")) as f:
        manifest = json.load(f)
    manifest.get("files", {}).pop("sideband.jsonl", None)
    with open(os.path.join(rec, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    with open(os.path.join(rec, "sideband.jsonl"), "a") as f:
        f.write(json.dumps({"event": "mmap", "tsc": 0, "addr": "0x7000000000",
                            "len": 4096, "pgoff": 0, "prot": "r-x",
                            "path": fifo}) + "\n")
    code = os.path.join(TESTDIR, "long-code")
    p = subprocess.Popen([SERVER, "--no-history", rec], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        reply = ask(p, b"m7000000000,10")
        check(reply is not None and reply.startswith(b"E"),
              "a read in a mapping whose file is a FIFO answers an error: %r" % reply)
        # The real mapping: the first code bytes, at file offset 0x1000.
        with open(code, "rb") as f:
            f.seek(0x1000)
            expected = f.read(8).hex().encode()
        reply = ask(p, b"m401000,8")
        check(reply == expected, "the code's own mapping still reads %r: %r"
              % (expected, reply))
        ask(p, b"k", timeout=2)
    finally:
        p.kill()
        p.wait()


def main():
    with tempfile.TemporaryDirectory(prefix="hwtrec-files-") as work:
        core_fifo(work)
        mapping_fifo(work)


main()
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
