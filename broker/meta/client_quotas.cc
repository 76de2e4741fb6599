#include "broker/meta/client_quotas.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <span>

#include <boost/asio/ip/address.hpp>

#include "broker/logging.h"
#include "coordinator/byte_codec.h"
#include "storage/meta_keys.h"

namespace rokka::broker {
namespace {

using protocol::ErrorCode;

constexpr std::string_view kPrefix = storage::meta_prefix::kClientQuotas;

enum class KeyType { kLong, kInt, kDouble };

struct KeySpec {
  std::string_view name;
  KeyType type;
};
constexpr KeySpec kUserAndClientKeys[] = {{kProducerByteRate, KeyType::kLong},
                                          {kConsumerByteRate, KeyType::kLong},
                                          {kRequestPercentage, KeyType::kDouble},
                                          {kControllerMutationRate, KeyType::kDouble}};
constexpr KeySpec kIpKeys[] = {{kConnectionCreationRate, KeyType::kInt}};
// The keys with_key_ counts, by index.
constexpr std::string_view kCountedKeys[] = {kProducerByteRate, kConsumerByteRate, kRequestPercentage,
                                             kConnectionCreationRate};

QuotaError invalid(std::string message) { return {ErrorCode::kInvalidRequest, std::move(message)}; }

bool valid_ip(std::string_view ip) {
  boost::system::error_code ec;
  boost::asio::ip::make_address(std::string(ip), ec);
  return !ec;
}

QuotaError check_value(const KeySpec& spec, double value) {
  if (!(value > 0.0)) return invalid("Quota " + std::string(spec.name) + " must be greater than 0");
  double limit = 0;
  const char* type_name = "";
  switch (spec.type) {
    case KeyType::kDouble:
      return {};
    case KeyType::kInt:
      limit = static_cast<double>(std::numeric_limits<int32_t>::max());
      type_name = "an INT";
      break;
    case KeyType::kLong:
      limit = static_cast<double>(std::numeric_limits<int64_t>::max());
      type_name = "a LONG";
      break;
  }
  if (value > limit) return invalid("Proposed value for " + std::string(spec.name) + " is too large for " + type_name + ".");
  if (std::abs(std::fmod(value, 1.0)) > 1e-6) return invalid(std::string(spec.name) + " cannot be a fractional value.");
  return {};
}

std::optional<double> find_value(const std::map<QuotaEntity, QuotaValues>& quotas, const QuotaEntity& entity,
                                 std::string_view key) {
  auto e = quotas.find(entity);
  if (e == quotas.end()) return std::nullopt;
  auto v = e->second.find(key);
  if (v == e->second.end()) return std::nullopt;
  return v->second;
}

}  // namespace

QuotaError validate_alteration(const QuotaAlteration& a) {
  if (a.entity.empty()) return invalid("Invalid empty client quota entity");
  for (const auto& [type, name] : a.entity) {
    if (type != kQuotaUser && type != kQuotaClientId && type != kQuotaIp)
      return invalid("Unhandled client quota entity type: " + type);
    if (name && name->empty()) return invalid("Empty " + type + " not supported");
  }
  const auto ip = a.entity.find(kQuotaIp);
  std::span<const KeySpec> keys = kUserAndClientKeys;
  if (ip != a.entity.end()) {
    if (a.entity.size() > 1)
      return invalid("Invalid quota entity combination, IP entity should not be combined with User or ClientId");
    if (ip->second && !valid_ip(*ip->second)) return invalid(*ip->second + " is not a valid IP or resolvable host.");
    keys = kIpKeys;
  }
  std::vector<std::string_view> seen;
  for (const auto& [key, value] : a.ops) {
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      return invalid("Duplicate quota key " + key + " not updating quota for this entity");
    seen.push_back(key);
    if (!value) continue;  // a removal: any key, Kafka ignores the unknown
    const KeySpec* spec = nullptr;
    for (const KeySpec& k : keys)
      if (k.name == key) spec = &k;
    if (spec == nullptr) return invalid("Invalid configuration key " + key);
    if (QuotaError e = check_value(*spec, *value); !e.ok()) return e;
  }
  return {};
}

QuotaError validate_filter(const std::vector<QuotaFilterComponent>& filter) {
  std::vector<std::string_view> seen;
  bool has_ip = false, has_client = false;
  for (const QuotaFilterComponent& c : filter) {
    if (c.entity_type.empty()) return invalid("Invalid empty entity type.");
    if (std::find(seen.begin(), seen.end(), c.entity_type) != seen.end())
      return invalid("Entity type " + c.entity_type + " cannot appear more than once in the filter.");
    seen.push_back(c.entity_type);
    if (c.entity_type != kQuotaIp && c.entity_type != kQuotaUser && c.entity_type != kQuotaClientId)
      return {ErrorCode::kUnsupportedVersion, "Unsupported entity type " + c.entity_type};
    if (c.match == QuotaFilterComponent::Match::kExact && !c.name)
      return invalid("Request specified MATCH_TYPE_EXACT, but set match string to null.");
    if (c.match == QuotaFilterComponent::Match::kDefault && c.name)
      return invalid("Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
    if (c.match == QuotaFilterComponent::Match::kSpecified && c.name)
      return invalid("Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
    (c.entity_type == kQuotaIp ? has_ip : has_client) = true;
  }
  if (has_ip && has_client)
    return invalid("Invalid entity filter component combination. IP filter component should not be used with "
                   "user or clientId filter component.");
  return {};
}

bool filter_matches(const QuotaEntity& entity, const std::vector<QuotaFilterComponent>& filter, bool strict) {
  if (strict && entity.size() != filter.size()) return false;
  for (const QuotaFilterComponent& c : filter) {
    auto part = entity.find(c.entity_type);
    if (part == entity.end()) return false;
    switch (c.match) {
      case QuotaFilterComponent::Match::kExact:
        if (part->second != c.name) return false;
        break;
      case QuotaFilterComponent::Match::kDefault:
        if (part->second) return false;
        break;
      case QuotaFilterComponent::Match::kSpecified:
        break;
    }
  }
  return true;
}

ClientQuotas::ClientQuotas(storage::MetaStore& meta) : meta_(meta) {}

// Key layout after "q/" (big-endian, coordinator/byte_codec.h): i8 entity part count,
// per part (in type order) str16 entity type and nullable_str16 name (null: the default
// entity), then str16 quota key. Value: f64.
std::string ClientQuotas::encode_key(const QuotaEntity& entity, std::string_view key) {
  coordinator::ByteWriter w;
  w.raw(kPrefix);
  w.i8(static_cast<int8_t>(entity.size()));
  for (const auto& [type, name] : entity) {
    w.str16(type);
    w.nullable_str16(name ? std::optional<std::string_view>(*name) : std::nullopt);
  }
  w.str16(key);
  return std::move(w).take();
}

storage::Status ClientQuotas::load(bool skip_bad) {
  std::map<QuotaEntity, QuotaValues> loaded;
  for (auto& [key, value] : meta_.scan(kPrefix)) {
    coordinator::ByteReader r(std::string_view(key).substr(kPrefix.size()));
    QuotaEntity entity;
    const int8_t parts = r.i8();
    for (int8_t i = 0; i < parts && r.ok(); ++i) {
      std::string type(r.str16());
      auto name = r.nullable_str16();
      entity[std::move(type)] = name ? std::optional<std::string>(std::string(*name)) : std::nullopt;
    }
    std::string quota_key(r.str16());
    coordinator::ByteReader v(value);
    const double bound = v.f64();
    if (!r.ok() || !r.at_end() || !v.ok() || !v.at_end() || parts < 1 ||
        !validate_alteration({entity, {{quota_key, bound}}}).ok()) {
      if (!skip_bad) return storage::Status::corruption("bad client quota record in the meta journal");
      broker_log().warn("client quota record does not decode, skipped: key_bytes={}", key.size());
      continue;
    }
    loaded[std::move(entity)][std::move(quota_key)] = bound;
  }
  std::unique_lock lock(mu_);
  quotas_ = std::move(loaded);
  recount();
  return {};
}

void ClientQuotas::recount() {
  for (size_t i = 0; i < std::size(kCountedKeys); ++i) {
    int64_t n = 0;
    for (const auto& [entity, values] : quotas_) n += values.contains(kCountedKeys[i]) ? 1 : 0;
    with_key_[i].store(n, std::memory_order_relaxed);
  }
}

bool ClientQuotas::any(std::string_view key) const {
  for (size_t i = 0; i < std::size(kCountedKeys); ++i)
    if (kCountedKeys[i] == key) return with_key_[i].load(std::memory_order_relaxed) > 0;
  std::shared_lock lock(mu_);
  for (const auto& [entity, values] : quotas_)
    if (values.contains(key)) return true;
  return false;
}

std::vector<std::pair<QuotaEntity, QuotaValues>> ClientQuotas::describe() const {
  std::shared_lock lock(mu_);
  return {quotas_.begin(), quotas_.end()};
}

void ClientQuotas::alter(std::vector<QuotaAlteration> alterations, std::function<void(storage::Status)> done) {
  std::vector<storage::MetaStore::Mutation> batch;
  for (const QuotaAlteration& a : alterations) {
    for (const auto& [key, value] : a.ops) {
      if (!value) {
        batch.push_back({encode_key(a.entity, key), "", true});
        continue;
      }
      coordinator::ByteWriter w;
      w.f64(*value);
      batch.push_back({encode_key(a.entity, key), std::move(w).take(), false});
    }
  }
  if (batch.empty()) {
    done({});
    return;
  }
  meta_.write(std::move(batch), [this, alterations = std::move(alterations),
                                 done = std::move(done)](storage::Status s) mutable {
    if (s.ok()) {
      std::unique_lock lock(mu_);
      for (QuotaAlteration& a : alterations) {
        QuotaValues& values = quotas_[a.entity];
        for (auto& [key, value] : a.ops) {
          if (value)
            values[key] = *value;
          else
            values.erase(key);
        }
        if (values.empty()) quotas_.erase(a.entity);
      }
      recount();
    }
    done(s);
  });
}

std::optional<double> ClientQuotas::bound(std::string_view key, std::string_view user, std::string_view client_id,
                                          QuotaEntity* matched) const {
  const std::string u(user), c(client_id);
  using Name = std::optional<std::string>;
  struct Step {
    QuotaEntity entity;
    QuotaEntity tags;  // the clients that share the rate
  };
  const QuotaEntity user_and_client{{std::string(kQuotaClientId), Name(c)}, {std::string(kQuotaUser), Name(u)}};
  const QuotaEntity user_only{{std::string(kQuotaUser), Name(u)}};
  const QuotaEntity client_only{{std::string(kQuotaClientId), Name(c)}};
  auto with = [](std::initializer_list<std::pair<std::string_view, Name>> parts) {
    QuotaEntity e;
    for (const auto& [type, name] : parts) e[std::string(type)] = name;
    return e;
  };
  std::vector<Step> steps;
  if (!u.empty() && !c.empty()) {
    steps.push_back({user_and_client, user_and_client});
    steps.push_back({with({{kQuotaUser, u}, {kQuotaClientId, std::nullopt}}), user_and_client});
  }
  if (!u.empty()) steps.push_back({user_only, user_only});
  if (!u.empty() && !c.empty()) {
    steps.push_back({with({{kQuotaUser, std::nullopt}, {kQuotaClientId, c}}), user_and_client});
    steps.push_back({with({{kQuotaUser, std::nullopt}, {kQuotaClientId, std::nullopt}}), user_and_client});
  }
  if (!u.empty()) steps.push_back({with({{kQuotaUser, std::nullopt}}), user_only});
  steps.push_back({client_only, client_only});
  steps.push_back({with({{kQuotaClientId, std::nullopt}}), client_only});

  std::shared_lock lock(mu_);
  for (const Step& step : steps) {
    if (auto v = find_value(quotas_, step.entity, key)) {
      if (matched) *matched = step.tags;
      return v;
    }
  }
  return std::nullopt;
}

std::optional<double> ClientQuotas::ip_bound(std::string_view ip) const {
  std::shared_lock lock(mu_);
  if (auto v = find_value(quotas_, QuotaEntity{{std::string(kQuotaIp), std::string(ip)}}, kConnectionCreationRate))
    return v;
  return find_value(quotas_, QuotaEntity{{std::string(kQuotaIp), std::nullopt}}, kConnectionCreationRate);
}

}  // namespace rokka::broker
