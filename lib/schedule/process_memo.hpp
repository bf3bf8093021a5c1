// SPDX-License-Identifier: BSD-3-Clause
// A value made once per key in the process and shared, for the searches and
// loads that every communicator (and every simulated rank) of one shape
// would otherwise make again.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

namespace torusgather {

template <class Key, class Value>
class ProcessMemo {
 public:
  /// At most `most` values kept; past it the memo starts again empty.
  explicit ProcessMemo(std::size_t most = 100000) : most_(most) {}

  /// The value of `key`, made by `make()` (a shared_ptr to it) the first
  /// time, outside the lock: two threads may both make it, one is kept.
  template <class Make>
  std::shared_ptr<const Value> get(const Key& key, Make&& make) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = known_.find(key); it != known_.end()) return it->second;
    }
    std::shared_ptr<const Value> made = make();
    std::lock_guard<std::mutex> lock(mutex_);
    if (known_.size() >= most_) known_.clear();
    return known_.emplace(key, std::move(made)).first->second;
  }

 private:
  std::size_t most_;
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<const Value>> known_;
};

}  // namespace torusgather
