# Where faulthandler's SIGABRT handler goes in an MPI rank (issue 12, the
# mp_mpi gap): prints the environment cudbg-tui --job gives, whether our
# sitecustomize ran, and the C-level SIGABRT handler before and after MPI
# starts and after CUDA starts; with "abort", aborts as the driver does
# after a coredump.  Run under cudbg-tui --job --keep-temp (mpirun -n 1
# python3 -m mpi4py mpi_probe.py abort), then look for the kept
# directory's pystack.PID (tests/fixtures/gpu/run8/run.sh).
import ctypes
import faulthandler
import os
import sys


class Sigaction(ctypes.Structure):
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]


libc = ctypes.CDLL(None)


def abrt():
    sa = Sigaction()
    libc.sigaction(6, None, ctypes.byref(sa))
    return hex(sa.handler or 0)


print("env PYTHONPATH=%s opal_signal=%s site=%s fh=%s abrt=%s" % (
    os.environ.get("PYTHONPATH"), os.environ.get("OMPI_MCA_opal_signal"),
    "sitecustomize" in sys.modules, faulthandler.is_enabled(), abrt()),
    flush=True)
from mpi4py import MPI  # noqa: E402
print("after MPI abrt=%s fh=%s rank=%d" % (abrt(), faulthandler.is_enabled(),
                                           MPI.COMM_WORLD.Get_rank()), flush=True)
import torch  # noqa: E402
torch.zeros(1, device="cuda")
print("after CUDA abrt=%s fh=%s" % (abrt(), faulthandler.is_enabled()), flush=True)
if sys.argv[1:] == ["abort"]:
    # as the driver ends a process after its GPU coredump
    os.abort()
