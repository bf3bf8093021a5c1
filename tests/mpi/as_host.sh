#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs one rank as if it were on host node<rank mod N>.torus.example
# (TORUSGATHER_HOSTNAME), from the launcher's rank variable (Open MPI or
# MPICH's Hydra): topology-file tests on one machine.
#
#   mpiexec -n P as_host.sh N PROGRAM ...
n=$1
shift
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}
if [ -z "$rank" ]; then
  echo "as_host.sh: no OMPI_COMM_WORLD_RANK or PMI_RANK: run it under mpiexec" >&2
  exit 2
fi
TORUSGATHER_HOSTNAME=node$((rank % n)).torus.example exec "$@"
