# The SimGrid SMPI flavour: the library's own sources compiled with smpicxx
# into tg-bench-smpi and tg-mpi-tests-smpi, which scripts/smpi-torus.sh runs
# on a simulated torus. Everything is compiled into one executable because
# SMPI privatises the globals of the executable per simulated rank, not those
# of shared libraries.
set(TORUSGATHER_SIMGRID_AVAILABLE FALSE)
if(TORUSGATHER_SIMGRID)
  find_program(TORUSGATHER_SMPICXX smpicxx)
  find_program(TORUSGATHER_SMPIRUN smpirun)
  if(TORUSGATHER_SMPICXX AND TORUSGATHER_SMPIRUN)
    set(TORUSGATHER_SIMGRID_AVAILABLE TRUE)
  else()
    message(WARNING "TORUSGATHER_SIMGRID is ON but smpicxx/smpirun were not found: "
                    "the SimGrid tests will not be built (install simgrid and libsimgrid-dev)")
  endif()
endif()

# torusgather_add_smpi_executable(NAME source... [LIBS -lfoo...])
function(torusgather_add_smpi_executable name)
  cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
  set(sources ${ARG_UNPARSED_ARGUMENTS} ${TORUSGATHER_CORE_SOURCES} ${TORUSGATHER_MPI_SOURCES})
  list(TRANSFORM sources PREPEND ${PROJECT_SOURCE_DIR}/)
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/lib/*.hpp ${PROJECT_SOURCE_DIR}/include/*.h
       ${PROJECT_SOURCE_DIR}/bench/*.hpp)
  set(output ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name})
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${TORUSGATHER_SMPICXX} -std=c++17 -O2 -DTORUSGATHER_SMPI -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/lib
            ${sources} ${ARG_LIBS} -o ${output}
    DEPENDS ${sources} ${headers}
    COMMENT "Building ${name} with smpicxx (SimGrid SMPI)"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${output})
endfunction()

if(TORUSGATHER_SIMGRID_AVAILABLE)
  if(TORUSGATHER_BUILD_BENCH)
    torusgather_add_smpi_executable(tg-bench-smpi bench/tg_bench.cpp)
    # Google Benchmark's globals live in its shared library, which SMPI does
    # not privatise per simulated rank: only rank 0 ever calls into it.
    if(TARGET tg-gbench)
      torusgather_add_smpi_executable(tg-gbench-smpi bench/gbench_allgather.cpp LIBS -lbenchmark -lpthread)
    endif()
  endif()
  if(TORUSGATHER_BUILD_TESTS)
    torusgather_add_smpi_executable(tg-mpi-tests-smpi tests/mpi/test_allgather.cpp)
    torusgather_add_smpi_executable(tg-neighbour-hops-smpi tests/simgrid/neighbour_hops.cpp)
  endif()
endif()
