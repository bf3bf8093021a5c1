// SPDX-License-Identifier: BSD-3-Clause
#include "api/validate.hpp"

#include <algorithm>
#include <climits>
#include <mutex>

namespace torusgather {

namespace {

int g_committed_keyval = MPI_KEYVAL_INVALID;

/// MPI has no query for whether a type is committed, so ask
/// the MPI with local zero-count operations that must refuse an uncommitted
/// type: MPI_Pack (Open MPI and MPICH refuse; MPICH accepts a zero-count
/// send-receive and then leaks a reference to the type, so Pack goes first),
/// then a send-receive to self (refused by Open MPI and SimGrid SMPI, whose
/// MPI_Pack aborts instead). A committed type stays
/// committed, so the answer is cached on the type in an attribute.
int check_committed(MPI_Datatype t, MPI_Comm priv) {
  if (is_named(t)) return MPI_SUCCESS;
  // Created once, thread-safely (MPI_THREAD_MULTIPLE), freed at MPI_Finalize.
  static std::once_flag once;
  std::call_once(once, [] {
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &g_committed_keyval, nullptr);
    at_finalize([] { PMPI_Type_free_keyval(&g_committed_keyval); });
  });
  const int keyval = g_committed_keyval;
  void* value = nullptr;
  int found = 0;
  PMPI_Type_get_attr(t, keyval, &value, &found);
  if (found) return MPI_SUCCESS;
  int rank = 0;
  PMPI_Comm_rank(priv, &rank);
  char dummy = 0;
#ifndef SMPI_SHARED_MALLOC  // SimGrid SMPI's MPI_Pack aborts on an uncommitted type
  char packed = 0;
  int position = 0;
  if (PMPI_Pack(&dummy, 0, t, &packed, 1, &position, priv) != MPI_SUCCESS) return MPI_ERR_TYPE;
#endif
  if (PMPI_Sendrecv(&dummy, 0, t, rank, kSelfCopyTag, &dummy, 0, t, rank, kSelfCopyTag, priv, MPI_STATUS_IGNORE) !=
      MPI_SUCCESS)
    return MPI_ERR_TYPE;
  PMPI_Type_set_attr(t, keyval, reinterpret_cast<void*>(1));
  return MPI_SUCCESS;
}

Layout layout_of(MPI_Datatype t) {
  Layout l;
  MPI_Aint lb = 0;
  PMPI_Type_get_extent(t, &lb, &l.extent);
  PMPI_Type_get_true_extent(t, &l.true_lb, &l.true_extent);
  return l;
}

}  // namespace

bool is_named(MPI_Datatype t) {
  int ni = 0, na = 0, nd = 0, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

namespace {

/// The checks both entry points share: committed types and their layouts,
/// null buffers (recv_total elements received in all), and the type
/// signatures of this rank's block (own_count elements of recvtype), which
/// must carry the same number of bytes.
int check_common(const void* sendbuf, int sendcount, MPI_Datatype sendtype, const void* recvbuf, long long recv_total,
                 long long own_count, MPI_Datatype recvtype, MPI_Comm priv, Layout* send, Layout* recv) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  int err = check_committed(recvtype, priv);
  if (err == MPI_SUCCESS && !in_place) err = check_committed(sendtype, priv);
  if (err != MPI_SUCCESS) return err;
  *recv = layout_of(recvtype);
  if (!in_place) *send = layout_of(sendtype);
  if (null_buffer(recvbuf, recv_total, *recv) || (!in_place && null_buffer(sendbuf, sendcount, *send)))
    return MPI_ERR_BUFFER;
  if (in_place) return MPI_SUCCESS;
  int ssize = 0, rsize = 0;
  PMPI_Type_size(sendtype, &ssize);
  PMPI_Type_size(recvtype, &rsize);
  const long long sbytes = static_cast<long long>(sendcount) * ssize, rbytes = own_count * rsize;
  if (sbytes > rbytes) return MPI_ERR_TRUNCATE;
  return sbytes < rbytes ? MPI_ERR_ARG : MPI_SUCCESS;
}

}  // namespace

int check_buffers(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int size, MPI_Comm priv, Layout* send, Layout* recv) {
  const int err = check_common(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcount, recvtype, priv, send, recv);
  if (err != MPI_SUCCESS || sendbuf == MPI_IN_PLACE) return err;
  if (overlap(sendbuf, sendcount, *send, recvbuf, static_cast<long long>(recvcount) * size, *recv))
    return MPI_ERR_BUFFER;
  return MPI_SUCCESS;
}

int check_buffers_v(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                    const int* displs, MPI_Datatype recvtype, int size, int rank, MPI_Comm priv, Layout* send,
                    Layout* recv) {
  long long total = 0;
  for (int u = 0; u < size; ++u) total += recvcounts[u];
  const int err =
      check_common(sendbuf, sendcount, sendtype, recvbuf, total, recvcounts[rank], recvtype, priv, send, recv);
  if (err != MPI_SUCCESS || sendbuf == MPI_IN_PLACE) return err;
  // The receive span: from the lowest displacement of a non-empty block to
  // the end of the highest.
  long long lo = LLONG_MAX, hi = LLONG_MIN;
  for (int u = 0; u < size; ++u)
    if (recvcounts[u] > 0) {
      lo = std::min(lo, static_cast<long long>(displs[u]));
      hi = std::max(hi, static_cast<long long>(displs[u]) + recvcounts[u]);
    }
  if (recv->extent > 0 && overlap(sendbuf, sendcount, *send, static_cast<char*>(recvbuf) + lo * recv->extent, hi - lo, *recv))
    return MPI_ERR_BUFFER;
  return MPI_SUCCESS;
}

bool is_contiguous(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  int size = 0;
  PMPI_Type_get_extent(t, &lb, &extent);
  PMPI_Type_get_true_extent(t, &true_lb, &true_extent);
  PMPI_Type_size(t, &size);
  return lb == 0 && true_lb == 0 && size == extent && true_extent == extent;
}

}  // namespace torusgather
