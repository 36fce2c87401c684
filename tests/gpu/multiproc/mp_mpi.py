# mpirun -n 2 python3 -m mpi4py mp_mpi.py (mpi4py; -m mpi4py aborts the
# job on an uncaught exception, as mpi4py's documentation advises): rank 1 indexes past the end of a
# tensor on the GPU; rank 0 waits for it in a barrier.  Expected with
# --job: the process with OMPI_COMM_WORLD_RANK=1 (or PMI_RANK=1) wrote the
# coredump (Warp Assert, "index out of bounds"); mpirun stops rank 0.
import torch
from mpi4py import MPI


def lookup(table, idx):
    return table[idx]  # mp_mpi: the bad index


comm = MPI.COMM_WORLD
if comm.Get_rank() == 1:
    table = torch.arange(10, device="cuda")
    print("rank 1:", lookup(table, torch.tensor([12], device="cuda")).item())
comm.Barrier()
print("rank", comm.Get_rank(), "done")
