#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds torusgather against MPICH into build-mpich/ (or $TORUSGATHER_BUILD_DIR)
# through scripts/build.sh; extra arguments go to cmake's configure step.
# Debian builds Boost.MPI and mpi4py for Open MPI only: those two are off,
# and so is SimGrid (its SMPI is the openmpi build's).
set -euo pipefail
cd "$(dirname "$0")/.."
export TORUSGATHER_BUILD_DIR=${TORUSGATHER_BUILD_DIR:-build-mpich}
exec ./scripts/build.sh \
  -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich \
  -DMPI_Fortran_COMPILER=/usr/bin/mpif90.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich \
  -DTORUSGATHER_SIMGRID=OFF -DTORUSGATHER_BOOST_MPI=OFF -DTORUSGATHER_MPI4PY=OFF "$@"
