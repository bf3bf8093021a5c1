# SPDX-License-Identifier: BSD-3-Clause
"""An ordinary mpi4py program: comm.Allgather calls MPI_Allgather. Run it with
LD_PRELOAD=libtorusgather_pmpi.so to route it through torusgather."""
import array
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
n = 555
mine = array.array("i", (rank * 1000 + i for i in range(n)))
out = array.array("i", [0] * (n * size))
comm.Allgather([mine, MPI.INT], [out, MPI.INT])
bad = sum(1 for r in range(size) for i in range(n) if out[r * n + i] != r * 1000 + i)
total = comm.reduce(bad, op=MPI.SUM, root=0)
if rank == 0:
    print(f"Python comm.Allgather on {size} ranks: {'OK' if total == 0 else 'WRONG'}")
sys.exit(0 if comm.bcast(total, root=0) == 0 else 1)
