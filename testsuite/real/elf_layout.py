"""elf_layout.py: the two facts of an x86-64 ELF file the real-program
tests place code with: its entry point and its .text section (GDB's `info
sharedlibrary` From/To are the .text section's loaded addresses)."""

import struct


def _read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("%s: not a 64-bit little-endian ELF file" % path)
    return data


def entry(path):
    """e_entry, the link-time address of the first instruction."""
    return struct.unpack_from("<Q", _read(path), 0x18)[0]


def text_section(path):
    """(sh_addr, sh_size) of .text."""
    data = _read(path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    if shoff == 0 or shoff + shnum * shentsize > len(data):
        raise ValueError("%s: no usable section headers" % path)

    def section(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    names = section(shstrndx)[4]
    for i in range(shnum):
        sh = section(i)
        start = names + sh[0]
        if data[start:data.index(b"\0", start)] == b".text":
            return sh[3], sh[5]
    raise ValueError("%s: no .text section" % path)
