#include "broker/meta/dynamic_config.h"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <vector>

#include "broker/config/config.h"
#include "storage/meta_keys.h"

namespace rokka::broker {
namespace {

constexpr std::string_view kPrefix = storage::meta_prefix::kDynamicConfig;
constexpr std::string_view kListenerPrefix = "listener.name.";

// Kafka's dynamic broker configs updatable for the whole cluster (or one broker):
// log defaults, the log cleaner, thread pools, connection quotas, metric reporters.
constexpr std::string_view kClusterWide[] = {
    "log.segment.bytes", "log.roll.ms", "log.roll.hours", "log.roll.jitter.ms", "log.roll.jitter.hours",
    "log.index.size.max.bytes", "log.flush.interval.messages", "log.flush.interval.ms", "log.retention.bytes",
    "log.retention.ms", "log.retention.minutes", "log.retention.hours", "message.max.bytes",
    "log.index.interval.bytes", "log.cleaner.delete.retention.ms", "log.cleaner.min.compaction.lag.ms",
    "log.cleaner.max.compaction.lag.ms", "log.segment.delete.delay.ms", "log.cleaner.min.cleanable.ratio",
    "log.cleanup.policy", "unclean.leader.election.enable", "min.insync.replicas", "compression.type",
    "log.preallocate", "log.message.timestamp.type", "log.message.timestamp.difference.max.ms",
    "log.message.downconversion.enable", "log.cleaner.threads", "log.cleaner.dedupe.buffer.size",
    "log.cleaner.io.buffer.load.factor", "log.cleaner.io.buffer.size", "log.cleaner.io.max.bytes.per.second",
    "log.cleaner.backoff.ms", "num.io.threads", "num.network.threads", "num.replica.fetchers",
    "num.recovery.threads.per.data.dir", "background.threads", "metric.reporters", "max.connections",
    "max.connections.per.ip", "max.connections.per.ip.overrides", "max.connection.creation.rate",
    "follower.replication.throttled.rate", "leader.replication.throttled.rate",
    "replica.alter.log.dirs.io.max.bytes.per.second", "log.message.timestamp.before.max.ms",
    "log.message.timestamp.after.max.ms"};

// Kafka's dynamic configs that only a named broker may take (listener and security).
constexpr std::string_view kPerBroker[] = {
    "advertised.listeners", "listeners", "listener.security.protocol.map", "principal.builder.class",
    "ssl.protocol", "ssl.provider", "ssl.cipher.suites", "ssl.enabled.protocols", "ssl.keystore.type",
    "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password", "ssl.truststore.type",
    "ssl.truststore.location", "ssl.truststore.password", "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm",
    "ssl.endpoint.identification.algorithm", "ssl.secure.random.implementation", "ssl.client.auth",
    "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.truststore.certificates",
    "sasl.mechanism.inter.broker.protocol", "sasl.jaas.config", "sasl.enabled.mechanisms",
    "sasl.kerberos.service.name", "sasl.kerberos.kinit.cmd", "sasl.kerberos.ticket.renew.window.factor",
    "sasl.kerberos.ticket.renew.jitter", "sasl.kerberos.min.time.before.relogin",
    "sasl.kerberos.principal.to.local.rules", "sasl.login.refresh.window.factor",
    "sasl.login.refresh.window.jitter", "sasl.login.refresh.min.period.seconds",
    "sasl.login.refresh.buffer.seconds"};

// Kafka's keystore and truststore configs: dynamic only with a listener prefix.
constexpr std::string_view kListenerOnly[] = {
    "ssl.keystore.type",     "ssl.keystore.location",         "ssl.keystore.password", "ssl.key.password",
    "ssl.truststore.type",   "ssl.truststore.location",       "ssl.truststore.password",
    "ssl.keystore.key",      "ssl.keystore.certificate.chain", "ssl.truststore.certificates"};

// Kafka broker configs that need a restart (beyond Rokka's own table, whose keys are
// static unless listed above).
constexpr std::string_view kKafkaStatic[] = {
    "zookeeper.connect", "node.id", "process.roles", "controller.quorum.voters", "controller.listener.names",
    "log.dir", "inter.broker.protocol.version",
    "log.message.format.version", "broker.rack", "reserved.broker.max.id", "broker.id.generation.enable",
    "offsets.topic.replication.factor", "offsets.topic.num.partitions", "transaction.state.log.replication.factor",
    "transaction.state.log.num.partitions", "transaction.state.log.min.isr", "num.replica.alter.log.dirs.threads",
    "request.timeout.ms", "queued.max.requests", "socket.send.buffer.bytes", "socket.receive.buffer.bytes",
    "replica.lag.time.max.ms"};

template <size_t N>
bool contains(const std::string_view (&set)[N], std::string_view name) {
  return std::find(std::begin(set), std::end(set), name) != std::end(set);
}

// "listener.name.<listener>.<config>" -> "<config>", else empty.
std::string_view listener_base(std::string_view name) {
  if (!name.starts_with(kListenerPrefix)) return {};
  name.remove_prefix(kListenerPrefix.size());
  const size_t dot = name.find('.');
  return dot == std::string_view::npos ? std::string_view{} : name.substr(dot + 1);
}

bool is_static(std::string_view name) {
  if (DynamicBrokerConfig::is_dynamic(name)) return false;
  if (contains(kKafkaStatic, name)) return true;
  const auto keys = config_keys();
  return std::find(keys.begin(), keys.end(), name) != keys.end();
}

// Kafka's message: the names as a Scala Set.
std::string name_set(std::string_view what, const std::vector<std::string>& names) {
  std::string out = std::string(what) + ": Set(";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + ")";
}

template <typename Pred>
std::vector<std::string> names_where(const DynamicBrokerConfig::Changes& changes, Pred pred) {
  std::vector<std::string> out;
  for (const auto& [name, value] : changes)
    if (pred(name)) out.push_back(name);
  return out;
}

}  // namespace

DynamicBrokerConfig::DynamicBrokerConfig(storage::MetaStore& meta, int32_t broker_id)
    : meta_(meta), broker_id_(broker_id) {}

bool DynamicBrokerConfig::is_dynamic(std::string_view name) {
  if (const std::string_view base = listener_base(name); !base.empty()) return is_dynamic(base);
  return contains(kClusterWide, name) || contains(kPerBroker, name);
}

bool DynamicBrokerConfig::is_list(std::string_view name) {
  static constexpr std::string_view kLists[] = {"metric.reporters",      "log.cleanup.policy",
                                                "sasl.enabled.mechanisms", "ssl.cipher.suites",
                                                "ssl.enabled.protocols", "listeners",
                                                "advertised.listeners",  "max.connections.per.ip.overrides"};
  if (const std::string_view base = listener_base(name); !base.empty()) return is_list(base);
  return contains(kLists, name);
}

bool DynamicBrokerConfig::is_sensitive(std::string_view name) {
  return name.ends_with(".password") || name.ends_with("sasl.jaas.config") || name.ends_with("ssl.keystore.key") ||
         name.ends_with("ssl.keystore.certificate.chain") || name.ends_with("ssl.truststore.certificates");
}

std::string DynamicBrokerConfig::prefix(DynamicScope scope) const {
  return std::string(kPrefix) +
         (scope == DynamicScope::kBroker ? "broker/" + std::to_string(broker_id_) + "/" : std::string("default/"));
}

std::string DynamicBrokerConfig::key(DynamicScope scope, std::string_view name) const {
  return prefix(scope) + std::string(name);
}

std::map<std::string, std::string>& DynamicBrokerConfig::scope_values(DynamicScope scope) {
  return scope == DynamicScope::kBroker ? broker_ : cluster_default_;
}

storage::Status DynamicBrokerConfig::load() {
  std::unique_lock lock(mu_);
  for (const DynamicScope scope : {DynamicScope::kBroker, DynamicScope::kClusterDefault}) {
    const std::string p = prefix(scope);
    auto& values = scope_values(scope);
    values.clear();
    for (auto& [k, v] : meta_.scan(p)) values[k.substr(p.size())] = v;
  }
  return {};
}

std::string DynamicBrokerConfig::validate(DynamicScope scope, const Changes& changes) {
  if (auto bad = names_where(changes, is_static); !bad.empty())
    return name_set("Cannot update these configs dynamically", bad);
  if (auto bad = names_where(changes, [](std::string_view n) { return contains(kListenerOnly, n); }); !bad.empty())
    return name_set("These security configs can be dynamically updated only per-listener using the listener prefix",
                    bad);
  for (const auto& [name, value] : changes) {
    if (!value) continue;
    if (std::string err = check_config_value(name, *value); !err.empty())
      return "Invalid value " + *value + " for configuration " + name + ": " + err;
  }
  if (scope == DynamicScope::kClusterDefault) {
    auto bad = names_where(changes, [](std::string_view n) {
      return contains(kPerBroker, n) || !listener_base(n).empty();
    });
    if (!bad.empty()) return name_set("Cannot update these configs at default cluster level, broker id must be specified", bad);
  }
  return {};
}

void DynamicBrokerConfig::alter(DynamicScope scope, Changes changes, bool replace,
                                std::function<void(storage::Status)> done) {
  if (replace) {
    for (const auto& [name, value] : this->values(scope))
      if (!changes.contains(name)) changes[name] = std::nullopt;
  }
  std::vector<storage::MetaStore::Mutation> batch;
  for (const auto& [name, value] : changes) batch.push_back({key(scope, name), value.value_or(""), !value});
  meta_.write(std::move(batch), [this, scope, changes = std::move(changes), done = std::move(done)](storage::Status s) {
    if (s.ok()) {
      std::unique_lock lock(mu_);
      auto& values = scope_values(scope);
      for (const auto& [name, value] : changes) {
        if (value) {
          values[name] = *value;
        } else {
          values.erase(name);
        }
      }
    }
    done(std::move(s));
  });
}

int64_t DynamicBrokerConfig::effective_int(std::string_view name, int64_t static_value) const {
  std::shared_lock lock(mu_);
  for (const auto* values : {&broker_, &cluster_default_}) {
    auto it = values->find(std::string(name));
    if (it == values->end()) continue;
    if (const std::optional<int64_t> v = parse_integer(it->second)) return *v;
  }
  return static_value;
}

std::map<std::string, std::string> DynamicBrokerConfig::values(DynamicScope scope) const {
  std::shared_lock lock(mu_);
  return scope == DynamicScope::kBroker ? broker_ : cluster_default_;
}

}  // namespace rokka::broker
