#!/usr/bin/env python3
"""check-stream.py REC.hwtrec TID WRITTEN [STREAM]: is thread TID's stream in
the recording exactly what the stand-in wrote (WRITTEN, its HWT_STANDIN_DUMP
file), except where the recording says trace was lost?

STREAM (a path in the recording, e.g. trace/etr.bin) names a buffer of
CoreSight frames instead of trace/TID.pt: its losses are TID's too, and
nothing stands in the stream where bytes are missing (the loss event alone
tells the decoder).

The recording's sideband lists the losses of the thread (offset: where the
stream has the OVF packet standing for them, followed by a FUP saying where
execution resumes, both absent when nothing came before; len: how many
written bytes are missing there).  Walking the stream, every
kept byte must be the written byte at the same place, the loss lengths must
account exactly for the written bytes the stream skips, and the stream must
end where the writing ended.  Prints one line of figures; exit 1 on the first
difference (saying where), 2 on bad input.
"""
import json
import sys

OVF = b"\x02\xf3"


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    rec, tid, written_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    frames = len(sys.argv) == 5
    path = sys.argv[4] if frames else "trace/%d.pt" % tid
    stream = open("%s/%s" % (rec, path), "rb").read()
    written = open(written_path, "rb").read()
    losses = []
    for line in open(rec + "/sideband.jsonl"):
        ev = json.loads(line)
        if ev.get("event") == "loss" and ev.get("tid") == tid:
            losses.append((ev["offset"], ev["len"]))
    losses.sort()
    at = 0      # in the stream
    pos = 0     # in what was written
    for offset, length in losses + [(len(stream), None)]:
        kept = stream[at:offset]
        if kept != written[pos:pos + len(kept)]:
            bad = next(i for i in range(len(kept))
                       if pos + i >= len(written) or kept[i] != written[pos + i])
            print("stream offset %d (written offset %d): recorded %s, written %s"
                  % (at + bad, pos + bad, kept[bad:bad + 8].hex(),
                     written[pos + bad:pos + bad + 8].hex()), file=sys.stderr)
            return 1
        at = offset
        pos += len(kept)
        if length is None:
            break
        if offset > 0 and not frames:
            if stream[at:at + 2] != OVF:
                print("stream offset %d: the loss is not marked by an OVF packet"
                      % at, file=sys.stderr)
                return 1
            at += 2
            # FUP (opcode 0x1d), IPBytes in the top 3 bits: 0 (no IP),
            # 1: 2, 2: 4, 3: 6 (sext), 4: 6, 6: 8 bytes.
            if stream[at] & 0x1f == 0x1d:
                at += 1 + {0: 0, 1: 2, 2: 4, 3: 6, 4: 6, 6: 8}[stream[at] >> 5]
        pos += length
    if pos != len(written):
        print("the stream accounts for %d written bytes, %d were written"
              % (pos, len(written)), file=sys.stderr)
        return 1
    lost = sum(length for _, length in losses)
    print("thread %d: %d bytes written, %d kept, %d lost in %d losses, "
          "every kept byte as written" % (tid, len(written), len(written) - lost,
                                          lost, len(losses)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
