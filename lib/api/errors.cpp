// SPDX-License-Identifier: BSD-3-Clause
#include "api/errors.hpp"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>


namespace torusgather {

int raise(MPI_Comm comm, int err) {
  if (err == MPI_SUCCESS) return err;
  // SimGrid 3.32's MPI_Comm_call_errhandler crashes on MPI_ERRORS_RETURN and
  // reports its default handler as MPI_ERRHANDLER_NULL: handle both here.
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(comm, &handler);
  if (handler == MPI_ERRORS_RETURN) {
#ifndef SMPI_SHARED_MALLOC  // SimGrid hands out the predefined handler itself
    PMPI_Errhandler_free(&handler);
#endif
    return err;
  }
  if (handler == MPI_ERRHANDLER_NULL) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(err, text, &len);
    std::fprintf(stderr, "torusgather: TG_Allgather: %s\n", text);
    PMPI_Abort(comm, err);
    return err;
  }
  PMPI_Errhandler_free(&handler);
  PMPI_Comm_call_errhandler(comm, err);
  return err;
}

int error_of(std::exception_ptr e, const char* doing) {
  int err = MPI_ERR_INTERN;
  std::string what = "unknown exception";
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    err = MPI_ERR_NO_MEM;
    what = "out of memory";
  } catch (const std::exception& x) {
    what = x.what();
  } catch (...) {
  }
  std::fprintf(stderr, "torusgather: %s failed: %s\n", doing, what.c_str());
  return err;
}

void inject_fault(const char* site, int rank) {
  const char* spec = std::getenv("TORUSGATHER_TEST_FAULT");
  if (!spec || !*spec) return;
  const std::string s = spec, name = s.substr(0, s.find(':'));
  if (name != site) return;
  if (const auto colon = s.find(':'); colon != std::string::npos && std::atoi(s.c_str() + colon + 1) != rank) return;
  throw std::bad_alloc();
}

int agree(MPI_Comm comm, int err) {
  int local = err == MPI_SUCCESS ? 0 : err, worst = 0;
  if (const int e = PMPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, comm); e != MPI_SUCCESS) return e;
  return worst == 0 ? MPI_SUCCESS : (err != MPI_SUCCESS ? err : worst);
}

}  // namespace torusgather
