#!/usr/bin/env python3
"""on_terminal.py: run a shell command on a terminal of its own and keep
every byte the terminal shows.

usage: on_terminal.py OUT COMMAND

COMMAND runs under sh -c with stdin, stdout and stderr on a new
pseudo-terminal (so isatty() is true, as for a user at a terminal); what it
writes there (with the terminal's \\n -> \\r\\n) goes to the file OUT.  Exits
with COMMAND's status.  Used instead of script(1), which with its stdin at
end of file sometimes ended the session before the command's output was
read: a test then saw nothing at all.
"""
import os
import subprocess
import sys


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    out, command = argv[1], argv[2]
    master, slave = os.openpty()
    child = subprocess.Popen(["sh", "-c", command], stdin=slave, stdout=slave,
                             stderr=slave, close_fds=True)
    os.close(slave)
    with open(out, "wb") as f:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:		# EIO: every writer has closed the terminal
                break
            if not data:
                break
            f.write(data)
    os.close(master)
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
