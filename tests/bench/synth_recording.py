#!/usr/bin/env python3
"""A synthetic big recording (issue 32 item 3): the big_grid recording
with its biggest record, the uncoalesced threads table (58 MB, 270305
rows), grown to about TARGET bytes by repeating its rows (nr_rows says
how many there are), so that a replay's peak memory can be measured
against a recording of a gigabyte.  Writes OUT (plain text).
Usage: synth_recording.py BIG_GRID.mi.log.gz OUT [TARGET_BYTES]"""
import gzip
import sys


def main():
    src, out = sys.argv[1], sys.argv[2]
    target = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 30
    with gzip.open(src, "rb") as f:
        lines = f.read().split(b"\n")
    big = max(range(len(lines)), key=lambda i: len(lines[i]))
    line = lines[big]
    head, sep, body = line.partition(b"body=[")
    rows = body[: body.rindex(b"]")]
    nrows = int(head.split(b'nr_rows="')[1].split(b'"')[0])
    copies = max(1, (target - (sum(map(len, lines)) - len(line))) // len(rows))
    head = head.replace(b'nr_rows="%d"' % nrows, b'nr_rows="%d"' % (nrows * copies))
    with open(out, "wb") as o:
        for i, l in enumerate(lines):
            if i != big:
                o.write(l + (b"\n" if i + 1 < len(lines) else b""))
                continue
            o.write(head + sep)
            for k in range(copies):
                o.write(rows if k == 0 else b"," + rows)
            o.write(b"]}\n")
    print("%d copies of %d rows" % (copies, nrows))


main()
