# A host failure with a long output (tests/sh/output_tail.sh): 30 lines of
# progress, one line with a terminal escape sequence in it, then a Python
# exception before any GPU work.  PY_HOST_FAIL_MODE=clean exits 0 after
# the same output; =signal dies of SIGSEGV (a NULL read) instead.
import ctypes
import os

print("loading data", flush=True)
for i in range(30):
    print("step", i, flush=True)
print("colour \x1b[31mred\x1b[0m done \x1b]0;pwned\x07", flush=True)
mode = os.environ.get("PY_HOST_FAIL_MODE", "raise")
if mode == "signal":
    ctypes.string_at(0)
elif mode == "raise":
    raise KeyError("no such column: 'label_id'")
