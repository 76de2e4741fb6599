// ClientQuotas: the quotas set with AlterClientQuotas and read with DescribeClientQuotas
// (Kafka's ClientQuotaControlManager and ClientQuotasImage, on one broker), durable in
// the meta journal, and what the request path asks for a client's bound.
//
// An entity is Kafka's ClientQuotaEntity: entity type ("user", "client-id", "ip") ->
// name, where a null name is the type's default entity. Users and client ids take
// producer_byte_rate, consumer_byte_rate, request_percentage and controller_mutation_rate;
// IPs take connection_creation_rate only, and combine with no other type.
//
// Each (entity, key) is one MetaStore key under "q/" (meta_prefix::kClientQuotas): "q/"
// + int8 part count + per part (string type, nullable string name) in type order +
// string quota key; its value is the quota as a big-endian float64. load() reads them
// at start. Lookups take a shared lock and may run on any thread; alter() is durable
// before its callback runs (on the storage writer thread), and a lookup sees the change
// from then on.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/error_code.h"
#include "storage/meta_store.h"

namespace rokka::broker {

inline constexpr std::string_view kQuotaUser = "user";
inline constexpr std::string_view kQuotaClientId = "client-id";
inline constexpr std::string_view kQuotaIp = "ip";

inline constexpr std::string_view kProducerByteRate = "producer_byte_rate";
inline constexpr std::string_view kConsumerByteRate = "consumer_byte_rate";
inline constexpr std::string_view kRequestPercentage = "request_percentage";
inline constexpr std::string_view kControllerMutationRate = "controller_mutation_rate";
inline constexpr std::string_view kConnectionCreationRate = "connection_creation_rate";

// type -> name; nullopt is the type's default entity.
using QuotaEntity = std::map<std::string, std::optional<std::string>, std::less<>>;
using QuotaValues = std::map<std::string, double, std::less<>>;

// What one AlterClientQuotas entry asks: set (a value) or remove (nullopt) each key.
struct QuotaAlteration {
  QuotaEntity entity;
  std::vector<std::pair<std::string, std::optional<double>>> ops;
};

struct QuotaError {
  protocol::ErrorCode code = protocol::ErrorCode::kNone;
  std::string message;
  bool ok() const { return code == protocol::ErrorCode::kNone; }
};

// Kafka's checks of one alteration, as its controller makes them: known entity types,
// each once, no empty name, IP alone and a valid address, known keys for the entity's
// types, values > 0 and whole for the integral ones, no key twice. INVALID_REQUEST with
// Kafka's message, or ok.
QuotaError validate_alteration(const QuotaAlteration& a);

// A DescribeClientQuotas filter component: exact name, the default, or any name.
struct QuotaFilterComponent {
  enum class Match { kExact, kDefault, kSpecified };
  std::string entity_type;
  Match match = Match::kExact;
  std::optional<std::string> name;  // kExact only
};
// Kafka's checks of a filter (an entity type once, a match string exactly when
// kExact, ip not with user or client-id); ok or INVALID_REQUEST /
// UNSUPPORTED_VERSION (an unknown entity type) with Kafka's message.
QuotaError validate_filter(const std::vector<QuotaFilterComponent>& filter);
// Whether `entity` matches the filter; `strict`: it has no type the filter does not name.
bool filter_matches(const QuotaEntity& entity, const std::vector<QuotaFilterComponent>& filter, bool strict);

class ClientQuotas {
 public:
  explicit ClientQuotas(storage::MetaStore& meta);

  // Loads every quota from the MetaStore (start-up, before serving; in cluster mode again
  // after each change). `skip_bad`: a record that does not decode is logged and skipped
  // instead of failing the load.
  storage::Status load(bool skip_bad = false);

  // Every entity with at least one quota, in entity order.
  std::vector<std::pair<QuotaEntity, QuotaValues>> describe() const;

  // Applies validated alterations as one atomic MetaStore batch; removing a key the
  // entity does not have is not an error.
  void alter(std::vector<QuotaAlteration> alterations, std::function<void(storage::Status)> done);

  // The bound of `key` for a client: Kafka's precedence for users and client ids
  // (user+client-id, user+default client-id, user, default user+client-id, default
  // user+default client-id, default user, client-id, default client-id), and for
  // `key` connection_creation_rate the IP's entity, then the default IP. nullopt: none.
  // `matched` gets the entity the bound came from, its default parts named after the
  // client: the clients that share one rate (Kafka's quota metric tags).
  std::optional<double> bound(std::string_view key, std::string_view user, std::string_view client_id,
                              QuotaEntity* matched = nullptr) const;
  std::optional<double> ip_bound(std::string_view ip) const;

  // True while some entity has `key`: the request path's fast check, without a lock.
  bool any(std::string_view key) const;

  // The MetaStore key of one (entity, quota key) (exposed for tests).
  static std::string encode_key(const QuotaEntity& entity, std::string_view key);

 private:
  void recount();  // under mu_ (unique)
  storage::MetaStore& meta_;
  mutable std::shared_mutex mu_;
  std::map<QuotaEntity, QuotaValues> quotas_;  // GUARDED_BY(mu_)
  // How many entities have each rate key: producer, consumer, request, connection.
  std::atomic<int64_t> with_key_[4] = {};
};

}  // namespace rokka::broker
