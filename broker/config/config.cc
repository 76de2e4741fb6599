#include "broker/config/config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <map>
#include <sstream>

#include "security/config_map.h"

namespace rokka::broker {

std::optional<int64_t> parse_integer(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

namespace {

using storage::Result;
using storage::Status;

// One configuration key: its default (as text), its meaning, how to apply a value.
// `apply` returns an error message, or an empty string when the value is good.
struct Entry {
  std::string_view name;
  std::string_view default_value;
  std::string_view doc;
  std::function<std::string(BrokerConfig&, std::string_view)> apply;
  std::function<std::string(const BrokerConfig&)> show;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<int64_t> parse_int(std::string_view s) { return parse_integer(trim(s)); }

template <typename T>
Entry integer(std::string_view name, T BrokerConfig::*member, int64_t min, int64_t max, std::string_view def,
              std::string_view doc) {
  return Entry{name, def, doc,
               [=](BrokerConfig& c, std::string_view v) -> std::string {
                 auto n = parse_int(v);
                 if (!n) return "expected an integer";
                 if (*n < min || *n > max)
                   return "must be between " + std::to_string(min) + " and " + std::to_string(max);
                 c.*member = static_cast<T>(*n);
                 return {};
               },
               [=](const BrokerConfig& c) { return std::to_string(c.*member); }};
}

Entry boolean(std::string_view name, bool BrokerConfig::*member, std::string_view def, std::string_view doc) {
  return Entry{name, def, doc,
               [=](BrokerConfig& c, std::string_view v) -> std::string {
                 v = trim(v);
                 if (v == "true") {
                   c.*member = true;
                 } else if (v == "false") {
                   c.*member = false;
                 } else {
                   return "expected true or false";
                 }
                 return {};
               },
               [=](const BrokerConfig& c) { return std::string(c.*member ? "true" : "false"); }};
}

Entry choice(std::string_view name, std::string BrokerConfig::*member, std::vector<std::string> options,
             std::string_view def, std::string_view doc) {
  return Entry{name, def, doc,
               [=](BrokerConfig& c, std::string_view v) -> std::string {
                 v = trim(v);
                 if (std::find(options.begin(), options.end(), v) == options.end()) {
                   std::string all;
                   for (const auto& o : options) all += (all.empty() ? "" : ", ") + o;
                   return "expected one of: " + all;
                 }
                 c.*member = std::string(v);
                 return {};
               },
               [=](const BrokerConfig& c) { return c.*member; }};
}

Entry text(std::string_view name, std::string BrokerConfig::*member, std::string_view def, std::string_view doc) {
  return Entry{name, def, doc,
               [=](BrokerConfig& c, std::string_view v) -> std::string {
                 v = trim(v);
                 if (v.empty()) return "must not be empty";
                 c.*member = std::string(v);
                 return {};
               },
               [=](const BrokerConfig& c) { return c.*member; }};
}

Entry listeners(std::string_view name, std::vector<Listener> BrokerConfig::*member, bool allow_empty,
                std::string_view def, std::string_view doc) {
  return Entry{name, def, doc,
               [=](BrokerConfig& c, std::string_view v) -> std::string {
                 if (allow_empty && trim(v).empty()) {
                   (c.*member).clear();
                   return {};
                 }
                 auto parsed = parse_listeners(v);
                 if (!parsed.ok()) return parsed.status().message();
                 c.*member = std::move(parsed).value();
                 return {};
               },
               [=](const BrokerConfig& c) {
                 std::string out;
                 for (const auto& l : c.*member) out += (out.empty() ? "" : ",") + l.to_string();
                 return out;
               }};
}

// rokka.http.listeners: "host:port[,host:port]"; empty = no HTTP endpoints.
Entry http_listeners(std::string_view name, std::string_view def, std::string_view doc) {
  return Entry{name, def, doc,
               [](BrokerConfig& c, std::string_view v) -> std::string {
                 c.http_listeners.clear();
                 size_t start = 0;
                 while (start <= v.size()) {
                   size_t comma = v.find(',', start);
                   if (comma == std::string_view::npos) comma = v.size();
                   std::string_view item = trim(v.substr(start, comma - start));
                   start = comma + 1;
                   if (item.empty()) continue;
                   if (item.find("://") != std::string_view::npos) return "expected host:port, without a scheme";
                   const size_t colon = item.rfind(':');
                   if (colon == std::string_view::npos) return "'" + std::string(item) + "' has no port";
                   std::string_view host = item.substr(0, colon);
                   if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
                   auto port = parse_int(item.substr(colon + 1));
                   if (!port || *port < 0 || *port > 65535) return "'" + std::string(item) + "' has a bad port";
                   Listener l;
                   l.name = "http";
                   l.host = std::string(host);
                   l.port = static_cast<uint16_t>(*port);
                   c.http_listeners.push_back(std::move(l));
                 }
                 return {};
               },
               [](const BrokerConfig& c) {
                 std::string out;
                 for (const auto& l : c.http_listeners)
                   out += (out.empty() ? "" : ",") + (l.host.find(':') != std::string::npos ? "[" + l.host + "]" : l.host) +
                          ":" + std::to_string(l.port);
                 return out;
               }};
}

// Kafka's authorizer classes; naming any of them turns Rokka's built-in authorizer on.
Entry authorizer_class(std::string_view name, std::string_view doc) {
  static const std::vector<std::string> kClasses = {"org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                                                    "kafka.security.authorizer.AclAuthorizer",
                                                    "kafka.security.auth.SimpleAclAuthorizer"};
  return Entry{name, "", doc,
               [](BrokerConfig& c, std::string_view v) -> std::string {
                 v = trim(v);
                 if (!v.empty() && std::find(kClasses.begin(), kClasses.end(), v) == kClasses.end()) {
                   std::string all;
                   for (const auto& k : kClasses) all += (all.empty() ? "" : ", ") + k;
                   return "Rokka's built-in authorizer stands in for one of: " + all + " (or empty: none)";
                 }
                 c.authorizer_class_name = std::string(v);
                 return {};
               },
               [](const BrokerConfig& c) { return c.authorizer_class_name; }};
}

Entry optional_text(std::string_view name, std::string BrokerConfig::*member, std::string_view doc) {
  return Entry{name, "", doc,
               [=](BrokerConfig& c, std::string_view v) -> std::string {
                 c.*member = std::string(trim(v));
                 return {};
               },
               [=](const BrokerConfig& c) { return c.*member; }};
}

// Retention may be given in hours, minutes or ms; the finest unit given wins (as in Kafka).
// The entries are applied in table order (hours, minutes, ms), so a later one overrides.
Entry retention(std::string_view name, int64_t unit_ms, std::string_view def, std::string_view doc) {
  return Entry{name, def, doc,
               [=](BrokerConfig& c, std::string_view v) -> std::string {
                 auto n = parse_int(v);
                 if (!n) return "expected an integer";
                 if (*n < -1) return "must be -1 (unlimited) or more";
                 if (*n > INT64_MAX / unit_ms) return "too large";
                 c.log_retention_ms = *n < 0 ? -1 : *n * unit_ms;
                 return {};
               },
               [=](const BrokerConfig& c) {
                 return c.log_retention_ms < 0 ? std::string("-1") : std::to_string(c.log_retention_ms / unit_ms);
               }};
}

constexpr int64_t kI32 = INT32_MAX;
constexpr int64_t kI64 = INT64_MAX;

const std::vector<Entry>& table() {
  static const std::vector<Entry> kTable = {
      // Server
      integer("broker.id", &BrokerConfig::broker_id, 0, kI32, "0", "This broker's id, reported in Metadata."),
      listeners("listeners", &BrokerConfig::listeners, false, "PLAINTEXT://127.0.0.1:9092",
                "Comma-separated NAME://host:port to listen on; an empty host or 0.0.0.0 means every interface."),
      listeners("advertised.listeners", &BrokerConfig::advertised_listeners, true, "",
                "Addresses given to clients in Metadata; empty = the listeners (a wildcard host becomes the "
                "machine's host name)."),
      text("log.dirs", &BrokerConfig::log_dirs, "./rokka-data",
           "Directory holding the CommitLog, the index files and broker state (one directory)."),
      integer("num.network.threads", &BrokerConfig::num_network_threads, 1, 64, "2",
              "Threads serving connections (each runs its own event loop)."),
      integer("socket.request.max.bytes", &BrokerConfig::socket_request_max_bytes, 1024, kI32, "104857600",
              "Largest request frame accepted; a larger size prefix closes the connection before allocating."),
      integer("connections.max.idle.ms", &BrokerConfig::connections_max_idle_ms, 1000, kI64, "600000",
              "Close connections idle for this long."),
      integer("max.connections", &BrokerConfig::max_connections, 1, kI32, "16000",
              "Most client connections at once; further connections are closed on accept."),
      integer("max.connections.per.ip", &BrokerConfig::max_connections_per_ip, 1, kI32, "2147483647",
              "Most client connections at once from one address; further ones are closed on accept."),
      integer("queued.max.request.bytes", &BrokerConfig::queued_max_request_bytes, -1, kI64, "536870912",
              "Request bytes all connections may hold at once (received, not yet handled); a connection "
              "stops reading while they are spent (-1: no limit)."),
      integer("rokka.request.read.timeout.ms", &BrokerConfig::request_read_timeout_ms, 100, kI64, "30000",
              "A request must arrive whole within this long of its size prefix, else the connection closes."),
      integer("quota.window.num", &BrokerConfig::quota_window_num, 1, 1000, "11",
              "Samples a client quota's rate is measured over (producer_byte_rate, consumer_byte_rate, "
              "request_percentage, connection_creation_rate; set with AlterClientQuotas)."),
      integer("quota.window.size.seconds", &BrokerConfig::quota_window_size_seconds, 1, 3600, "1",
              "Length of one client quota sample, in seconds."),
      // Topics
      integer("num.partitions", &BrokerConfig::num_partitions, 1, 1000000, "1",
              "Partitions of an automatically created topic."),
      integer("rokka.max.partitions.per.topic", &BrokerConfig::max_partitions_per_topic, 1, 1000000, "100000",
              "Most partitions one topic may have: CreateTopics and CreatePartitions above it answer "
              "INVALID_PARTITIONS. The default is librdkafka's limit (it refuses metadata of a topic with more "
              "than 100000 partitions, so its clients could not use one); spread more partitions over more "
              "topics, or raise it for clients without that limit (at most 1000000)."),
      integer("default.replication.factor", &BrokerConfig::default_replication_factor, 1, 1, "1",
              "Replication factor of automatically created topics (a single broker: 1)."),
      boolean("auto.create.topics.enable", &BrokerConfig::auto_create_topics_enable, "true",
              "Create a topic when a client asks for metadata or produces to one that does not exist."),
      boolean("delete.topic.enable", &BrokerConfig::delete_topic_enable, "true",
              "Allow DeleteTopics; when false it answers TOPIC_DELETION_DISABLED."),
      integer("message.max.bytes", &BrokerConfig::message_max_bytes, 0, kI32, "1048588",
              "Largest record batch accepted (topic default for max.message.bytes)."),
      integer("fetch.max.bytes", &BrokerConfig::fetch_max_bytes, 1024, kI32, "4194304",
              "Most record bytes in one Fetch response; a request asking for less gets less, and the first batch "
              "is always returned whole. Kafka's default is 57671680: librdkafka reads each response into one "
              "buffer, and above glibc's 32 MiB mmap threshold every response costs a fresh mapping and its page "
              "faults (a backlog read ran 3x slower with 50 MiB responses than with 4 MiB ones)."),
      choice("log.message.timestamp.type", &BrokerConfig::log_message_timestamp_type, {"CreateTime", "LogAppendTime"},
             "CreateTime", "Topic default for message.timestamp.type."),
      integer("log.message.timestamp.before.max.ms", &BrokerConfig::log_message_timestamp_before_max_ms, 0, kI64,
              "9223372036854775807",
              "CreateTime topics: a produced record whose timestamp is more than this far behind the broker's "
              "clock is refused (INVALID_TIMESTAMP). Topic default for message.timestamp.before.max.ms."),
      integer("log.message.timestamp.after.max.ms", &BrokerConfig::log_message_timestamp_after_max_ms, 0, kI64,
              "9223372036854775807",
              "CreateTime topics: a produced record whose timestamp is more than this far ahead of the broker's "
              "clock is refused (INVALID_TIMESTAMP). Topic default for message.timestamp.after.max.ms."),
      // Storage
      integer("log.segment.bytes", &BrokerConfig::log_segment_bytes, 1 << 20, int64_t{1} << 32, "1073741824",
              "Size of one CommitLog file (every partition shares the log)."),
      choice("store.flush.mode", &BrokerConfig::store_flush_mode, {"sync", "async"}, "async",
             "sync: an append is fsync'd before it is acknowledged (survives power loss); async: flushed every "
             "log.flush.interval.ms (survives a process crash)."),
      boolean("log.preallocate", &BrokerConfig::log_preallocate, "true",
              "Give each new CommitLog file all its blocks when it is created (fallocate; they read as zeros), so "
              "writing it allocates nothing. Kafka's default is false; with one log file written at a time the "
              "cost is one fallocate per file and its disk space up front (e2e p99 at 58,933 msgs/s, median of "
              "15 alternating rounds: 25 ms sparse, 20 ms preallocated). false: the file grows sparsely, taking "
              "disk space only as it is written."),
      integer("log.flush.interval.ms", &BrokerConfig::log_flush_interval_ms, 1, kI64, "500",
              "Async mode: flush at least this often."),
      integer("log.flush.interval.messages", &BrokerConfig::log_flush_interval_messages, 1, kI64,
              "9223372036854775807", "Async mode: also flush after this many appended batches."),
      retention("log.retention.hours", 3600 * 1000, "168", "Delete CommitLog files older than this (-1: never)."),
      retention("log.retention.minutes", 60 * 1000, "", "As log.retention.hours, in minutes; overrides it."),
      retention("log.retention.ms", 1, "", "As log.retention.hours, in ms; overrides both."),
      integer("log.retention.bytes", &BrokerConfig::log_retention_bytes, -1, kI64, "-1",
              "Delete the oldest CommitLog files while the log is larger than this (-1: no limit)."),
      integer("log.retention.check.interval.ms", &BrokerConfig::log_retention_check_interval_ms, 1, kI64, "300000",
              "How often retention runs."),
      boolean("log.cleaner.enable", &BrokerConfig::log_cleaner_enable, "true",
              "Run the log cleaner: compacts topics whose cleanup.policy includes compact."),
      integer("log.cleaner.backoff.ms", &BrokerConfig::log_cleaner_backoff_ms, 1, kI64, "15000",
              "How long the log cleaner sleeps between passes over the compacted partitions."),
      integer("store.checkpoint.interval.bytes", &BrokerConfig::store_checkpoint_interval_bytes, 1, kI64,
              "1073741824", "Write an index checkpoint after this much log; crash recovery re-reads at most "
              "about this much (plus up to 64 MiB before the checkpoint, re-verified)."),
      integer("store.checkpoint.interval.ms", &BrokerConfig::store_checkpoint_interval_ms, 1, kI64, "10000",
              "Write an index checkpoint at least this often while data arrives."),
      integer("store.recovery.verify.bytes", &BrokerConfig::store_recovery_verify_bytes, 0, kI64, "67108864",
              "Every start re-verifies (CRCs) up to this much log before the checkpoint, within its segment."),
      integer("store.pagecache.retain.bytes", &BrokerConfig::store_pagecache_retain_bytes, -1, kI64, "1073741824",
              "The newest this-many bytes of the CommitLog stay in the OS page cache; older ones, once "
              "synced, are dropped from it (posix_fadvise DONTNEED), so the log's cache footprint stays flat "
              "and new writes reuse warm pages (on a VM that returns free memory to its host, a write into "
              "a fresh page-cache page cost 10x one into a recycled page). Consumers further behind read "
              "from disk. -1: leave the page cache to the kernel."),
      // Groups and offsets
      integer("group.min.session.timeout.ms", &BrokerConfig::group_min_session_timeout_ms, 0, kI32, "6000",
              "Smallest session timeout a consumer may ask for."),
      integer("group.max.session.timeout.ms", &BrokerConfig::group_max_session_timeout_ms, 0, kI32, "1800000",
              "Largest session timeout a consumer may ask for."),
      integer("group.initial.rebalance.delay.ms", &BrokerConfig::group_initial_rebalance_delay_ms, 0, kI32, "3000",
              "How long a new group waits for more members before its first rebalance."),
      integer("group.max.size", &BrokerConfig::group_max_size, 1, kI32, "2147483647", "Most members in one group."),
      integer("group.consumer.heartbeat.interval.ms", &BrokerConfig::group_consumer_heartbeat_interval_ms, 1, kI32,
              "5000", "How often a member of a consumer group (KIP-848, group.protocol=consumer) heartbeats."),
      integer("group.consumer.min.heartbeat.interval.ms", &BrokerConfig::group_consumer_min_heartbeat_interval_ms, 1,
              kI32, "5000", "Smallest group.consumer.heartbeat.interval.ms allowed."),
      integer("group.consumer.max.heartbeat.interval.ms", &BrokerConfig::group_consumer_max_heartbeat_interval_ms, 1,
              kI32, "15000", "Largest group.consumer.heartbeat.interval.ms allowed."),
      integer("group.consumer.session.timeout.ms", &BrokerConfig::group_consumer_session_timeout_ms, 1, kI32, "45000",
              "A consumer group member that sends no heartbeat for this long is removed and its partitions move."),
      integer("group.consumer.min.session.timeout.ms", &BrokerConfig::group_consumer_min_session_timeout_ms, 1, kI32,
              "45000", "Smallest group.consumer.session.timeout.ms allowed."),
      integer("group.consumer.max.session.timeout.ms", &BrokerConfig::group_consumer_max_session_timeout_ms, 1, kI32,
              "60000", "Largest group.consumer.session.timeout.ms allowed."),
      integer("group.consumer.max.size", &BrokerConfig::group_consumer_max_size, 1, kI32, "2147483647",
              "Most members in one consumer group (else GROUP_MAX_SIZE_REACHED)."),
      text("group.consumer.assignors", &BrokerConfig::group_consumer_assignors, "uniform,range",
           "The server-side assignors a consumer group may ask for (group.remote.assignor), by Kafka's short names "
           "uniform and range or their class names; the first is the default."),
      choice("group.consumer.migration.policy", &BrokerConfig::group_consumer_migration_policy,
             {"disabled", "upgrade", "downgrade", "bidirectional"}, "bidirectional",
             "Online migration between the group protocols: upgrade turns a classic group of consumers into a "
             "consumer group when a member with group.protocol=consumer joins (the classic members stay, through "
             "JoinGroup/SyncGroup/Heartbeat); downgrade turns a consumer group whose last such member left back "
             "into a classic group; bidirectional allows both, disabled neither."),
      integer("offsets.retention.minutes", &BrokerConfig::offsets_retention_minutes, 1, kI32, "10080",
              "Committed offsets of an empty group are deleted after this long."),
      integer("offsets.retention.check.interval.ms", &BrokerConfig::offsets_retention_check_interval_ms, 1, kI64,
              "600000", "How often expired offsets are removed."),
      integer("offset.metadata.max.bytes", &BrokerConfig::offset_metadata_max_bytes, 0, kI32, "4096",
              "Longest metadata string stored with a committed offset."),
      // Transactions
      integer("transaction.max.timeout.ms", &BrokerConfig::transaction_max_timeout_ms, 1, kI32, "900000",
              "Largest transaction timeout a producer may ask for (else INVALID_TRANSACTION_TIMEOUT)."),
      integer("transactional.id.expiration.ms", &BrokerConfig::transactional_id_expiration_ms, 1, kI64, "604800000",
              "A transactional id with no transaction for this long is forgotten."),
      // Security
      authorizer_class("authorizer.class.name",
                       "Empty: no authorizer (everything allowed; the ACL APIs answer SECURITY_DISABLED). Kafka's "
                       "org.apache.kafka.metadata.authorizer.StandardAuthorizer or "
                       "kafka.security.authorizer.AclAuthorizer: enforce ACLs (CreateAcls/DescribeAcls/DeleteAcls) "
                       "with Rokka's built-in authorizer. Plaintext clients are User:ANONYMOUS."),
      boolean("allow.everyone.if.no.acl.found", &BrokerConfig::allow_everyone_if_no_acl_found, "false",
              "With an authorizer: allow a request on a resource that no ACL covers."),
      optional_text("super.users", &BrokerConfig::super_users,
                    "With an authorizer: principals allowed everything, separated by ';' (User:admin;User:ops)."),
      text("listener.security.protocol.map", &BrokerConfig::listener_security_protocol_map,
           "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
           "Each listener name's security protocol, NAME:PROTOCOL pairs. The TLS and SASL keys (ssl.*, "
           "sasl.enabled.mechanisms, <mechanism>.sasl.jaas.config, connections.max.reauth.ms, each also as "
           "listener.name.<name>.<key>) are Kafka's: see docs/security.md."),
      // Cluster mode
      optional_text("rokka.cluster.etcd.endpoints", &BrokerConfig::cluster_etcd_endpoints,
                    "Cluster mode: the etcd members' client URLs, http://host:port separated by commas. Brokers "
                    "that name the same etcd and rokka.cluster.root form one cluster: metadata, topics and their "
                    "placement live in etcd, each partition on one broker. Empty: a single broker (docs/cluster.md)."),
      text("rokka.cluster.root", &BrokerConfig::cluster_root, "/rokka",
           "Cluster mode: the etcd key prefix of this cluster (several clusters may share one etcd)."),
      integer("rokka.cluster.session.timeout.ms", &BrokerConfig::cluster_session_timeout_ms, 2000, 3600000, "6000",
              "Cluster mode: the broker's etcd lease. A broker that cannot renew it stops leading a quarter of it "
              "before it ends; a dead broker leaves the cluster's metadata when it ends (whole seconds)."),
      optional_text("broker.rack", &BrokerConfig::broker_rack, "This broker's rack, reported in Metadata."),
      optional_text("inter.broker.listener.name", &BrokerConfig::inter_broker_listener_name,
                    "Cluster mode: the listener, by name, this broker sends its own requests to the others on "
                    "(transaction markers), secured as that listener is: TLS against its truststore, SASL with "
                    "sasl.mechanism.inter.broker.protocol and the username and password of its "
                    "<mechanism>.sasl.jaas.config. Empty: the listener named as security.inter.broker.protocol, "
                    "else the first of that security protocol."),
      choice("security.inter.broker.protocol", &BrokerConfig::security_inter_broker_protocol,
             {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}, "PLAINTEXT",
             "Cluster mode, when inter.broker.listener.name is empty: the security protocol of the listener the "
             "brokers reach each other on."),
      // Operations
      choice("rokka.log.level", &BrokerConfig::log_level, {"trace", "debug", "info", "warn", "error"}, "info",
             "Log level; debug logs one line per request."),
      http_listeners("rokka.http.listeners", "127.0.0.1:9644",
                     "Where the HTTP endpoints listen, host:port[,host:port]: /metrics (Prometheus), /healthz and "
                     "/readyz. Empty: no HTTP endpoints."),
      integer("rokka.metrics.max.topic.series", &BrokerConfig::metrics_max_topic_series, 0, kI64, "1000",
              "At most this many topics get per-topic series in /metrics (the first ones seen); the others count "
              "in the broker-wide series only."),
  };
  return kTable;
}

const Entry* find_entry(std::string_view name) {
  for (const auto& e : table())
    if (e.name == name) return &e;
  return nullptr;
}

// Java properties: key=value or key:value or "key value"; # and ! comments;
// a trailing backslash continues the line.
std::vector<std::pair<std::string, std::string>> parse_properties(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string logical;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::string_view l = trim(line);
    if (logical.empty() && (l.empty() || l.front() == '#' || l.front() == '!')) continue;
    if (!l.empty() && l.back() == '\\') {
      logical += l.substr(0, l.size() - 1);
      continue;
    }
    logical += l;
    std::string_view kv = logical;
    const size_t sep = kv.find_first_of("=: \t");
    std::string_view key = trim(kv.substr(0, sep));
    std::string_view value;
    if (sep != std::string_view::npos) {
      value = trim(kv.substr(sep + 1));
      if (!value.empty() && (value.front() == '=' || value.front() == ':')) value = trim(value.substr(1));
    }
    if (!key.empty()) out.emplace_back(std::string(key), std::string(value));
    logical.clear();
  }
  return out;
}


// Every listener's security protocol from listener.security.protocol.map, as Kafka
// requires: each listener (and advertised listener) name must have an entry.
Status resolve_security_protocols(BrokerConfig& config) {
  std::map<std::string, std::string, std::less<>> map;
  for (const std::string& item : security::config_list(config.listener_security_protocol_map)) {
    const size_t colon = item.find(':');
    std::string_view name = colon == std::string::npos ? std::string_view(item) : trim(std::string_view(item).substr(0, colon));
    std::string_view protocol = colon == std::string::npos ? "" : trim(std::string_view(item).substr(colon + 1));
    if (std::find(std::begin(kSecurityProtocols), std::end(kSecurityProtocols), protocol) == std::end(kSecurityProtocols))
      return Status::invalid_argument("config listener.security.protocol.map: '" + item +
                                      "' is not NAME:PROTOCOL with PROTOCOL one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL");
    map[std::string(name)] = std::string(protocol);
  }
  for (auto* list : {&config.listeners, &config.advertised_listeners}) {
    for (Listener& l : *list) {
      auto it = map.find(l.name);
      if (it == map.end())
        return Status::invalid_argument("config listeners: no security protocol defined for listener " + l.name +
                                        " (add it to listener.security.protocol.map)");
      l.security_protocol = it->second;
    }
  }
  for (const Listener& a : config.advertised_listeners) {
    const bool known = std::any_of(config.listeners.begin(), config.listeners.end(),
                                   [&](const Listener& l) { return l.name == a.name; });
    if (!known)
      return Status::invalid_argument("config advertised.listeners: listener " + a.name + " is not in listeners");
  }
  return {};
}

}  // namespace

bool is_security_key(std::string_view key) {
  if (key.starts_with("listener.name.")) return true;
  return key.starts_with("ssl.") || key.starts_with("sasl.") || key.ends_with(".sasl.jaas.config") ||
         key == "connections.max.reauth.ms" || key.ends_with(".connections.max.reauth.ms");
}

std::string Listener::to_string() const { return name + "://" + host + ":" + std::to_string(port); }

Result<std::vector<Listener>> parse_listeners(std::string_view text) {
  std::vector<Listener> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const size_t scheme = item.find("://");
    if (scheme == std::string_view::npos || scheme == 0)
      return Status::invalid_argument("listener '" + std::string(item) + "' is not NAME://host:port");
    Listener l;
    l.name = std::string(item.substr(0, scheme));
    for (char ch : l.name)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-')
        return Status::invalid_argument("listener '" + std::string(item) + "': a listener name is letters, digits, '_' and '-'");
    l.security_protocol = l.name;
    std::string_view hostport = item.substr(scheme + 3);
    const size_t colon = hostport.rfind(':');
    if (colon == std::string_view::npos)
      return Status::invalid_argument("listener '" + std::string(item) + "' has no port");
    std::string_view host = hostport.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    l.host = std::string(host);
    auto port = parse_int(hostport.substr(colon + 1));
    if (!port || *port < 0 || *port > 65535)
      return Status::invalid_argument("listener '" + std::string(item) + "' has a bad port");
    l.port = static_cast<uint16_t>(*port);
    for (const auto& other : out)
      if (other.name == l.name) return Status::invalid_argument("listener name '" + l.name + "' used twice");
    out.push_back(std::move(l));
  }
  if (out.empty()) return Status::invalid_argument("no listener given");
  return out;
}

std::vector<Listener> BrokerConfig::effective_advertised_listeners() const {
  std::vector<Listener> out = advertised_listeners.empty() ? listeners : advertised_listeners;
  for (auto& l : out) {
    if (l.host.empty() || l.host == "0.0.0.0" || l.host == "::") {
      char name[256] = {};
      l.host = ::gethostname(name, sizeof name - 1) == 0 && name[0] ? name : "localhost";
    }
  }
  return out;
}

std::vector<std::string> consumer_assignor_names(const BrokerConfig& config) {
  std::vector<std::string> out;
  for (const std::string& item : security::config_list(config.group_consumer_assignors)) {
    // Kafka's class names stand for the same assignors.
    if (item == "org.apache.kafka.coordinator.group.assignor.UniformAssignor" ||
        item == "org.apache.kafka.coordinator.group.api.assignor.UniformAssignor")
      out.push_back("uniform");
    else if (item == "org.apache.kafka.coordinator.group.assignor.RangeAssignor" ||
             item == "org.apache.kafka.coordinator.group.api.assignor.RangeAssignor")
      out.push_back("range");
    else
      out.push_back(item);
  }
  return out;
}

Status check_consumer_group_configs(const BrokerConfig& c) {
  auto within = [](int32_t v, int32_t lo, int32_t hi) { return v >= lo && v <= hi; };
  if (!within(c.group_consumer_heartbeat_interval_ms, c.group_consumer_min_heartbeat_interval_ms,
              c.group_consumer_max_heartbeat_interval_ms))
    return Status::invalid_argument("config group.consumer.heartbeat.interval.ms must be between "
                                    "group.consumer.min.heartbeat.interval.ms and group.consumer.max.heartbeat.interval.ms");
  if (!within(c.group_consumer_session_timeout_ms, c.group_consumer_min_session_timeout_ms,
              c.group_consumer_max_session_timeout_ms))
    return Status::invalid_argument("config group.consumer.session.timeout.ms must be between "
                                    "group.consumer.min.session.timeout.ms and group.consumer.max.session.timeout.ms");
  if (c.group_consumer_heartbeat_interval_ms >= c.group_consumer_session_timeout_ms)
    return Status::invalid_argument("config group.consumer.heartbeat.interval.ms must be less than "
                                    "group.consumer.session.timeout.ms");
  const std::vector<std::string> names = consumer_assignor_names(c);
  if (names.empty()) return Status::invalid_argument("config group.consumer.assignors must name at least one assignor");
  for (const std::string& n : names)
    if (n != "uniform" && n != "range")
      return Status::invalid_argument("config group.consumer.assignors: unknown assignor '" + n +
                                      "' (Rokka offers uniform and range)");
  return Status();
}

Result<BrokerConfig> load_config(std::string_view properties,
                                 const std::vector<std::pair<std::string, std::string>>& overrides) {
  // Later settings of a key win: file first, then overrides in order.
  std::map<std::string, std::string> given;
  BrokerConfig config;
  for (auto& [k, v] : parse_properties(properties)) given[k] = v;
  for (const auto& [k, v] : overrides) given[k] = v;

  for (const auto& e : table()) {
    auto it = given.find(std::string(e.name));
    const bool set = it != given.end();
    if (!set && e.default_value.empty()) continue;  // an optional override key
    const std::string value = set ? it->second : std::string(e.default_value);
    if (std::string err = e.apply(config, value); !err.empty())
      return Status::invalid_argument("config " + std::string(e.name) + "=" + value + ": " + err);
  }
  for (const auto& [k, v] : given) {
    if (find_entry(k) != nullptr) config.given_keys.push_back(k);
    else if (is_security_key(k)) config.security_settings.emplace(k, v);
    else config.unknown_keys.push_back(k);
  }
  if (auto s = resolve_security_protocols(config); !s.ok()) return s;

  if (config.group_min_session_timeout_ms > config.group_max_session_timeout_ms)
    return Status::invalid_argument("config group.min.session.timeout.ms exceeds group.max.session.timeout.ms");
  if (auto s = check_consumer_group_configs(config); !s.ok()) return s;
  if (config.num_partitions > config.max_partitions_per_topic)
    return Status::invalid_argument("config num.partitions exceeds rokka.max.partitions.per.topic");
  if (config.message_max_bytes > config.log_segment_bytes / 2)
    return Status::invalid_argument("config message.max.bytes must be at most half of log.segment.bytes");
  return config;
}

Result<CommandLine> parse_command_line(int argc, char** argv) {
  CommandLine cl;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      cl.help = true;
    } else if (arg == "--version") {
      cl.version = true;
    } else if (arg == "--override") {
      if (i + 1 >= argc) return Status::invalid_argument("--override needs key=value");
      std::string_view kv = argv[++i];
      const size_t eq = kv.find('=');
      if (eq == std::string_view::npos || eq == 0)
        return Status::invalid_argument("--override '" + std::string(kv) + "' is not key=value");
      cl.overrides.emplace_back(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
    } else if (!arg.empty() && arg.front() == '-') {
      return Status::invalid_argument("unknown option '" + std::string(arg) + "' (see --help)");
    } else if (!cl.config_file) {
      cl.config_file = std::string(arg);
    } else {
      return Status::invalid_argument("more than one config file given");
    }
  }
  return cl;
}

std::vector<std::string_view> config_keys() {
  std::vector<std::string_view> out;
  for (const auto& e : table()) out.push_back(e.name);
  return out;
}

std::string config_help() {
  std::ostringstream out;
  out << "Usage: rokka [CONFIG_FILE] [--override key=value]...\n"
         "\n"
         "Runs the Rokka broker. With no CONFIG_FILE the embedded defaults below apply\n"
         "(listening on 127.0.0.1:9092, data in ./rokka-data). Overrides win over the file.\n"
         "SIGTERM or SIGINT shut down gracefully. Dynamic broker configs set with AlterConfigs\n"
         "are stored by the broker and reported over these (live: max.connections,\n"
         "max.connections.per.ip; see README).\n"
         "\n"
         "Options:\n"
         "  --override key=value  set one configuration key (repeatable)\n"
         "  --help                this text\n"
         "  --version             print the version\n"
         "\n"
         "Configuration keys (default in brackets):\n";
  for (const auto& e : table()) {
    out << "  " << e.name << " [" << (e.default_value.empty() ? "unset" : e.default_value) << "]\n"
        << "      " << e.doc << "\n";
  }
  return out.str();
}

std::vector<ConfigValue> config_values(const BrokerConfig& config) {
  auto is_given = [&](std::string_view name) {
    return std::find(config.given_keys.begin(), config.given_keys.end(), name) != config.given_keys.end();
  };
  std::vector<ConfigValue> out;
  for (const auto& e : table()) {
    if (e.name == "log.retention.hours" || e.name == "log.retention.minutes") continue;  // shown as ms
    bool given = is_given(e.name);
    if (e.name == "log.retention.ms") given = given || is_given("log.retention.hours") || is_given("log.retention.minutes");
    out.push_back({std::string(e.name), e.show(config), given, e.doc});
  }
  return out;
}

std::string describe_config(const BrokerConfig& config) {
  std::string out;
  for (const auto& v : config_values(config)) out += v.name + "=" + v.value + "\n";
  return out;
}

std::string check_config_value(std::string_view name, std::string_view value) {
  const Entry* e = find_entry(name);
  if (e == nullptr) return {};
  BrokerConfig scratch;
  return e->apply(scratch, value);
}

}  // namespace rokka::broker
