# SPDX-License-Identifier: BSD-3-Clause
# torusgather_add_mpi_test(NAME base COMMAND exe [args...] RANKS n [TIMEOUT s] [ENV VAR=value ...])
# ENV is given to the ranks only (Open MPI: -x), not to mpiexec itself: an
# LD_PRELOAD for the ranks must not be loaded into the launcher.
# Adds the CTest entry "<base>.np<n>" that runs the command under mpiexec
# with n ranks (one CTest entry per rank count, as KaMPIng's KaTestrophe).
# For Open MPI it adds what this kind of machine needs: running as root,
# more ranks than cores, and yielding when idle so oversubscription stays fast.
if(NOT DEFINED TORUSGATHER_OPENMPI)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _tg_mpiexec_version ERROR_QUIET)
  if(_tg_mpiexec_version MATCHES "Open MPI|OpenRTE")
    set(TORUSGATHER_OPENMPI TRUE CACHE INTERNAL "")
  else()
    set(TORUSGATHER_OPENMPI FALSE CACHE INTERNAL "")
  endif()
endif()

function(torusgather_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;RANKS;TIMEOUT" "COMMAND;ENV;WRAP" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set(flags ${MPIEXEC_PREFLAGS})
  if(TORUSGATHER_OPENMPI)
    list(APPEND flags --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1)
  endif()
  separate_arguments(extra UNIX_COMMAND "${TORUSGATHER_MPIEXEC_FLAGS}")
  foreach(var ${T_ENV})
    if(TORUSGATHER_OPENMPI)
      list(APPEND flags -x ${var})
    else()  # MPICH's Hydra
      string(REPLACE "=" ";" pair "${var}")
      list(APPEND flags -genv ${pair})
    endif()
  endforeach()
  add_test(NAME ${T_NAME}.np${T_RANKS}
           COMMAND ${T_WRAP} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS} ${flags} ${extra} ${T_COMMAND}
                   ${MPIEXEC_POSTFLAGS})
  # "wide": more ranks than the default tier of the MPICH and sanitizer
  # suites runs on this 2-core machine (scripts/test.sh).
  set(labels mpi)
  if(T_RANKS GREATER 6)
    list(APPEND labels wide)
  endif()
  set_tests_properties(${T_NAME}.np${T_RANKS} PROPERTIES TIMEOUT ${T_TIMEOUT} PROCESSORS 2 LABELS "${labels}")
  if(TORUSGATHER_SANITIZER_ENV)
    set_property(TEST ${T_NAME}.np${T_RANKS} APPEND PROPERTY ENVIRONMENT ${TORUSGATHER_SANITIZER_ENV})
  endif()
endfunction()
