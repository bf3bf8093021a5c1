// SPDX-License-Identifier: BSD-3-Clause
#include "topology/torus.hpp"

#include <limits>
#include <stdexcept>

namespace torusgather {

Torus::Torus(std::vector<int> dims, std::uint32_t two_link_axes, std::uint32_t open_axes) : dims_(std::move(dims)) {
  if (dims_.empty()) throw std::invalid_argument("a torus needs at least one dimension");
  if (dims_.size() > 16) throw std::invalid_argument("at most 16 dimensions are supported");
  // Only a side of 2 has two links to one neighbour, and only a closed one;
  // an open side of 2 or less is no different from a closed one with one link.
  for (int a = 0; a < ndims(); ++a) {
    const std::uint32_t bit = 1u << a;
    if (dims_[a] == 2 && !(open_axes & bit)) two_link_axes_ |= two_link_axes & bit;
    if (dims_[a] > 2) open_axes_ |= open_axes & bit;
  }
  strides_.assign(dims_.size(), 1);
  for (int a = ndims() - 1; a >= 0; --a) {
    if (dims_[a] < 1) throw std::invalid_argument("torus sides must be >= 1");
    strides_[a] = size_;
    if (size_ > std::numeric_limits<Rank>::max() / dims_[a])
      throw std::invalid_argument("torus too large");
    size_ *= dims_[a];
  }
}

std::vector<int> Torus::coords(Rank r) const {
  std::vector<int> c(dims_.size());
  for (int a = 0; a < ndims(); ++a) c[a] = coord(r, a);
  return c;
}

Rank Torus::rank(const std::vector<int>& c) const {
  Rank r = 0;
  for (int a = 0; a < ndims(); ++a) r += static_cast<Rank>(c[a]) * strides_[a];
  return r;
}

Rank Torus::shift(Rank r, int axis, long long delta) const {
  const long long n = dims_[axis];
  const long long c = coord(r, axis);
  long long nc = (c + delta) % n;
  if (nc < 0) nc += n;
  return r + (nc - c) * strides_[axis];
}

Rank Torus::clear_axes(Rank r, std::uint32_t axes_mask) const {
  for (int a = 0; a < ndims(); ++a)
    if (axes_mask & (1u << a)) r -= static_cast<Rank>(coord(r, a)) * strides_[a];
  return r;
}

std::vector<int> Torus::active_axes() const {
  std::vector<int> axes;
  for (int a = 0; a < ndims(); ++a)
    if (dims_[a] > 1) axes.push_back(a);
  return axes;
}

int Torus::incoming_links() const {
  int links = 0;
  for (int a : active_axes()) links += shared_link(a) || open(a) ? 1 : 2;
  return links;
}

std::string Torus::to_string() const {
  std::string s;
  for (int a = 0; a < ndims(); ++a) {
    if (a) s += 'x';
    s += std::to_string(dims_[a]);
    if (open(a)) s += 'm';
  }
  return s;
}

std::vector<int> parse_dims(const std::string& text, std::uint32_t* open_axes) {
  std::vector<int> dims;
  if (open_axes) *open_axes = 0;
  std::size_t i = 0;
  while (i <= text.size()) {
    std::size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
    if (j == i || j - i > 9)
      throw std::invalid_argument("malformed torus shape '" + text + "' (expected e.g. 8x8, 4x4x4, or 8x8mx4 where m marks an open axis)");
    dims.push_back(std::stoi(text.substr(i, j - i)));
    if (dims.back() < 1) throw std::invalid_argument("torus sides must be >= 1 in '" + text + "'");
    if (j < text.size() && (text[j] == 'm' || text[j] == 'M')) {
      if (!open_axes)
        throw std::invalid_argument("open axes ('" + std::to_string(dims.back()) + "m') are not accepted in '" + text + "'");
      if (dims.size() > 32) throw std::invalid_argument("at most 32 axes in '" + text + "'");
      *open_axes |= 1u << (dims.size() - 1);
      ++j;
    }
    if (j == text.size()) break;
    if (text[j] != 'x' && text[j] != 'X' && text[j] != ',')
      throw std::invalid_argument("malformed torus shape '" + text + "' (expected e.g. 8x8, 4x4x4, or 8x8mx4 where m marks an open axis)");
    i = j + 1;
    if (i == text.size())
      throw std::invalid_argument("malformed torus shape '" + text + "' (trailing separator)");
  }
  return dims;
}

}  // namespace torusgather
