! SPDX-License-Identifier: BSD-3-Clause
! An ordinary Fortran 90 MPI program (use mpi): MPI_ALLGATHER, also with
! MPI_IN_PLACE, and MPI_ALLGATHERV. Run with LD_PRELOAD=libtorusgather_pmpi.so to route it
! through torusgather without recompiling.
program allgather
  use mpi
  implicit none
  integer, parameter :: n = 333
  integer :: ierr, rank, nranks, i, r, bad, total
  integer :: mine(n)
  integer, allocatable :: all(:), inplace(:), counts(:), displs(:), gathered(:)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  allocate(all(n * nranks), inplace(n * nranks), counts(nranks), displs(nranks))
  do i = 1, n
    mine(i) = rank * 1000 + i
    inplace(rank * n + i) = rank * 1000 + i
  end do
  call MPI_ALLGATHER(mine, n, MPI_INTEGER, all, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_ALLGATHER(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  ! MPI_ALLGATHERV, in place: rank r holds r + 1 integers, in reverse rank order.
  total = 0
  do r = nranks - 1, 0, -1
    counts(r + 1) = r + 1
    displs(r + 1) = total
    total = total + r + 1
  end do
  allocate(gathered(total))
  do i = 1, rank + 1
    gathered(displs(rank + 1) + i) = rank * 1000 + i
  end do
  call MPI_ALLGATHERV(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered, counts, displs, MPI_INTEGER, &
                      MPI_COMM_WORLD, ierr)
  bad = 0
  do r = 0, nranks - 1
    do i = 1, n
      if (all(r * n + i) /= r * 1000 + i) bad = bad + 1
      if (inplace(r * n + i) /= r * 1000 + i) bad = bad + 1
    end do
    do i = 1, r + 1
      if (gathered(displs(r + 1) + i) /= r * 1000 + i) bad = bad + 1
    end do
  end do
  ! Every rank learns the verdict: its exit status is part of it.
  call MPI_ALLREDUCE(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'Fortran MPI_ALLGATHER on ', nranks, ' ranks: OK'
    else
      print '(a,i0,a)', 'Fortran MPI_ALLGATHER on ', nranks, ' ranks: WRONG'
    end if
  end if
  deallocate(all, inplace, counts, displs, gathered)
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1
end program allgather
