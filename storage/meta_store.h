// MetaStore: the store's durable key/value journal for broker state (topics, the
// partition table, producer ids, committed offsets, group and transaction metadata).
// Implemented by the Store (Store::meta()) over storage/meta_journal.h; tests use
// tests/testutil/fake_meta_store.h.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/types.h"

namespace rokka::storage {

// Every key starts with its owner's prefix, one per owner, listed here so that two
// owners never share one (the table is checked below). The owner defines the rest of
// its keys and the values.
namespace meta_prefix {
inline constexpr std::string_view kStore = "s/";          // storage: the partition table
inline constexpr std::string_view kTopics = "t/";         // broker: topics and their configs
inline constexpr std::string_view kProducerIds = "p/";    // broker: producer id blocks
inline constexpr std::string_view kAcls = "a/";           // broker: ACL bindings
inline constexpr std::string_view kCluster = "c/";        // broker: the cluster id
inline constexpr std::string_view kDynamicConfig = "d/";  // broker: dynamic broker configs
inline constexpr std::string_view kScramCredentials = "u/";  // broker: SCRAM credentials per user and mechanism
inline constexpr std::string_view kClientQuotas = "q/";     // broker: client quotas per entity and key
inline constexpr std::string_view kGroupConfigs = "gc/";    // broker: GROUP config resources (KIP-848)
inline constexpr std::string_view kOffsets = "o/";        // coordinator: committed offsets
inline constexpr std::string_view kGroups = "g/";         // coordinator: group metadata
inline constexpr std::string_view kConsumerGroups = "k/";  // coordinator: consumer groups (KIP-848)
inline constexpr std::string_view kTxns = "x/";           // coordinator: transaction metadata

inline constexpr std::array kAll = {kStore, kTopics, kProducerIds, kAcls, kCluster, kDynamicConfig, kScramCredentials, kClientQuotas, kGroupConfigs, kOffsets, kGroups, kConsumerGroups, kTxns};
constexpr bool disjoint() {
  for (size_t i = 0; i < kAll.size(); ++i)
    for (size_t j = 0; j < kAll.size(); ++j)
      if (i != j && kAll[j].starts_with(kAll[i])) return false;
  return true;
}
static_assert(disjoint(), "one MetaStore key prefix per owner, none a prefix of another");
}  // namespace meta_prefix

// A write is a batch of puts/erases applied atomically; the callback reports once it
// is durable under the store's flush mode (sync: fsync'd; async: written to the file).
// The Store runs the callback on its writer thread: hand the result over, never block.
class MetaStore {
 public:
  struct Mutation {
    std::string key;
    std::string value;
    bool erase = false;
  };
  virtual ~MetaStore() = default;
  virtual void write(std::vector<Mutation> batch, StatusCallback done) = 0;
  // Snapshot of every live key with `prefix` (startup loading; not for hot paths).
  virtual std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const = 0;
};

}  // namespace rokka::storage
