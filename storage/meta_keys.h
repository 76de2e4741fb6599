// The one registry of MetaStore key prefixes. Every broker state record lives in the
// store's one MetaStore journal (storage/meta_store.h), and every key starts with its
// owner's prefix from this list. The owner (the room named in each comment) defines the
// rest of its keys and the values; a fixed key of its own is checked against its prefix
// where it is defined (static_assert ... starts_with).
//
// MetaStore::scan(prefix) returns the keys that start with `prefix`, so two owners' scans
// overlap exactly when one prefix starts with another: disjoint() below rules that out at
// compile time, and tests/storage/meta_keys_test.cc checks it through a real journal.
// Adding a prefix means adding it to kAll too. The prefixes are on disk: never rename one.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace rokka::storage::meta_prefix {

inline constexpr std::string_view kStore = "s/";             // storage: the partition table (storage/partition_records.h)
inline constexpr std::string_view kTopics = "t/";            // broker: topics and their configs (broker/meta/topic_registry.cc)
inline constexpr std::string_view kProducerIds = "p/";       // broker: producer id blocks (broker/meta/producer_ids.cc)
inline constexpr std::string_view kAcls = "a/";              // broker: ACL bindings (broker/meta/authorizer.cc)
inline constexpr std::string_view kCluster = "c/";           // broker: the cluster id (broker/broker.cc)
inline constexpr std::string_view kDynamicConfig = "d/";     // broker: dynamic broker configs (broker/meta/dynamic_config.cc)
inline constexpr std::string_view kScramCredentials = "u/";  // broker: SCRAM credentials per user and mechanism
inline constexpr std::string_view kClientQuotas = "q/";      // broker: client quotas per entity and key
inline constexpr std::string_view kGroupConfigs = "gc/";     // broker: GROUP config resources (KIP-848)
inline constexpr std::string_view kOffsets = "o/";           // coordinator: committed offsets (coordinator/meta_records.h)
inline constexpr std::string_view kGroups = "g/";            // coordinator: classic group metadata (meta_records.h)
inline constexpr std::string_view kConsumerGroups = "k/";    // coordinator: consumer groups, KIP-848 (meta_records.h)
inline constexpr std::string_view kTxns = "x/";              // coordinator: transaction metadata (coordinator/txn_records.h)
inline constexpr std::string_view kLocal = "l/";             // storage: a re-bootstrap's marker (store_writer.cc)

inline constexpr std::array kAll = {
    kStore, kTopics, kProducerIds, kAcls, kCluster, kDynamicConfig, kScramCredentials, kClientQuotas, kGroupConfigs,
    kOffsets, kGroups, kConsumerGroups, kTxns, kLocal,
};

// Keys that stay on their node: the cluster id, the producer id blocks and the store's own
// local state. A leader's re-bootstrap snapshot (Store::bootstrap_snapshot) carries every
// other key; a follower's reset (Store::reset_to) keeps these and replaces the rest.
constexpr bool node_local(std::string_view key) {
  return key.starts_with(kCluster) || key.starts_with(kProducerIds) || key.starts_with(kLocal);
}

// True when no prefix starts with another (so no scan of one owner sees another's keys)
// and each is non-empty and ends in '/'.
constexpr bool disjoint() {
  for (size_t i = 0; i < kAll.size(); ++i) {
    if (kAll[i].empty() || kAll[i].back() != '/') return false;
    for (size_t j = 0; j < kAll.size(); ++j)
      if (i != j && kAll[j].starts_with(kAll[i])) return false;
  }
  return true;
}
static_assert(disjoint(), "one MetaStore key prefix per owner, none a prefix of another");

}  // namespace rokka::storage::meta_prefix
