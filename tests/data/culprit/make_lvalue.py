#!/usr/bin/env python3
"""Writes lane_wild_lvalue.mi.log: GPU run 25's real lane_wild recording
(tests/fixtures/gpu/lane_wild.mi.log, H100) with its 32 per-lane
evaluations turned into the ones the lvalue search asks,
"(unsigned long long)&(out[key])", each answered with the address that
lane's out[key] has in lane_wild.cu: out (0x7ffdd3e00400, the kernel's
argument in the recording) + 4 * key, key = thread % 64, and 50000000 for
thread 146 (lane 18).  SYNTHETIC answers from the program's own data,
until a GPU run records the search itself: it tests the mechanism (the
search's commands, the far lane, the report), not cuda-gdb.

Usage: python3 make_lvalue.py ROOT  (writes next to this script)
"""
import os
import re
import sys

root = sys.argv[1]
src = os.path.join(root, "tests/fixtures/gpu/lane_wild.mi.log")
out = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                   "lane_wild_lvalue.mi.log")
OLD = '"(((unsigned long long)(unsigned int)$R5 << 32) | (unsigned int)$R4) + (0)"'
NEW = '"(unsigned long long)&(out[key])"'
OUT_BASE = 0x7ffdd3e00400
lines = open(src).read().split("\n")
tok_lane = {}
res = ["   0.000 # SYNTHETIC (tests/data/culprit/make_lvalue.py): run 25's "
       "lane_wild recording with each lane's out[key] address as the "
       "lvalue search asks it"]
for ln in lines:
    m = re.match(r"^(\s*[0-9.]+ > )(\d+)(-data-evaluate-expression )(.*)$", ln)
    if m and m.group(4) == OLD:
        tok_lane[m.group(2)] = len(tok_lane)
        ln = m.group(1) + m.group(2) + m.group(3) + NEW
    m = re.match(r'^(\s*[0-9.]+ < )(\d+)\^done,value="\d+"$', ln)
    if m and m.group(2) in tok_lane:
        lane = tok_lane[m.group(2)]
        thread = 128 + lane
        key = 50000000 if thread == 146 else thread % 64
        ln = '%s%s^done,value="%d"' % (m.group(1), m.group(2),
                                        OUT_BASE + 4 * key)
    res.append(ln)
assert len(tok_lane) == 32, len(tok_lane)
open(out, "w").write("\n".join(res))
