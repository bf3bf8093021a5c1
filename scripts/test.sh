#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs the test
# suites; its exit status is the verdict.
#
#   ./scripts/test.sh            every suite:
#       openmpi   build/: unit tests, tg-plan checks, MPI tests at 1..16 ranks,
#                 PMPI preload, install + consumer, valgrind subset, SimGrid
#       mpich     build-mpich/: the same library and MPI tests built and run
#                 with MPICH (fewer rank counts: MPICH busy-polls, 2 cores)
#       sanitize  build-asan/: AddressSanitizer + UndefinedBehaviorSanitizer
#   TORUSGATHER_SUITES="openmpi mpich" ./scripts/test.sh   a choice of suites
#   ./scripts/test.sh -R mpi     the openmpi suite only, extra arguments to ctest
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh

suites=${TORUSGATHER_SUITES:-openmpi mpich sanitize}
[ $# -eq 0 ] || suites=openmpi
failed=()

for suite in $suites; do
  echo "=== test suite: $suite"
  case $suite in
    openmpi)
      ./scripts/build.sh
      # Oversubscribed MPI tests use both cores themselves: one test at a time.
      ctest --test-dir "${TORUSGATHER_BUILD_DIR:-build}" --output-on-failure "$@" || failed+=("$suite")
      ;;
    mpich)
      # Debian builds Boost.MPI and mpi4py for Open MPI only: those two are off.
      TORUSGATHER_BUILD_DIR=build-mpich ./scripts/build.sh \
        -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich \
        -DMPI_Fortran_COMPILER=/usr/bin/mpif90.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich \
        -DTORUSGATHER_SIMGRID=OFF -DTORUSGATHER_BOOST_MPI=OFF -DTORUSGATHER_MPI4PY=OFF \
        "-DTORUSGATHER_TEST_RANKS=1;2;3;4;6;8" -DTORUSGATHER_LEAK_CYCLES=1000
      # The MPI-independent unit and tg-plan tests ran in the openmpi suite.
      ctest --test-dir build-mpich --output-on-failure -L mpi || failed+=("$suite")
      ;;
    sanitize)
      TORUSGATHER_BUILD_DIR=build-asan ./scripts/build.sh -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DTORUSGATHER_SANITIZE=ON -DTORUSGATHER_SIMGRID=OFF
      # Not here: the three longest unit tests (the same code on more shapes,
      # 8 minutes under ASan), lee-code on 49x49x49 (6.8 GB without ASan),
      # the preload into Python (not built with ASan),
      # the resident-set leak test (ASan's quarantine grows it; LeakSanitizer
      # checks leaks in every test instead) and the consumer (built without ASan).
      ctest --test-dir build-asan --output-on-failure \
        -E 'EveryEvenShapeUpTo40|StructuralProofAgreesWithStepThrough|VerifyStepsThroughSmallToriAndProvesLargeOnes|pmpi.python|robustness.leak|consumer|install|tg-plan.lee-code.49x49x49' \
        || failed+=("$suite")
      ;;
    *)
      echo "test.sh: unknown suite '$suite' (openmpi, mpich, sanitize)" >&2
      exit 2
      ;;
  esac
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "=== FAILED suites: ${failed[*]}"
  exit 1
fi
echo "=== all suites passed: $suites"
