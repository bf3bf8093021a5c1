// SPDX-License-Identifier: BSD-3-Clause
// torusgather: C++ API (header-only, over the C API of torusgather.h).
//
//   std::vector<double> mine(k);
//   std::vector<double> all = torusgather::allgather(MPI_COMM_WORLD, mine);  // k * size elements, rank order
//   torusgather::allgather(comm, send_span, recv_span);                       // into caller's storage
//   torusgather::allgather_in_place(comm, recv);                             // own block already in place
//   std::vector<double> v = torusgather::allgatherv(comm, mine);              // lengths may differ per rank
//   torusgather::persistent_allgather p(comm, send, k, recv);                 // p.start(); p.wait(); repeatedly
//
// Send and receive buffers are contiguous ranges (anything std::data and
// std::size accept: std::vector, std::array, std::span, C arrays) of a type
// with an MPI datatype: the arithmetic types, std::complex and std::byte are
// known; specialise torusgather::mpi_type<T> for others. Errors throw
// torusgather::mpi_error (routine, MPI error code and class, and the MPI's
// own message), whatever error handler the communicator has.
#ifndef TORUSGATHER_TORUSGATHER_HPP
#define TORUSGATHER_TORUSGATHER_HPP

#include <climits>
#include <complex>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "torusgather/torusgather.h"

namespace torusgather {

/// An MPI error reported by a torusgather call.
class mpi_error : public std::runtime_error {
 public:
  /// routine: a string constant (not copied), e.g. "torusgather::allgather".
  mpi_error(const char* routine, int code) : std::runtime_error(describe(routine, code)), routine_(routine), code_(code) {}
  const char* routine() const noexcept { return routine_; }
  int code() const noexcept { return code_; }
  int error_class() const noexcept {
    int c = MPI_ERR_UNKNOWN;
    MPI_Error_class(code_, &c);
    return c;
  }

 private:
  static std::string describe(const char* routine, int code) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
    return std::string(routine) + ": " + std::string(text, static_cast<std::size_t>(len)) + " (MPI error code " +
           std::to_string(code) + ")";
  }
  const char* routine_;
  int code_;
};

/// The MPI datatype of T: specialise with `static MPI_Datatype get()`.
template <class T>
struct mpi_type {};

#define TORUSGATHER_MPI_TYPE(T, M) \
  template <>                      \
  struct mpi_type<T> {             \
    static MPI_Datatype get() { return M; } \
  };
TORUSGATHER_MPI_TYPE(char, MPI_CHAR)
TORUSGATHER_MPI_TYPE(signed char, MPI_SIGNED_CHAR)
TORUSGATHER_MPI_TYPE(unsigned char, MPI_UNSIGNED_CHAR)
TORUSGATHER_MPI_TYPE(wchar_t, MPI_WCHAR)
TORUSGATHER_MPI_TYPE(short, MPI_SHORT)
TORUSGATHER_MPI_TYPE(unsigned short, MPI_UNSIGNED_SHORT)
TORUSGATHER_MPI_TYPE(int, MPI_INT)
TORUSGATHER_MPI_TYPE(unsigned, MPI_UNSIGNED)
TORUSGATHER_MPI_TYPE(long, MPI_LONG)
TORUSGATHER_MPI_TYPE(unsigned long, MPI_UNSIGNED_LONG)
TORUSGATHER_MPI_TYPE(long long, MPI_LONG_LONG)
TORUSGATHER_MPI_TYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG)
TORUSGATHER_MPI_TYPE(float, MPI_FLOAT)
TORUSGATHER_MPI_TYPE(double, MPI_DOUBLE)
TORUSGATHER_MPI_TYPE(long double, MPI_LONG_DOUBLE)
TORUSGATHER_MPI_TYPE(bool, MPI_CXX_BOOL)
TORUSGATHER_MPI_TYPE(std::complex<float>, MPI_CXX_FLOAT_COMPLEX)
TORUSGATHER_MPI_TYPE(std::complex<double>, MPI_CXX_DOUBLE_COMPLEX)
TORUSGATHER_MPI_TYPE(std::complex<long double>, MPI_CXX_LONG_DOUBLE_COMPLEX)
TORUSGATHER_MPI_TYPE(std::byte, MPI_BYTE)
#undef TORUSGATHER_MPI_TYPE

namespace detail {

template <class T, class = void>
struct has_mpi_type : std::false_type {};
template <class T>
struct has_mpi_type<T, std::void_t<decltype(mpi_type<T>::get())>> : std::true_type {};

/// A contiguous range: std::data and std::size work on it.
template <class R, class = void>
struct is_range : std::false_type {};
template <class R>
struct is_range<R, std::void_t<decltype(std::data(std::declval<R&>())), decltype(std::size(std::declval<R&>()))>>
    : std::true_type {};

template <class R>
using element_t = std::remove_cv_t<std::remove_pointer_t<decltype(std::data(std::declval<R&>()))>>;

template <class A, class B, class = void>
struct same_element_ranges : std::false_type {};
template <class A, class B>
struct same_element_ranges<A, B, std::enable_if_t<is_range<A>::value && is_range<B>::value>>
    : std::is_same<element_t<A>, element_t<B>> {};

inline void check(const char* routine, int code) {
  if (code != MPI_SUCCESS) throw mpi_error(routine, code);
}

inline int comm_size(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) throw mpi_error("torusgather::allgather", MPI_ERR_COMM);
  int size = 0;
  check("MPI_Comm_size", MPI_Comm_size(comm, &size));
  return size;
}

inline int to_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) throw mpi_error("torusgather::allgather", MPI_ERR_COUNT);
  return static_cast<int>(n);
}

}  // namespace detail

/// Gathers `count` elements of `send` from every rank into `recv`, which
/// holds count * size elements, rank r's at [r * count, (r + 1) * count).
/// algorithm: as TG_Allgather_algorithm (nullptr: TORUSGATHER_ALGORITHM).
template <class T>
void allgather(MPI_Comm comm, const T* send, std::size_t count, T* recv, const char* algorithm = nullptr) {
  static_assert(detail::has_mpi_type<T>::value, "no MPI datatype for T: specialise torusgather::mpi_type<T>");
  const int n = detail::to_count(count);
  const MPI_Datatype t = mpi_type<T>::get();
  detail::check("torusgather::allgather", TG_Allgather_noraise(algorithm, send, n, t, recv, n, t, comm));
}

/// Range form: every rank sends send.size() elements (the same number on
/// every rank, as MPI_Allgather requires); recv must hold size times that.
template <class Send, class Recv, class = std::enable_if_t<detail::same_element_ranges<const Send, Recv>::value>>
void allgather(MPI_Comm comm, const Send& send, Recv&& recv, const char* algorithm = nullptr) {
  const std::size_t count = std::size(send);
  if (std::size(recv) < count * static_cast<std::size_t>(detail::comm_size(comm)))
    throw mpi_error("torusgather::allgather (receive range too small)", MPI_ERR_COUNT);
  allgather(comm, std::data(send), count, std::data(recv), algorithm);
}

/// Returning form: the gathered elements of every rank's `send`, in rank order.
template <class Send, class = std::enable_if_t<detail::is_range<const Send>::value>>
std::vector<detail::element_t<const Send>> allgather(MPI_Comm comm, const Send& send, const char* algorithm = nullptr) {
  std::vector<detail::element_t<const Send>> recv(std::size(send) * static_cast<std::size_t>(detail::comm_size(comm)));
  allgather(comm, std::data(send), std::size(send), recv.data(), algorithm);
  return recv;
}

/// One value per rank: element r of the result is rank r's value.
template <class T, class = std::enable_if_t<detail::has_mpi_type<T>::value>, class = void>
std::vector<T> allgather(MPI_Comm comm, const T& value, const char* algorithm = nullptr) {
  std::vector<T> recv(static_cast<std::size_t>(detail::comm_size(comm)));
  allgather(comm, &value, 1, recv.data(), algorithm);
  return recv;
}

/// MPI_IN_PLACE: recv holds size equal blocks and this rank's block is
/// already in place; afterwards every block is filled.
template <class Recv, class = std::enable_if_t<detail::is_range<Recv>::value>>
void allgather_in_place(MPI_Comm comm, Recv&& recv, const char* algorithm = nullptr) {
  using T = detail::element_t<Recv>;
  static_assert(detail::has_mpi_type<T>::value, "no MPI datatype for T: specialise torusgather::mpi_type<T>");
  const std::size_t size = static_cast<std::size_t>(detail::comm_size(comm));
  if (std::size(recv) % size != 0)
    throw mpi_error("torusgather::allgather_in_place (range not a multiple of the size)", MPI_ERR_COUNT);
  const int n = detail::to_count(std::size(recv) / size);
  const MPI_Datatype t = mpi_type<T>::get();
  detail::check("torusgather::allgather_in_place",
                TG_Allgather_noraise(algorithm, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, std::data(recv), n, t, comm));
}

/// Every rank's `send`, each of its own length, in rank order: the lengths
/// first (one allgather of ints), then the elements (TG_Allgatherv).
template <class Send, class = std::enable_if_t<detail::is_range<const Send>::value>>
std::vector<detail::element_t<const Send>> allgatherv(MPI_Comm comm, const Send& send,
                                                      const char* algorithm = nullptr) {
  using T = detail::element_t<const Send>;
  static_assert(detail::has_mpi_type<T>::value, "no MPI datatype for T: specialise torusgather::mpi_type<T>");
  const std::size_t size = static_cast<std::size_t>(detail::comm_size(comm));
  const int mine = detail::to_count(std::size(send));
  std::vector<int> counts(size), displs(size);
  detail::check("torusgather::allgatherv", TG_Allgather_noraise(algorithm, &mine, 1, MPI_INT, counts.data(), 1,
                                                                MPI_INT, comm));
  std::size_t total = 0;
  for (std::size_t r = 0; r < size; ++r) {
    displs[r] = detail::to_count(total);
    total += static_cast<std::size_t>(counts[r]);
  }
  detail::to_count(total);  // displacements are ints
  std::vector<T> recv(total);
  const MPI_Datatype t = mpi_type<T>::get();
  detail::check("torusgather::allgatherv", TG_Allgatherv_noraise(algorithm, std::data(send), mine, t, recv.data(),
                                                                 counts.data(), displs.data(), t, comm));
  return recv;
}

/// A persistent allgather over fixed buffers (TG_Allgather_init): start(),
/// then wait() or test() until true, as often as needed. `recv` holds
/// count * size elements. Freed (after completing a started call) when it
/// goes out of scope.
class persistent_allgather {
 public:
  template <class T>
  persistent_allgather(MPI_Comm comm, const T* send, std::size_t count, T* recv, const char* algorithm = nullptr) {
    static_assert(detail::has_mpi_type<T>::value, "no MPI datatype for T: specialise torusgather::mpi_type<T>");
    const int n = detail::to_count(count);
    const MPI_Datatype t = mpi_type<T>::get();
    MPI_Info info = MPI_INFO_NULL;
    if (algorithm) {
      MPI_Info_create(&info);
      MPI_Info_set(info, "torusgather_algorithm", algorithm);
    }
    const int err = TG_Allgather_init_noraise(send, n, t, recv, n, t, comm, info, &request_);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    detail::check("torusgather::persistent_allgather", err);
  }
  persistent_allgather(const persistent_allgather&) = delete;
  persistent_allgather& operator=(const persistent_allgather&) = delete;
  persistent_allgather(persistent_allgather&& other) noexcept : request_(other.request_) {
    other.request_ = TG_REQUEST_NULL;
  }
  ~persistent_allgather() {
    if (request_ == TG_REQUEST_NULL) return;
    TG_Wait(&request_);  // a started call completes first; errors cannot leave a destructor
    TG_Request_free(&request_);
  }
  void start() { detail::check("torusgather::persistent_allgather::start", TG_Start(&request_)); }
  /// True once the started call is complete.
  bool test() {
    int flag = 0;
    detail::check("torusgather::persistent_allgather::test", TG_Test(&request_, &flag));
    return flag != 0;
  }
  void wait() { detail::check("torusgather::persistent_allgather::wait", TG_Wait(&request_)); }

 private:
  TG_Request request_ = TG_REQUEST_NULL;
};

}  // namespace torusgather

#endif  // TORUSGATHER_TORUSGATHER_HPP
