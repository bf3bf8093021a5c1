# SPDX-License-Identifier: BSD-3-Clause
# The SimGrid SMPI flavour: the library's own sources compiled with smpicxx
# into tg-bench-smpi and tg-mpi-tests-smpi, which scripts/smpi-torus.sh runs
# on a simulated torus. SMPI privatises the globals of the executable per
# simulated rank (it copies and loads the executable once per rank), not
# those of shared libraries. So the MPI layers (executor, C API), whose state
# is a rank's own, are compiled into each executable, and the layers without
# MPI (topology, schedules, simulator, model), whose only globals are
# per-shape memos that every rank may share, into one shared library that
# all simulated ranks load once.
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

# The library's sources are compiled with smpicxx once, one object each (in
# parallel under make -j), and linked into every SMPI executable.
set(TORUSGATHER_SMPI_FLAGS -std=c++17 -O2 -fPIC -DTORUSGATHER_SMPI -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/lib)
file(GLOB_RECURSE TORUSGATHER_SMPI_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/lib/*.hpp
     ${PROJECT_SOURCE_DIR}/include/*.h ${PROJECT_SOURCE_DIR}/bench/*.hpp ${PROJECT_SOURCE_DIR}/tests/mpi/*.hpp)

# torusgather_smpi_object(source out_var): the object of one source.
function(torusgather_smpi_object source out_var)
  string(MAKE_C_IDENTIFIER "${source}" id)
  set(object ${PROJECT_BINARY_DIR}/smpi-objects/${id}.o)
  add_custom_command(
    OUTPUT ${object}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/smpi-objects
    COMMAND ${CMAKE_CXX_COMPILER_LAUNCHER} ${TORUSGATHER_SMPICXX} ${TORUSGATHER_SMPI_FLAGS} -c ${PROJECT_SOURCE_DIR}/${source} -o ${object}
    DEPENDS ${PROJECT_SOURCE_DIR}/${source} ${TORUSGATHER_SMPI_HEADERS}
    COMMENT "Compiling ${source} with smpicxx (SimGrid SMPI)"
    VERBATIM)
  set(${out_var} ${object} PARENT_SCOPE)
endfunction()

# torusgather_add_smpi_executable(NAME source... [NOLIB] [LIBS -lfoo...]);
# NOLIB: without the library. SMPI copies the whole executable per rank, so
# it is linked stripped (-s): a sixth smaller, and faster to copy and load.
# The shared core is found by an absolute run path: SMPI loads the copies
# from elsewhere, where $ORIGIN would not lead to it.
function(torusgather_add_smpi_executable name)
  cmake_parse_arguments(ARG "NOLIB" "" "LIBS" ${ARGN})
  set(objects ${TORUSGATHER_SMPI_LIBRARY_OBJECTS} ${TORUSGATHER_SMPI_CORE} -Wl,-rpath,${TORUSGATHER_SMPI_CORE_DIR})
  set(depends ${TORUSGATHER_SMPI_LIBRARY_OBJECTS} ${TORUSGATHER_SMPI_CORE})
  if(ARG_NOLIB)
    set(objects)
    set(depends)
  endif()
  foreach(source ${ARG_UNPARSED_ARGUMENTS})
    torusgather_smpi_object(${source} object)
    list(APPEND objects ${object})
    list(APPEND depends ${object})
  endforeach()
  set(output ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name})
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${TORUSGATHER_SMPICXX} ${objects} ${ARG_LIBS} -s -o ${output}
    DEPENDS ${depends}
    COMMENT "Linking ${name} with smpicxx (SimGrid SMPI)"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${output})
  # One target compiles the shared objects, so parallel builds of the
  # executables never write the same object at once.
  add_dependencies(${name} torusgather-smpi-objects)
endfunction()

if(TORUSGATHER_SIMGRID_AVAILABLE AND (TORUSGATHER_BUILD_BENCH OR TORUSGATHER_BUILD_TESTS))
  set(TORUSGATHER_SMPI_LIBRARY_OBJECTS)
  foreach(source ${TORUSGATHER_MPI_SOURCES})
    torusgather_smpi_object(${source} object)
    list(APPEND TORUSGATHER_SMPI_LIBRARY_OBJECTS ${object})
  endforeach()
  set(core_objects)
  foreach(source ${TORUSGATHER_CORE_SOURCES})
    torusgather_smpi_object(${source} object)
    list(APPEND core_objects ${object})
  endforeach()
  set(TORUSGATHER_SMPI_CORE_DIR ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
  set(TORUSGATHER_SMPI_CORE ${TORUSGATHER_SMPI_CORE_DIR}/libtorusgather-smpi-core.so)
  add_custom_command(
    OUTPUT ${TORUSGATHER_SMPI_CORE}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${TORUSGATHER_SMPI_CORE_DIR}
    COMMAND ${TORUSGATHER_SMPICXX} -shared -Wl,-soname,libtorusgather-smpi-core.so ${core_objects} -s -o ${TORUSGATHER_SMPI_CORE}
    DEPENDS ${core_objects}
    COMMENT "Linking libtorusgather-smpi-core.so with smpicxx (SimGrid SMPI)"
    VERBATIM)
  add_custom_target(torusgather-smpi-objects DEPENDS ${TORUSGATHER_SMPI_LIBRARY_OBJECTS} ${TORUSGATHER_SMPI_CORE})
endif()

if(TORUSGATHER_SIMGRID_AVAILABLE)
  if(TORUSGATHER_BUILD_BENCH)
    torusgather_add_smpi_executable(tg-bench-smpi bench/tg_bench.cpp)
    torusgather_add_smpi_executable(tg-plain-allgather-smpi bench/plain_allgather.cpp NOLIB)
    torusgather_add_smpi_executable(tg-neighbour-exchange-smpi bench/neighbour_exchange.cpp NOLIB)
    # Google Benchmark's globals live in its shared library, which SMPI does
    # not privatise per simulated rank: only rank 0 ever calls into it.
    if(TARGET tg-gbench)
      torusgather_add_smpi_executable(tg-gbench-smpi bench/gbench_allgather.cpp LIBS -lbenchmark -lpthread)
    endif()
  endif()
  if(TORUSGATHER_BUILD_TESTS)
    torusgather_add_smpi_executable(tg-mpi-tests-smpi tests/mpi/test_allgather.cpp)
    torusgather_add_smpi_executable(tg-mpi-v-tests-smpi tests/mpi/test_allgatherv.cpp)
    torusgather_add_smpi_executable(tg-mpi-persistent-tests-smpi tests/mpi/test_persistent.cpp)
    torusgather_add_smpi_executable(tg-neighbour-hops-smpi tests/simgrid/neighbour_hops.cpp)
  endif()
endif()
