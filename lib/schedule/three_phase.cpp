// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/three_phase.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "schedule/phases.hpp"

namespace torusgather {

std::string ThreePhaseSchedule::not_applicable(const Torus& torus, const std::vector<int>& node_of) {
  const long long n = torus.size();
  if (n < 2) return "needs at least 2 ranks";
  if (n > kMaxRanks) return "builds its calls with P x P bits: at most " + std::to_string(kMaxRanks) + " ranks";
  if (!node_of.empty() && static_cast<long long>(node_of.size()) != n)
    return "the node map has " + std::to_string(node_of.size()) + " entries for " + std::to_string(n) + " ranks";
  return {};
}

long long ThreePhaseSchedule::formula_rounds(long long largest_node, int nodes) {
  return 2 * ceil_log2(largest_node) + static_cast<long long>(complete_gossip(nodes).size());
}

ThreePhaseSchedule::ThreePhaseSchedule(const Torus& torus, const std::vector<int>& node_of) : ExplicitSchedule(torus) {
  if (std::string why = not_applicable(torus, node_of); !why.empty()) throw std::invalid_argument("three-phase: " + why);
  const Rank P = torus.size();
  // The nodes in the order of their lowest rank, each as its ranks in
  // ascending order; the lowest is the leader (the accumulation node).
  std::vector<std::vector<Rank>> members;
  std::map<int, std::size_t> index;
  for (Rank r = 0; r < P; ++r) {
    const int label = node_of.empty() ? static_cast<int>(r) : node_of[static_cast<std::size_t>(r)];
    auto it = index.find(label);
    if (it == index.end()) {
      it = index.emplace(label, members.size()).first;
      members.emplace_back();
    }
    members[it->second].push_back(r);
  }
  nodes_ = static_cast<int>(members.size());
  std::size_t largest = 0;
  for (const auto& m : members) largest = std::max(largest, m.size());

  // Phases 1 and 3 inside each node: the halving broadcast over the node's
  // ranks by position (Barrière, Cohen & Mitjana Lemma 1), merged round by round over the
  // nodes; a smaller node's rounds come first in the broadcast, so last in
  // the accumulation, next to the gossip.
  std::vector<std::vector<std::pair<Rank, Rank>>> tree;
  for (const auto& m : members) {
    const auto rounds = halving_broadcast(0, static_cast<Rank>(m.size()), 0);
    if (tree.size() < rounds.size()) tree.resize(rounds.size());
    for (std::size_t i = 0; i < rounds.size(); ++i)
      for (const auto& call : rounds[i])
        tree[i].emplace_back(m[static_cast<std::size_t>(call.first)], m[static_cast<std::size_t>(call.second)]);
  }
  GossipBuilder b(P, [](Rank, Port p) { return static_cast<Rank>(p); });
  auto direct = [](Rank to) { return std::vector<Port>{static_cast<Port>(to)}; };
  for (auto it = tree.rbegin(); it != tree.rend(); ++it) {
    b.next_round();
    for (const auto& call : *it) b.call(call.second, direct(call.first));
  }
  // Phase 2: the leaders gossip as in K_r, each pair exchanging what it has.
  const auto gossip = complete_gossip(nodes_);
  for (const auto& round : gossip) {
    b.next_round();
    for (const auto& pr : round.pairs) {
      const Rank x = members[static_cast<std::size_t>(pr.first)].front();
      const Rank y = members[static_cast<std::size_t>(pr.second)].front();
      b.call(x, direct(y));
      b.call(y, direct(x));
    }
  }
  for (const auto& round : tree) {
    b.next_round();
    for (const auto& call : round) b.call(call.first, direct(call.second));
  }
  set_calls(b.finish());
  rounds_ = formula_rounds(static_cast<long long>(largest), nodes_);
  construction_ = std::to_string(nodes_) + " node" + (nodes_ == 1 ? "" : "s") + " of at most " +
                  std::to_string(largest) + " rank" + (largest == 1 ? "" : "s") + ": accumulate in " +
                  std::to_string(tree.size()) + ", gossip among the leaders in " + std::to_string(gossip.size()) +
                  " (Algorithm " + (nodes_ % 2 ? "3" : "2") + "), broadcast in " + std::to_string(tree.size());
}

}  // namespace torusgather
