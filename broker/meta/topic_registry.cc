#include "broker/meta/topic_registry.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "broker/config/config_schema.h"
#include "broker/logging.h"
#include "coordinator/byte_codec.h"
#include "storage/meta_keys.h"
#include "wire/random_id.h"

namespace rokka::broker {
namespace {

using protocol::ErrorCode;
constexpr std::string_view kPrefix = storage::meta_prefix::kTopics;
// 1: every partition, all in the one store. 2: the partitions held in the record's store.
constexpr int8_t kRecordVersionOne = 1;
constexpr int8_t kRecordVersion = 2;
// A record's partition count above rokka.max.partitions.per.topic's largest value is damage.
constexpr int32_t kMaxRecordPartitions = 1000000;

// cleanup.policy: a list of "delete" and "compact" -> (compact, delete).
std::optional<std::pair<bool, bool>> parse_cleanup_policy(std::string_view value) {
  bool compact = false, del = false;
  while (!value.empty()) {
    const size_t comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == "compact") {
      compact = true;
    } else if (item == "delete") {
      del = true;
    } else {
      return std::nullopt;
    }
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  if (!compact && !del) return std::nullopt;
  return std::pair{compact, del};
}

// True when `value` parses as the key's type (lists: any comma-separated text).
bool value_fits_type(ConfigType type, const std::string& value) {
  switch (type) {
    case ConfigType::kBoolean:
      return value == "true" || value == "false";
    case ConfigType::kInt:
    case ConfigType::kShort:
    case ConfigType::kLong: {
      const std::optional<int64_t> v = parse_integer(value);
      if (!v) return false;
      if (type == ConfigType::kInt) return *v >= INT32_MIN && *v <= INT32_MAX;
      if (type == ConfigType::kShort) return *v >= INT16_MIN && *v <= INT16_MAX;
      return true;
    }
    case ConfigType::kDouble: {
      char* end = nullptr;
      std::strtod(value.c_str(), &end);
      return !value.empty() && end == value.c_str() + value.size();
    }
    case ConfigType::kUnknown:
    case ConfigType::kString:
    case ConfigType::kPassword:
    case ConfigType::kList:
      return true;
  }
  return false;
}

TopicError error(ErrorCode code, std::string message) { return {code, std::move(message)}; }

// Kafka's metric names replace '.' with '_', so two topics differing only there collide.
std::string folded(std::string_view name) {
  std::string s(name);
  std::replace(s.begin(), s.end(), '.', '_');
  return s;
}

// Runs `done` with the first error (else none) once `n` calls of the returned function came.
std::function<void(TopicError)> gather_errors(size_t n, std::function<void(TopicError)> done) {
  struct State {
    std::mutex mu;
    size_t left;
    TopicError first;
    std::function<void(TopicError)> done;
  };
  auto st = std::make_shared<State>();
  st->left = n;
  st->done = std::move(done);
  return [st](TopicError e) {
    std::unique_lock lock(st->mu);
    if (!e.ok() && st->first.ok()) st->first = std::move(e);
    if (--st->left > 0) return;
    TopicError first = std::move(st->first);
    lock.unlock();
    st->done(std::move(first));
  };
}

// The slots holding some of `partitions`, ascending.
std::vector<StoreSlot> slots_of(const std::vector<PartitionLoc>& partitions) {
  std::set<StoreSlot> slots;
  for (const PartitionLoc& loc : partitions) slots.insert(loc.slot);
  return {slots.begin(), slots.end()};
}

}  // namespace

// One store's t/ record: the topic (without partitions), its partition count and the
// (index, pid) pairs this store holds.
struct TopicRegistry::Record {
  Topic topic;
  int32_t total = 0;
  std::vector<std::pair<int32_t, storage::PartitionId>> held;
};

TopicRegistry::TopicRegistry(const StoreSet& stores, const BrokerConfig& config, StoreFor store_for)
    : stores_(stores), config_(config), store_for_(std::move(store_for)) {}

TopicError TopicRegistry::validate_name(std::string_view name) {
  if (name.empty()) return error(ErrorCode::kInvalidTopicException, "topic name is empty");
  if (name == "." || name == "..") return error(ErrorCode::kInvalidTopicException, "topic name cannot be . or ..");
  if (name.size() > 249)
    return error(ErrorCode::kInvalidTopicException, "topic name is longer than 249 characters");
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok)
      return error(ErrorCode::kInvalidTopicException,
                   "topic name '" + std::string(name) + "' has a character outside [a-zA-Z0-9._-]");
  }
  return {};
}

TopicError TopicRegistry::validate_configs(const std::map<std::string, std::string>& configs,
                                           TopicSettings* settings) const {
  TopicSettings s;
  s.retention_ms = config_.log_retention_ms;
  s.retention_bytes = -1;
  s.max_message_bytes = config_.message_max_bytes;
  s.timestamp_type = config_.log_message_timestamp_type == "LogAppendTime" ? storage::TimestampType::kLogAppendTime
                                                                           : storage::TimestampType::kCreateTime;
  s.timestamp_before_max_ms = config_.log_message_timestamp_before_max_ms;
  s.timestamp_after_max_ms = config_.log_message_timestamp_after_max_ms;
  s.min_insync_replicas = config_.min_insync_replicas;
  std::optional<int64_t> difference_max_ms;
  for (const auto& [key, value] : configs) {
    const cfg::Row* k = cfg::find_topic_key(key);
    if (k == nullptr) return error(ErrorCode::kInvalidConfig, "unknown topic config " + key);
    // Names the bindings it captures: clang 14 cannot capture a structured binding implicitly.
    auto bad = [&key = key, &value = value](std::string why) {
      return error(ErrorCode::kInvalidConfig, key + "=" + value + ": " + why);
    };
    if (!value_fits_type(k->type, value)) return bad("not a valid value of this config's type");
    if (k == &cfg::kCleanupPolicy) {
      auto policy = parse_cleanup_policy(value);
      if (!policy) return bad("expected delete, compact or compact,delete");
      s.compact = policy->first;
      s.delete_retention = policy->second;
    } else if (k == &cfg::kDeleteRetentionMs || k == &cfg::kMinCompactionLagMs || k == &cfg::kMaxCompactionLagMs) {
      auto v = parse_integer(value);
      if (!v || *v < (k == &cfg::kMaxCompactionLagMs ? 1 : 0)) return bad("expected a non-negative integer");
      (k == &cfg::kDeleteRetentionMs   ? s.delete_retention_ms
       : k == &cfg::kMinCompactionLagMs ? s.min_compaction_lag_ms
                                        : s.max_compaction_lag_ms) = *v;
    } else if (k == &cfg::kMinCleanableDirtyRatio) {
      const double v = std::strtod(value.c_str(), nullptr);  // the type check parsed it whole
      if (!(v >= 0 && v <= 1)) return bad("expected 0 to 1");
      s.min_cleanable_dirty_ratio = v;
    } else if (k == &cfg::kRetentionMs || k == &cfg::kRetentionBytes) {
      auto v = parse_integer(value);
      if (!v || *v < -1) return bad("expected an integer >= -1");
      (k == &cfg::kRetentionMs ? s.retention_ms : s.retention_bytes) = *v;
    } else if (k == &cfg::kMaxMessageBytes) {
      auto v = parse_integer(value);
      if (!v || *v < 0 || *v > config_.log_segment_bytes / 2) return bad("expected 0 to half of log.segment.bytes");
      s.max_message_bytes = static_cast<int32_t>(*v);
    } else if (k == &cfg::kMessageTimestampBeforeMaxMs || k == &cfg::kMessageTimestampAfterMaxMs ||
               k == &cfg::kMessageTimestampDifferenceMaxMs) {
      auto v = parse_integer(value);
      if (!v || *v < 0) return bad("expected a non-negative integer");
      if (k == &cfg::kMessageTimestampDifferenceMaxMs) {
        difference_max_ms = *v;
      } else {
        (k == &cfg::kMessageTimestampBeforeMaxMs ? s.timestamp_before_max_ms : s.timestamp_after_max_ms) = *v;
      }
    } else if (k == &cfg::kMinInsyncReplicas) {
      auto v = parse_integer(value);
      if (!v || *v < 1 || *v > INT16_MAX) return bad("expected 1 to 32767");
      s.min_insync_replicas = static_cast<int32_t>(*v);
    } else if (k == &cfg::kMessageTimestampType) {
      if (value == "CreateTime") {
        s.timestamp_type = storage::TimestampType::kCreateTime;
      } else if (value == "LogAppendTime") {
        s.timestamp_type = storage::TimestampType::kLogAppendTime;
      } else {
        return bad("expected CreateTime or LogAppendTime");
      }
    }
  }
  // Kafka 3.6+: the deprecated difference applies to a bound left at Long.MAX_VALUE.
  if (difference_max_ms) {
    if (s.timestamp_before_max_ms == INT64_MAX) s.timestamp_before_max_ms = *difference_max_ms;
    if (s.timestamp_after_max_ms == INT64_MAX) s.timestamp_after_max_ms = *difference_max_ms;
  }
  if (settings) *settings = s;
  return {};
}

std::map<std::string, std::string> TopicRegistry::broker_default_configs() const {
  std::map<std::string, std::string> out;
  for (const cfg::Row& k : cfg::topic_keys()) {
    out.emplace(k.name, k.synonym.empty() ? std::string(k.default_value) : cfg::value(cfg::synonym_of(k), config_));
  }
  return out;
}

std::vector<std::tuple<std::string, std::string, bool>> TopicRegistry::describe_configs(const Topic& topic) const {
  std::vector<std::tuple<std::string, std::string, bool>> out;
  for (auto& [key, def] : broker_default_configs()) {
    auto it = topic.configs.find(key);
    if (it != topic.configs.end()) {
      out.emplace_back(key, it->second, false);
    } else {
      out.emplace_back(key, def, true);
    }
  }
  return out;
}

namespace {
void write_configs(coordinator::ByteWriter& w, const std::map<std::string, std::string>& configs) {
  w.i32(static_cast<int32_t>(configs.size()));
  for (const auto& [k, v] : configs) {
    w.str16(k);
    w.str16(v);
  }
}
}  // namespace

// Value layout (big-endian, coordinator/byte_codec.h), version 2: i8 version, 16-byte
// topic id, i8 internal, i32 the topic's partition count, i32 count + (i32 partition
// index, i32 store partition id) for the partitions this record's store holds, i32 count
// + (str16 key, str16 value) configs. Version 1 (still read; its store is the root):
// i8 version, 16-byte topic id, i8 internal, i32 count + i32 store partition ids (index
// order, all of them), then the configs. A topic wholly in the root store is still written
// as version 1, so a data directory without group stores keeps the bytes earlier brokers
// read (a downgrade still loads it); version 2 only for a topic spread over stores.
std::string TopicRegistry::encode(const Topic& t, StoreSlot slot) const {
  coordinator::ByteWriter w;
  const bool root_only = std::all_of(t.partitions.begin(), t.partitions.end(),
                                     [](const PartitionLoc& loc) { return loc.slot == kRootSlot; });
  if (root_only && slot == kRootSlot) {
    w.i8(kRecordVersionOne);
    w.raw({reinterpret_cast<const char*>(t.id.data()), t.id.size()});
    w.i8(t.internal ? 1 : 0);
    w.i32(static_cast<int32_t>(t.partitions.size()));
    for (const PartitionLoc& loc : t.partitions) w.i32(static_cast<int32_t>(loc.pid));
    write_configs(w, t.configs);
    return std::move(w).take();
  }
  w.i8(kRecordVersion);
  w.raw({reinterpret_cast<const char*>(t.id.data()), t.id.size()});
  w.i8(t.internal ? 1 : 0);
  w.i32(static_cast<int32_t>(t.partitions.size()));
  int32_t held = 0;
  for (const PartitionLoc& loc : t.partitions) held += loc.slot == slot ? 1 : 0;
  w.i32(held);
  for (size_t i = 0; i < t.partitions.size(); ++i) {
    if (t.partitions[i].slot != slot) continue;
    w.i32(static_cast<int32_t>(i));
    w.i32(static_cast<int32_t>(t.partitions[i].pid));
  }
  write_configs(w, t.configs);
  return std::move(w).take();
}

std::optional<TopicRegistry::Record> TopicRegistry::decode(std::string_view name, std::string_view value) const {
  coordinator::ByteReader r(value);
  Record rec;
  Topic& t = rec.topic;
  t.name = std::string(name);
  const int8_t version = r.i8();
  if (version != kRecordVersionOne && version != kRecordVersion) return std::nullopt;
  const std::string_view id = r.raw(t.id.size());
  if (id.size() == t.id.size()) std::memcpy(t.id.data(), id.data(), id.size());
  t.internal = r.i8() != 0;
  if (version == kRecordVersionOne) {
    const std::optional<uint32_t> n = r.count(4);
    for (uint32_t i = 0; i < n.value_or(0); ++i)
      rec.held.emplace_back(static_cast<int32_t>(i), static_cast<storage::PartitionId>(r.i32()));
    rec.total = static_cast<int32_t>(rec.held.size());
  } else {
    rec.total = r.i32();
    const std::optional<uint32_t> n = r.count(8);
    if (rec.total < 0 || rec.total > kMaxRecordPartitions || n.value_or(0) > static_cast<uint32_t>(rec.total))
      return std::nullopt;
    for (uint32_t i = 0; i < n.value_or(0); ++i) {
      const int32_t index = r.i32();
      const auto pid = static_cast<storage::PartitionId>(r.i32());
      if (index < 0 || index >= rec.total) return std::nullopt;
      rec.held.emplace_back(index, pid);
    }
  }
  const std::optional<uint32_t> c = r.count(4);  // two empty strings
  for (uint32_t i = 0; i < c.value_or(0); ++i) {
    std::string k(r.str16());
    std::string v(r.str16());
    t.configs.emplace(std::move(k), std::move(v));
  }
  if (!r.at_end()) return std::nullopt;
  if (!validate_configs(t.configs, &t.settings).ok()) {
    // Written by an older broker that accepted a value this one refuses (min.insync.replicas=0
    // was accepted before it was applied) or knew a key this one does not: keep the topic and
    // its configs as stored, and apply each setting that still validates on its own.
    std::map<std::string, std::string> kept;
    for (const auto& kv : t.configs) {
      if (validate_configs({kv}, &t.settings).ok()) {
        kept.insert(kv);
      } else {
        broker_log().warn("topic '{}': stored config {}={} is not valid here; the broker default applies", t.name,
                          kv.first, kv.second);
      }
    }
    if (!validate_configs(kept, &t.settings).ok()) validate_configs({}, &t.settings);
  }
  return rec;
}

// Each store's records name the partitions it holds; a topic is whole once every index
// is placed exactly once (the topic itself, id and configs, from the lowest slot's record).
storage::Status TopicRegistry::load() {
  std::map<std::string, Record> merged;
  std::map<std::string, std::vector<std::optional<PartitionLoc>>> placed;
  for (size_t slot = 0; slot < stores_.size(); ++slot) {
    for (auto& [key, value] : stores_.entries()[slot].store->meta().scan(kPrefix)) {
      const std::string name = key.substr(kPrefix.size());
      auto rec = decode(name, value);
      if (!rec) return storage::Status::corruption("topic record for '" + name + "' does not decode");
      auto [it, fresh] = merged.try_emplace(name, *rec);
      if (!fresh && it->second.topic.id != rec->topic.id)
        return storage::Status::corruption("topic records for '" + name + "' name different topic ids");
      it->second.total = std::max(it->second.total, rec->total);
      auto& at = placed[name];
      if (at.size() < static_cast<size_t>(it->second.total)) at.resize(static_cast<size_t>(it->second.total));
      for (auto [index, pid] : rec->held) {
        if (at[static_cast<size_t>(index)])
          return storage::Status::corruption("topic '" + name + "' has partition " + std::to_string(index) +
                                             " twice");
        at[static_cast<size_t>(index)] = PartitionLoc{static_cast<StoreSlot>(slot), pid};
      }
    }
  }
  for (auto& [name, rec] : merged) {
    Topic t = std::move(rec.topic);
    const auto& at = placed[name];
    for (size_t i = 0; i < at.size(); ++i) {
      if (!at[i])
        return storage::Status::corruption("topic '" + name + "' has no record of its partition " + std::to_string(i));
      t.partitions.push_back(*at[i]);
    }
    publish(std::move(t));
  }
  broker_log().info("loaded topics: count={} stores={}", merged.size(), stores_.size());
  return {};
}

void TopicRegistry::publish(Topic t) {
  auto p = std::make_shared<const Topic>(std::move(t));
  std::unique_lock lock(mu_);
  by_id_[p->id] = p;
  by_folded_[folded(p->name)] = p->name;
  by_name_[p->name] = std::move(p);
}

TopicPtr TopicRegistry::find(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

TopicPtr TopicRegistry::find(const protocol::Uuid& id) const {
  std::shared_lock lock(mu_);
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::vector<TopicPtr> TopicRegistry::all() const {
  std::shared_lock lock(mu_);
  std::vector<TopicPtr> out;
  out.reserve(by_name_.size());
  for (const auto& [name, t] : by_name_) out.push_back(t);
  return out;
}

size_t TopicRegistry::size() const {
  std::shared_lock lock(mu_);
  return by_name_.size();
}

bool TopicRegistry::creating(std::string_view name) const {
  std::shared_lock lock(mu_);
  return creating_.count(name) > 0;
}

void TopicRegistry::persist(const Topic& t, DoneCallback done, bool remove) {
  const std::vector<StoreSlot> slots = slots_of(t.partitions);
  if (slots.empty()) return done({});
  auto written = gather_errors(slots.size(), std::move(done));
  for (StoreSlot slot : slots) {
    storage::Store* store = stores_.at(slot);
    if (store == nullptr) {
      written(error(ErrorCode::kKafkaStorageError, "no store in slot " + std::to_string(slot)));
      continue;
    }
    store->meta().write({{std::string(kPrefix) + t.name, remove ? std::string() : encode(t, slot), remove}},
                        [written](storage::Status s) {
                          if (!s.ok()) return written(error(ErrorCode::kKafkaStorageError, s.to_string()));
                          written({});
                        });
  }
}

void TopicRegistry::allocate(const std::string& name, int32_t first, int32_t count, std::optional<StoreSlot> slot_given,
                             std::function<void(TopicError, std::vector<PartitionLoc>)> done) {
  // Each new index's store, then one create_partitions per store.
  std::map<StoreSlot, std::vector<int32_t>> by_slot;
  for (int32_t i = first; i < first + count; ++i) {
    const StoreSlot slot = slot_given ? *slot_given : store_for_ ? store_for_(name, i) : kRootSlot;
    if (stores_.at(slot) == nullptr)
      return done(error(ErrorCode::kKafkaStorageError, "no store in slot " + std::to_string(slot)), {});
    by_slot[slot].push_back(i);
  }
  struct State {
    std::mutex mu;
    std::vector<PartitionLoc> locs;
  };
  auto st = std::make_shared<State>();
  st->locs.resize(static_cast<size_t>(count));
  auto created = gather_errors(by_slot.size(), [st, done = std::move(done)](TopicError e) {
    if (!e.ok()) return done(std::move(e), {});
    done({}, std::move(st->locs));
  });
  for (auto& [slot, indexes] : by_slot) {
    stores_.at(slot)->create_partitions(
        static_cast<uint32_t>(indexes.size()),
        [st, created, slot = slot, indexes = indexes, first](storage::Result<std::vector<storage::PartitionId>> ids) {
          if (!ids.ok()) return created(error(ErrorCode::kKafkaStorageError, ids.status().to_string()));
          {
            std::lock_guard lock(st->mu);
            for (size_t k = 0; k < indexes.size() && k < ids->size(); ++k)
              st->locs[static_cast<size_t>(indexes[k] - first)] = PartitionLoc{slot, (*ids)[k]};
          }
          created({});
        });
  }
}

TopicError TopicRegistry::check_partition_limit(int32_t partitions) const {
  if (partitions <= config_.max_partitions_per_topic) return {};
  return error(ErrorCode::kInvalidPartitions,
               std::to_string(partitions) + " partitions is more than rokka.max.partitions.per.topic=" +
                   std::to_string(config_.max_partitions_per_topic) + " allows for one topic");
}

void TopicRegistry::create(std::string name, int32_t partitions, std::map<std::string, std::string> configs,
                           bool validate_only, TopicCallback done, std::vector<int32_t> assignment,
                           std::string group) {
  if (TopicError e = validate_name(name); !e.ok()) return done(e, nullptr);
  if (partitions < 1) return done(error(ErrorCode::kInvalidPartitions, "partition count must be at least 1"), nullptr);
  if (TopicError e = check_partition_limit(partitions); !e.ok()) return done(e, nullptr);
  TopicSettings settings;
  if (TopicError e = validate_configs(configs, &settings); !e.ok()) return done(e, nullptr);
  {
    std::unique_lock lock(mu_);
    if (by_name_.count(name) || creating_.count(name)) {
      lock.unlock();
      return done(error(ErrorCode::kTopicAlreadyExists, "topic '" + name + "' already exists"), nullptr);
    }
    // Kafka refuses names that differ only by '.' versus '_' (their metric names collide).
    if (auto it = by_folded_.find(folded(name)); it != by_folded_.end()) {
      const std::string other = it->second;
      lock.unlock();
      return done(error(ErrorCode::kInvalidTopicException, "topic '" + name + "' collides with '" + other + "'"),
                  nullptr);
    }
    if (validate_only) {
      lock.unlock();
      return done({}, nullptr);
    }
    creating_.insert(name);
    if (!authority_) by_folded_.emplace(folded(name), name);  // a concurrent create of a colliding name is refused too
  }
  auto finish = [this, name, done](TopicError e, TopicPtr t) {
    {
      std::unique_lock lock(mu_);
      creating_.erase(name);
      if (!t && !by_name_.count(name)) by_folded_.erase(folded(name));
    }
    done(std::move(e), std::move(t));
  };
  if (authority_) {
    // The authority answers once this registry has applied its decision.
    return authority_->create(name, partitions, std::move(configs), std::move(assignment), std::move(group),
                              [this, name, finish](TopicError e) {
                                if (!e.ok()) return finish(std::move(e), nullptr);
                                TopicPtr t = find(name);
                                if (!t) return finish(error(ErrorCode::kUnknownTopicOrPartition,
                                                            "topic '" + name + "' was deleted as it was created"),
                                                      nullptr);
                                finish({}, std::move(t));
                              });
  }
  create_local(std::move(name), new_topic_id(), partitions, std::move(configs), settings, {}, std::nullopt,
               [this, finish](TopicError e, std::optional<Topic> t) {
                 if (!t) return finish(std::move(e), nullptr);
                 finish({}, find(t->name));
               });
}

void TopicRegistry::create_local(std::string name, protocol::Uuid id, int32_t partitions,
                                 std::map<std::string, std::string> configs, TopicSettings settings,
                                 std::vector<int32_t> leaders, std::optional<StoreSlot> slot,
                                 std::function<void(TopicError, std::optional<Topic>)> done) {
  allocate(
      name, 0, partitions, slot,
      [this, name, id, configs = std::move(configs), settings, leaders = std::move(leaders),
       done](TopicError failed, std::vector<PartitionLoc> locs) {
        if (!failed.ok()) return done(std::move(failed), std::nullopt);
        Topic t;
        t.name = name;
        t.id = id;
        t.partitions = std::move(locs);
        t.configs = configs;
        t.settings = settings;
        t.leaders = leaders;
        persist(t, [this, t, done](TopicError e) mutable {
          if (!e.ok()) return done(e, std::nullopt);
          broker_log().info("created topic: name={} partitions={}", t.name, t.partitions.size());
          publish(t);
          done({}, std::move(t));
        });
      });
}

void TopicRegistry::remove(std::string_view name, DoneCallback done) {
  if (!find(name)) return done(error(ErrorCode::kUnknownTopicOrPartition, "no topic '" + std::string(name) + "'"));
  if (authority_) return authority_->remove(std::string(name), std::move(done));
  apply_remove(name, std::move(done));
}

void TopicRegistry::apply_remove(std::string_view name, DoneCallback done) {
  TopicPtr t = find(name);
  if (!t) return done(error(ErrorCode::kUnknownTopicOrPartition, "no topic '" + std::string(name) + "'"));
  {
    std::unique_lock lock(mu_);
    by_name_.erase(t->name);
    by_id_.erase(t->id);
    by_folded_.erase(folded(t->name));
  }
  // The name is free at once; the record and partitions go durably behind it.
  persist(*t, [this, t, done](TopicError e) {
    if (!e.ok()) return done(std::move(e));
    for (const PartitionLoc& loc : t->partitions)
      if (storage::Store* store = stores_.at(loc.slot)) store->delete_partition(loc.pid, [](storage::Status) {});
    broker_log().info("deleted topic: name={} partitions={}", t->name, t->partitions.size());
    if (!removal_listener_) return done({});
    removal_listener_(t->name, [done] { done({}); });
  }, /*remove=*/true);
}

void TopicRegistry::add_partitions(std::string_view name, int32_t new_total, bool validate_only, DoneCallback done,
                                   std::vector<int32_t> assignment) {
  TopicPtr t = find(name);
  if (!t) return done(error(ErrorCode::kUnknownTopicOrPartition, "no topic '" + std::string(name) + "'"));
  const auto have = static_cast<int32_t>(t->partitions.size());
  if (new_total <= have)
    return done(error(ErrorCode::kInvalidPartitions, "topic '" + t->name + "' already has " + std::to_string(have) +
                                                         " partitions; the count can only grow"));
  if (TopicError e = check_partition_limit(new_total); !e.ok()) return done(e);
  if (validate_only) return done({});
  if (authority_) return authority_->add_partitions(t->name, new_total, std::move(assignment), std::move(done));
  apply_grow(name, new_total, {}, std::move(done));
}

void TopicRegistry::apply_grow(std::string_view name, int32_t new_total, std::vector<int32_t> leaders,
                               DoneCallback done, std::optional<StoreSlot> slot) {
  TopicPtr t = find(name);
  if (!t) return done(error(ErrorCode::kUnknownTopicOrPartition, "no topic '" + std::string(name) + "'"));
  const auto have = static_cast<int32_t>(t->partitions.size());
  if (new_total <= have) return done({});
  allocate(t->name, have, new_total - have, slot,
           [this, t, leaders = std::move(leaders), done](TopicError failed, std::vector<PartitionLoc> locs) {
             if (!failed.ok()) return done(std::move(failed));
             Topic updated = *t;
             for (const PartitionLoc& loc : locs) updated.partitions.push_back(loc);
             updated.leaders = leaders;
             persist(updated, [this, updated, done](TopicError e) {
               if (e.ok()) publish(updated);
               done(e);
             });
           });
}

void TopicRegistry::apply_create(std::string name, protocol::Uuid id, int32_t partitions,
                                 std::map<std::string, std::string> configs, std::vector<int32_t> leaders,
                                 DoneCallback done, std::optional<StoreSlot> slot) {
  TopicSettings settings;
  if (TopicError e = validate_configs(configs, &settings); !e.ok()) {
    // Another broker accepted it (an older or newer version, or an operator's etcdctl): serve
    // the topic with the broker defaults rather than not at all.
    broker_log().warn("topic configs from the cluster not applied: topic={} error={}", name, e.message);
    settings = TopicSettings{};
    (void)validate_configs({}, &settings);
  }
  create_local(std::move(name), id, partitions, std::move(configs), settings, std::move(leaders), slot,
               [done](TopicError e, std::optional<Topic>) { done(std::move(e)); });
}

void TopicRegistry::apply_update(std::string_view name, std::map<std::string, std::string> configs,
                                 std::vector<int32_t> leaders, DoneCallback done) {
  TopicPtr t = find(name);
  if (!t) return done(error(ErrorCode::kUnknownTopicOrPartition, "no topic '" + std::string(name) + "'"));
  Topic updated = *t;
  updated.leaders = std::move(leaders);
  if (updated.configs == configs) {
    publish(std::move(updated));
    return done({});
  }
  updated.configs = std::move(configs);
  if (TopicError e = validate_configs(updated.configs, &updated.settings); !e.ok())
    broker_log().warn("topic configs from the cluster not applied: topic={} error={}", updated.name, e.message);
  persist(updated, [this, updated, done](TopicError e) {
    if (e.ok()) publish(updated);
    done(e);
  });
}

std::map<std::string, Topic> TopicRegistry::stored_topics(StoreSlot slot) const {
  std::map<std::string, Topic> out;
  storage::Store* store = stores_.at(slot);
  if (store == nullptr) return out;
  for (auto& [key, value] : store->meta().scan(kPrefix)) {
    std::string name = key.substr(kPrefix.size());
    auto rec = decode(name, value);
    if (!rec || rec->held.size() != static_cast<size_t>(rec->total)) {
      broker_log().warn("topic record in store {} not used: topic={} ({})", stores_.entries()[slot].name, name,
                        rec ? "it does not hold every partition" : "it does not decode");
      continue;
    }
    Topic t = std::move(rec->topic);
    t.partitions.assign(static_cast<size_t>(rec->total), PartitionLoc{});
    std::vector<bool> seen(static_cast<size_t>(rec->total), false);
    bool whole = true;
    for (auto [index, pid] : rec->held) {
      whole = whole && !seen[static_cast<size_t>(index)];
      seen[static_cast<size_t>(index)] = true;
      t.partitions[static_cast<size_t>(index)] = PartitionLoc{slot, pid};
    }
    if (whole) out.emplace(std::move(name), std::move(t));
  }
  return out;
}

void TopicRegistry::adopt(Topic t) {
  {
    std::shared_lock lock(mu_);
    auto it = by_name_.find(t.name);
    if (it != by_name_.end() && it->second->id != t.id) {
      lock.unlock();
      forget(t.name);
    }
  }
  publish(std::move(t));
}

void TopicRegistry::forget(std::string_view name, bool deleted, DoneCallback done) {
  {
    std::unique_lock lock(mu_);
    auto it = by_name_.find(name);
    if (it != by_name_.end()) {
      const TopicPtr t = it->second;
      by_name_.erase(it);
      by_id_.erase(t->id);
      by_folded_.erase(folded(t->name));
    }
  }
  if (!done) done = [](TopicError) {};
  if (!deleted || !removal_listener_) return done({});
  removal_listener_(std::string(name), [done] { done({}); });
}

void TopicRegistry::drop_stored(const Topic& t, DoneCallback done) {
  persist(t, [this, t, done](TopicError e) {
    if (!e.ok()) return done(std::move(e));
    for (const PartitionLoc& loc : t.partitions)
      if (storage::Store* store = stores_.at(loc.slot)) store->delete_partition(loc.pid, [](storage::Status) {});
    broker_log().info("deleted stored topic: name={} partitions={}", t.name, t.partitions.size());
    done({});
  }, /*remove=*/true);
}

protocol::Uuid TopicRegistry::new_topic_id() { return wire::random_uuid(); }

void TopicRegistry::alter_configs(std::string_view name, std::map<std::string, std::optional<std::string>> changes,
                                  bool incremental, bool validate_only, DoneCallback done) {
  TopicPtr t = find(name);
  if (!t) return done(error(ErrorCode::kUnknownTopicOrPartition, "no topic '" + std::string(name) + "'"));
  Topic updated = *t;
  if (!incremental) updated.configs.clear();
  for (auto& [k, v] : changes) {
    if (v) {
      updated.configs[k] = *v;
    } else {
      if (!cfg::find_topic_key(k)) return done(error(ErrorCode::kInvalidConfig, "unknown topic config " + k));
      updated.configs.erase(k);
    }
  }
  if (TopicError e = validate_configs(updated.configs, &updated.settings); !e.ok()) return done(e);
  if (validate_only) return done({});
  if (authority_) return authority_->set_configs(updated.name, updated.configs, std::move(done));
  persist(updated, [this, updated, done](TopicError e) {
    if (e.ok()) publish(updated);
    done(e);
  });
}

}  // namespace rokka::broker
