// The key layout in etcd: every key Rokka reads or writes is built here, and nowhere else.
// Root configurable (rokka.cluster.root), default "/rokka". Values are JSON
// (cluster/records.h); the ones marked "later" belong to the replication issue (docs/cluster.md
// has the table with each key's writer).
//
//   <root>/cluster_id                  "<22-char id>" (a JSON string); created once, create_revision == 0 guard
//   <root>/brokers/<id>                BrokerRegistration, under the broker's lease. Its create_revision
//                                      is the broker epoch (a restart makes a new one)
//   <root>/controller                  {"broker":<id>}, under the controller's lease, created with
//                                      create_revision == 0. Its create_revision is the controller epoch;
//                                      every controller write compares it (controller_guard)
//   <root>/epoch                       42 (a JSON number): the cluster-wide leader-epoch counter, the
//                                      highest group epoch handed out; every election txn compares it
//   <root>/groups/<g>/spec             GroupSpec: the group's members, in order
//   <root>/groups/<g>/state            GroupState: leader, its broker epoch, group epoch, SSS, sss_version
//                                      (elections: the controller; SSS changes: the group's leader)
//   <root>/topics/<name>               TopicRecord: id, partitions, placement, configs
//   <root>/moving/<topic>/<partition>  a partition move in flight (later)
//   <root>/deleting/<topic-id>[/<g>]   topic deletion across brokers (later)
//   <root>/producer_id_block           ProducerIdBlockRecord: the next free block (CAS, blocks of 1000)
//   <root>/coordinators                CoordinatorsRecord: the broker of each coordinator shard
//                                      (cluster/placement.h); created once, create_revision == 0 guard
//   <root>/meta/<MetaStore key>        the broker state every broker shares: ACLs ("a/..."), SCRAM
//                                      credentials ("u/..."), dynamic broker configs ("d/...") and
//                                      client quotas ("q/..."), one etcd key per MetaStore key
//                                      (storage/meta_keys.h; the key may hold any byte), its value a
//                                      JSON string of the MetaStore value in base64 (broker/meta/etcd_shared_meta.h)
//
// Deviations from SCALE-OUT.md §3.2: moves live under <root>/moving/ (not under
// <root>/topics/<name>/moving/) so that <root>/topics/ holds only topic records; ACLs,
// dynamic broker configs and SCRAM credentials (and client quotas, which §3.2 does not
// name) live under <root>/meta/ with the keys and values each broker already keeps in its
// MetaStore, so one mechanism shares all four; the producer-id block is a JSON object that
// names its writer (cluster/records.h says why).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rokka::cluster {

// A replication group's name: [a-z0-9_-]{1,32}. It is one key segment here and one directory
// name under log.dirs/groups/ (issue 24's plan, rokka.replication.groups).
inline constexpr size_t kMaxGroupNameBytes = 32;
inline bool valid_group_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxGroupNameBytes) return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

class Keys {
 public:
  static constexpr std::string_view kDefaultRoot = "/rokka";

  // `root` without a trailing '/'.
  explicit Keys(std::string root = std::string(kDefaultRoot)) : root_(std::move(root)) {
    while (!root_.empty() && root_.back() == '/') root_.pop_back();
  }

  const std::string& root() const { return root_; }
  std::string prefix() const { return root_ + "/"; }  // every key of this cluster

  std::string cluster_id() const { return root_ + "/cluster_id"; }
  std::string brokers_prefix() const { return root_ + "/brokers/"; }
  std::string broker(int32_t id) const { return brokers_prefix() + std::to_string(id); }
  std::string controller() const { return root_ + "/controller"; }
  std::string epoch_counter() const { return root_ + "/epoch"; }
  std::string groups_prefix() const { return root_ + "/groups/"; }
  std::string group_spec(std::string_view group) const {
    return groups_prefix() + std::string(group) + std::string(kSpecLeaf);
  }
  std::string group_state(std::string_view group) const {
    return groups_prefix() + std::string(group) + std::string(kStateLeaf);
  }
  std::string topics_prefix() const { return root_ + "/topics/"; }
  std::string topic(std::string_view name) const { return topics_prefix() + std::string(name); }
  std::string moving_prefix() const { return root_ + "/moving/"; }
  std::string deleting_prefix() const { return root_ + "/deleting/"; }
  std::string producer_id_block() const { return root_ + "/producer_id_block"; }
  std::string coordinators() const { return root_ + "/coordinators"; }
  std::string meta_prefix() const { return root_ + "/meta/"; }
  std::string meta(std::string_view store_key) const { return meta_prefix() + std::string(store_key); }

  // The broker id of a <root>/brokers/<id> key (canonical decimal, >= 0), else nullopt.
  std::optional<int32_t> broker_id_of(std::string_view key) const {
    const std::string p = brokers_prefix();
    if (!key.starts_with(p)) return std::nullopt;
    const std::string_view digits = key.substr(p.size());
    int32_t id = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (ec != std::errc() || end != digits.data() + digits.size() || id < 0 || digits.empty() ||
        (digits.size() > 1 && digits[0] == '0')) {
      return std::nullopt;
    }
    return id;
  }
  // What a <root>/groups/<g>/spec or /state key names (g a valid group name), else nullopt.
  struct GroupKey {
    enum class Part { kSpec, kState };
    std::string_view group;  // into the key given
    Part part;
  };
  std::optional<GroupKey> group_of(std::string_view key) const {
    const std::string p = groups_prefix();
    if (!key.starts_with(p)) return std::nullopt;
    std::string_view rest = key.substr(p.size());
    GroupKey::Part part = GroupKey::Part::kSpec;
    if (rest.ends_with(kSpecLeaf)) {
      part = GroupKey::Part::kSpec;
      rest.remove_suffix(kSpecLeaf.size());
    } else if (rest.ends_with(kStateLeaf)) {
      part = GroupKey::Part::kState;
      rest.remove_suffix(kStateLeaf.size());
    } else {
      return std::nullopt;
    }
    if (!valid_group_name(rest)) return std::nullopt;
    return GroupKey{rest, part};
  }
  // The topic name of a <root>/topics/<name> key (one segment), else nullopt.
  std::optional<std::string_view> topic_of(std::string_view key) const {
    const std::string p = topics_prefix();
    if (!key.starts_with(p)) return std::nullopt;
    const std::string_view name = key.substr(p.size());
    if (name.empty() || name.find('/') != std::string_view::npos) return std::nullopt;
    return name;
  }

 private:
  static constexpr std::string_view kSpecLeaf = "/spec";
  static constexpr std::string_view kStateLeaf = "/state";

  std::string root_;
};

}  // namespace rokka::cluster
