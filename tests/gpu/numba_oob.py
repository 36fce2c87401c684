# Numba (JIT, @cuda.jit): one thread stores through a wild index, as
# cupy_raw does, from a kernel Numba compiles at run time.  The launch
# line is main's poke[...] call (issue 28: the Python line read from the
# process's memory at the hardware exception).  Without Numba (or with a
# Numba the machine's NumPy breaks) the plain pass says MISSING.
try:
    import numpy as np
    from numba import cuda
except Exception as e:  # noqa: BLE001 - any import failure means missing
    print("MISSING: numba (%s)" % e)
    raise SystemExit(0)


@cuda.jit
def poke(out, idx):
    i = cuda.grid(1)
    if i < idx.size:
        out[idx[i]] = 1.0


def main():
    n = 128
    idx = np.arange(n, dtype=np.int64)
    idx[77] = 1 << 40
    out = cuda.to_device(np.zeros(n, dtype=np.float32))
    poke[1, n](out, cuda.to_device(idx))
    cuda.synchronize()
    print("sum", out.copy_to_host().sum())


main()
