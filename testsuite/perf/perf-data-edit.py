#!/usr/bin/env python3
"""perf-data-edit.py FILE EDIT [ARGS]: damage a perf.data the way the import
tests need, with a reader of its own (struct, not our C code).

  records                    list: offset type size
  set-type TYPE NEW          the first record of TYPE gets type NEW
  record-size TYPE SIZE      the first record of TYPE claims SIZE bytes
  auxtrace-size SIZE         the first AUXTRACE's payload size field
  auxtrace-info-type N       AUXTRACE_INFO's trace type
  auxtrace-info-word I V     AUXTRACE_INFO's private word I (V: 0x hex or decimal)
  auxtrace-info-filter LEN [TEXT]
                             Intel PT's AUXTRACE_INFO gets an address filter
                             string of LEN bytes, or TEXT (the record grows;
                             the data and feature sections follow it)
  aux-truncated SIZE [FLAGS] the first AUX record covers SIZE bytes, TRUNCATED
                             (FLAGS: its flags, default 1: TRUNCATED alone)
  record-id TYPE ID          the first record of TYPE gets sample id ID
                             (its last word: sample_id_all's IDENTIFIER)
  magic HEX                  the 8-byte magic, as a little-endian number
  header-size N              the header's size field
  truncate SIZE              cut the file"""
import struct
import sys

path, edit, args = sys.argv[1], sys.argv[2], sys.argv[3:]
data = bytearray(open(path, 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', data, 40)


def records():
    pos, end = data_off, data_off + data_size
    while pos + 8 <= end:
        typ, misc, size = struct.unpack_from('<IHH', data, pos)
        yield pos, typ, size
        if size == 0:
            return
        step = size
        if typ == 71:               # AUXTRACE: the payload follows
            step += struct.unpack_from('<Q', data, pos + 8)[0]
        pos += step


def first(typ):
    for pos, t, size in records():
        if t == typ:
            return pos
    sys.exit(f'no record of type {typ}')


if edit == 'records':
    for pos, t, size in records():
        print(pos, t, size)
    sys.exit(0)
elif edit == 'set-type':
    struct.pack_into('<I', data, first(int(args[0])), int(args[1]))
elif edit == 'record-size':
    struct.pack_into('<H', data, first(int(args[0])) + 6, int(args[1]))
elif edit == 'auxtrace-size':
    struct.pack_into('<Q', data, first(71) + 8, int(args[0]))
elif edit == 'auxtrace-info-type':
    struct.pack_into('<I', data, first(70) + 8, int(args[0]))
elif edit == 'auxtrace-info-word':
    pos = first(70)
    struct.pack_into('<Q', data, pos + 16 + 8 * int(args[0]), int(args[1], 0))
elif edit == 'record-id':
    pos = first(int(args[0]))
    size = struct.unpack_from('<H', data, pos + 6)[0]
    struct.pack_into('<Q', data, pos + size - 8, int(args[1], 0))
elif edit == 'auxtrace-info-filter':
    # Word 16 (after the 16 fixed words from PMU type on) is the filter
    # string's length; the string follows, NUL-terminated, padded to 8.
    length = int(args[0])
    # TEXT: the filter (LEN is then its length); else LEN bytes of 'f'.
    filt = args[1].encode() if len(args) > 1 else b'f' * length
    length = len(filt)
    pos = first(70)
    size = struct.unpack_from('<H', data, pos + 6)[0]
    nwords = (size - 16) // 8
    struct.pack_into('<Q', data, pos + 16 + 8 * (nwords - 1), length)
    text = (filt + b'\0').ljust((length + 8) // 8 * 8, b'\0')
    data[pos + size:pos + size] = text
    struct.pack_into('<H', data, pos + 6, size + len(text))
    struct.pack_into('<Q', data, 48, data_size + len(text))
    # The feature sections' table follows the data; each section moves.
    table = data_off + data_size + len(text)
    nfeat = sum(bin(w).count('1') for w in struct.unpack_from('<4Q', data, 72))
    for i in range(nfeat):
        off, = struct.unpack_from('<Q', data, table + 16 * i)
        struct.pack_into('<Q', data, table + 16 * i, off + len(text))
elif edit == 'aux-truncated':
    pos = first(11)
    flags = int(args[1], 0) if len(args) > 1 else 1
    struct.pack_into('<QQ', data, pos + 16, int(args[0]), flags)
elif edit == 'magic':
    struct.pack_into('<Q', data, 0, int(args[0], 16))
elif edit == 'header-size':
    struct.pack_into('<Q', data, 8, int(args[0]))
elif edit == 'truncate':
    del data[int(args[0]):]
else:
    sys.exit(__doc__)
open(path, 'wb').write(data)
