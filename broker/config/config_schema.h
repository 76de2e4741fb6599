// The configuration schema: every key the broker knows, one row each. Broker keys (Rokka's
// server.properties keys and the Kafka broker keys it accepts), topic keys and group keys share
// the table.
// A row holds where the key may be set (scope), its type, default, doc, how Rokka reads a value
// (validator and BrokerConfig field), and its synonym. Derived from it: server.properties
// parsing, `rokka --help` and the effective-config log line (config.cc); which broker keys
// AlterConfigs may change and where, list and secret keys (meta/dynamic_config.cc); the topic
// keys and their defaults (meta/topic_registry.cc); the group keys (meta/group_configs.cc); what
// DescribeConfigs reports (handlers/configs.cc). Code that needs one key names its row (cfg::kMaxConnections), never
// the key's text: the name below is checked when it compiles.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/config/config.h"

namespace rokka::broker {

// Kafka's config value types, numbered as DescribeConfigs v3+ reports them. kUnknown: a Kafka
// key Rokka does not read, whose type the table does not record.
enum class ConfigType : int8_t {
  kUnknown = 0, kBoolean = 1, kString = 2, kInt = 3, kShort = 4, kLong = 5, kDouble = 6, kList = 7, kPassword = 9
};

namespace cfg {

// Where a key may be set. A broker key has exactly one of kStatic, kDynamicBroker and
// kDynamicCluster (Kafka's split); a topic key has kTopic alone, a group key kGroup alone.
enum Scope : uint8_t {
  kStatic = 1 << 0,          // server.properties only: AlterConfigs refuses it (Kafka needs a restart)
  kDynamicBroker = 1 << 1,   // AlterConfigs on a named broker only (listeners and security)
  kDynamicCluster = 1 << 2,  // AlterConfigs on a named broker or as the cluster-wide default
  kListenerOnly = 1 << 3,    // with kDynamicBroker: dynamic only as listener.name.<listener>.<key>
  kTopic = 1 << 4,           // a topic config (CreateTopics, AlterConfigs on a TOPIC resource)
  kGroup = 1 << 5,           // a consumer group's config (AlterConfigs on a GROUP resource, KIP-848)
};

// How Rokka reads a broker key's value into BrokerConfig (from server.properties, an override,
// or a dynamic value being checked). Values are trimmed first.
enum class Read : uint8_t {
  kNone,           // a Kafka key Rokka does not read: accepted, stored and described, no effect
  kInteger,        // an integer from min to max
  kBoolean,        // true or false
  kChoice,         // one of `choices`
  kText,           // any text but empty
  kOptionalText,   // any text
  kListeners,      // NAME://host:port[,...]; empty only for a key without a default
  kHttpListeners,  // host:port[,...] (rokka.http.listeners), or empty
  kRetention,      // an integer >= -1 (-1: unlimited) in units of unit_ms, into log_retention_ms
  kAuthorizer,     // empty, or one of `choices` (Kafka's authorizer classes)
  kOptionalChoice,  // empty, or one of `choices`
  kHostPort,        // host:port, or empty (unset)
  kReplicationGroups,  // rokka.replication.groups (parse_replication_groups)
  // A TLS or SASL key the listeners read from BrokerConfig::security_settings, where it is
  // kept as given, beside its listener.name.<l>. and <mechanism>. forms; checked when a
  // listener that uses it is built (broker/net/listener_security.cc), else the default.
  kSecurity,
};

// The BrokerConfig member a key is read into (none for kNone, kHttpListeners and kSecurity).
using Field = std::variant<std::monostate, int16_t BrokerConfig::*, int32_t BrokerConfig::*, int64_t BrokerConfig::*,
                           bool BrokerConfig::*, std::string BrokerConfig::*, std::vector<Listener> BrokerConfig::*,
                           std::optional<HostPort> BrokerConfig::*, std::vector<ReplicationGroup> BrokerConfig::*>;

struct Row {
  std::string_view name;
  uint8_t scope = 0;
  ConfigType type = ConfigType::kUnknown;
  // As text. A broker key without one is unset unless given; a topic key's is its default
  // unless `synonym` names the broker key whose value is.
  std::string_view default_value;
  std::string_view doc;
  Read read = Read::kNone;
  Field field = {};
  int64_t min = 0, max = 0;  // kInteger
  int64_t unit_ms = 1;       // kRetention
  std::string_view choices;  // kChoice, kAuthorizer, kOptionalChoice: the values allowed, separated by ','
  // A topic or group key: the broker key whose value is its default (Kafka's synonym). A broker
  // key: the key it is another unit of, shown as that one (log.retention.hours -> log.retention.ms).
  std::string_view synonym;
  bool applied = false;  // a topic key Rokka acts on (else accepted, stored and described only)

  // kTopic, kGroup, or 0 for a broker key.
  constexpr uint8_t kind() const { return scope & (kTopic | kGroup); }
  constexpr bool topic() const { return scope & kTopic; }
  constexpr bool dynamic() const { return scope & (kDynamicBroker | kDynamicCluster); }
  // A broker key Rokka reads from server.properties (the keys of `rokka --help`).
  constexpr bool rokka() const { return read != Read::kNone; }
};

namespace schema {

constexpr int64_t kI32 = INT32_MAX;
constexpr int64_t kI64 = INT64_MAX;

constexpr ConfigType type_of(int16_t BrokerConfig::*) { return ConfigType::kShort; }
constexpr ConfigType type_of(int32_t BrokerConfig::*) { return ConfigType::kInt; }
constexpr ConfigType type_of(int64_t BrokerConfig::*) { return ConfigType::kLong; }

template <typename T>
constexpr Row integer(std::string_view name, uint8_t scope, T BrokerConfig::*member, int64_t min, int64_t max,
                      std::string_view def, std::string_view doc) {
  return {.name = name, .scope = scope, .type = type_of(member), .default_value = def, .doc = doc,
          .read = Read::kInteger, .field = member, .min = min, .max = max};
}
constexpr Row boolean(std::string_view name, uint8_t scope, bool BrokerConfig::*member, std::string_view def,
                      std::string_view doc) {
  return {.name = name, .scope = scope, .type = ConfigType::kBoolean, .default_value = def, .doc = doc,
          .read = Read::kBoolean, .field = member};
}
constexpr Row choice(std::string_view name, uint8_t scope, std::string BrokerConfig::*member, std::string_view choices,
                     std::string_view def, std::string_view doc) {
  return {.name = name, .scope = scope, .type = ConfigType::kString, .default_value = def, .doc = doc,
          .read = Read::kChoice, .field = member, .choices = choices};
}
constexpr Row text(std::string_view name, uint8_t scope, std::string BrokerConfig::*member, std::string_view def,
                   std::string_view doc) {
  return {.name = name, .scope = scope, .type = ConfigType::kString, .default_value = def, .doc = doc,
          .read = Read::kText, .field = member};
}
constexpr Row optional_text(std::string_view name, uint8_t scope, std::string BrokerConfig::*member,
                            std::string_view doc) {
  return {.name = name, .scope = scope, .type = ConfigType::kString, .doc = doc, .read = Read::kOptionalText,
          .field = member};
}
constexpr Row listeners(std::string_view name, uint8_t scope, std::vector<Listener> BrokerConfig::*member,
                        std::string_view def, std::string_view doc) {
  return {.name = name, .scope = scope, .type = ConfigType::kList, .default_value = def, .doc = doc,
          .read = Read::kListeners, .field = member};
}
constexpr Row optional_choice(std::string_view name, uint8_t scope, std::string BrokerConfig::*member,
                              std::string_view choices, std::string_view doc) {
  return {.name = name, .scope = scope, .type = ConfigType::kString, .doc = doc, .read = Read::kOptionalChoice,
          .field = member, .choices = choices};
}
constexpr Row host_port(std::string_view name, std::optional<HostPort> BrokerConfig::*member, std::string_view doc) {
  return {.name = name, .scope = kStatic, .type = ConfigType::kString, .doc = doc, .read = Read::kHostPort,
          .field = member};
}
// A TLS or SASL key read per listener (Read::kSecurity): its default is the listeners'.
constexpr Row security(std::string_view name, ConfigType type, std::string_view def, std::string_view doc) {
  return {.name = name, .scope = kStatic, .type = type, .default_value = def, .doc = doc, .read = Read::kSecurity};
}
// Retention in hours, minutes or ms; the finest unit given wins (as in Kafka): the rows are
// applied in table order (hours, minutes, ms), so a later one overrides.
constexpr Row retention(std::string_view name, int64_t unit_ms, std::string_view def, std::string_view doc) {
  return {.name = name, .scope = kDynamicCluster, .type = ConfigType::kLong, .default_value = def, .doc = doc,
          .read = Read::kRetention, .field = &BrokerConfig::log_retention_ms, .unit_ms = unit_ms,
          .synonym = unit_ms == 1 ? "" : "log.retention.ms"};
}
// A Kafka broker key Rokka does not read.
constexpr Row kafka(std::string_view name, uint8_t scope, ConfigType type = ConfigType::kUnknown) {
  return {.name = name, .scope = scope, .type = type};
}
constexpr Row topic(std::string_view name, ConfigType type, bool applied, std::string_view def, std::string_view doc) {
  return {.name = name, .scope = kTopic, .type = type, .default_value = def, .doc = doc, .applied = applied};
}
// A topic key whose default is the broker key `synonym`'s value.
constexpr Row topic_from(std::string_view name, ConfigType type, bool applied, std::string_view synonym,
                         std::string_view doc) {
  return {.name = name, .scope = kTopic, .type = type, .doc = doc, .synonym = synonym, .applied = applied};
}
// A group key: it overrides the broker key `synonym` for one consumer group.
constexpr Row group(std::string_view name, std::string_view synonym, std::string_view doc) {
  return {.name = name, .scope = kGroup, .type = ConfigType::kInt, .doc = doc, .synonym = synonym, .applied = true};
}

constexpr bool kApplied = true;
constexpr bool kAcceptedOnly = false;
constexpr uint8_t kListenerSecret = kDynamicBroker | kListenerOnly;

inline constexpr Row kRows[] = {
    // ---- Rokka's broker keys (server.properties), in `rokka --help` order.
    // Server
    integer("broker.id", kStatic, &BrokerConfig::broker_id, 0, kI32, "0", "This broker's id, reported in Metadata."),
    listeners("listeners", kDynamicBroker, &BrokerConfig::listeners, "PLAINTEXT://127.0.0.1:9092",
              "Comma-separated NAME://host:port to listen on; an empty host or 0.0.0.0 means every interface."),
    listeners("advertised.listeners", kDynamicBroker, &BrokerConfig::advertised_listeners, "",
              "Addresses given to clients in Metadata; empty = the listeners (a wildcard host becomes the "
              "machine's host name)."),
    text("log.dirs", kStatic, &BrokerConfig::log_dirs, "./rokka-data",
         "Directory holding the CommitLog, the index files and broker state (one directory)."),
    integer("num.network.threads", kDynamicCluster, &BrokerConfig::num_network_threads, 1, 64, "2",
            "Threads serving connections (each runs its own event loop)."),
    integer("socket.request.max.bytes", kStatic, &BrokerConfig::socket_request_max_bytes, 1024, kI32, "104857600",
            "Largest request frame accepted; a larger size prefix closes the connection before allocating."),
    integer("connections.max.idle.ms", kStatic, &BrokerConfig::connections_max_idle_ms, 1000, kI64, "600000",
            "Close connections idle for this long."),
    integer("max.connections", kDynamicCluster, &BrokerConfig::max_connections, 1, kI32, "16000",
            "Most client connections at once; further connections are closed on accept."),
    integer("max.connections.per.ip", kDynamicCluster, &BrokerConfig::max_connections_per_ip, 1, kI32, "2147483647",
            "Most client connections at once from one address; further ones are closed on accept."),
    integer("queued.max.request.bytes", kStatic, &BrokerConfig::queued_max_request_bytes, -1, kI64, "536870912",
            "Request bytes all connections may hold at once (received, not yet handled); a connection "
            "stops reading while they are spent (-1: no limit)."),
    integer("rokka.request.read.timeout.ms", kStatic, &BrokerConfig::request_read_timeout_ms, 100, kI64, "30000",
            "A request must arrive whole within this long of its size prefix, else the connection closes."),
    integer("quota.window.num", kStatic, &BrokerConfig::quota_window_num, 1, 1000, "11",
            "Samples a client quota's rate is measured over (producer_byte_rate, consumer_byte_rate, "
            "request_percentage, connection_creation_rate; set with AlterClientQuotas)."),
    integer("quota.window.size.seconds", kStatic, &BrokerConfig::quota_window_size_seconds, 1, 3600, "1",
            "Length of one client quota sample, in seconds."),
    // Topics
    integer("num.partitions", kStatic, &BrokerConfig::num_partitions, 1, 1000000, "1",
            "Partitions of an automatically created topic."),
    integer("rokka.max.partitions.per.topic", kStatic, &BrokerConfig::max_partitions_per_topic, 1, 1000000, "100000",
            "Most partitions one topic may have: CreateTopics and CreatePartitions above it answer "
            "INVALID_PARTITIONS. The default is librdkafka's limit (it refuses metadata of a topic with more "
            "than 100000 partitions, so its clients could not use one); spread more partitions over more "
            "topics, or raise it for clients without that limit (at most 1000000)."),
    integer("default.replication.factor", kStatic, &BrokerConfig::default_replication_factor, 1, 32767, "1",
            "Replication factor of a topic created with -1 (CreateTopics without one). A single broker meets "
            "1 only; a cluster meets 1 (the brokers' root stores) or the member count of a replication group "
            "(rokka.replication.groups: the topic lives in that group's store). Any other factor answers "
            "INVALID_REPLICATION_FACTOR. Automatically created topics have one copy."),
    boolean("auto.create.topics.enable", kStatic, &BrokerConfig::auto_create_topics_enable, "true",
            "Create a topic when a client asks for metadata or produces to one that does not exist."),
    boolean("delete.topic.enable", kStatic, &BrokerConfig::delete_topic_enable, "true",
            "Allow DeleteTopics; when false it answers TOPIC_DELETION_DISABLED."),
    integer("message.max.bytes", kDynamicCluster, &BrokerConfig::message_max_bytes, 0, kI32, "1048588",
            "Largest record batch accepted (topic default for max.message.bytes)."),
    integer("fetch.max.bytes", kStatic, &BrokerConfig::fetch_max_bytes, 1024, kI32, "4194304",
            "Most record bytes in one Fetch response; a request asking for less gets less, and the first batch "
            "is always returned whole. Kafka's default is 57671680: librdkafka reads each response into one "
            "buffer, and above glibc's 32 MiB mmap threshold every response costs a fresh mapping and its page "
            "faults (a backlog read ran 3x slower with 50 MiB responses than with 4 MiB ones)."),
    choice("log.message.timestamp.type", kDynamicCluster, &BrokerConfig::log_message_timestamp_type,
           "CreateTime,LogAppendTime", "CreateTime", "Topic default for message.timestamp.type."),
    integer("log.message.timestamp.before.max.ms", kDynamicCluster, &BrokerConfig::log_message_timestamp_before_max_ms,
            0, kI64, "9223372036854775807",
            "CreateTime topics: a produced record whose timestamp is more than this far behind the broker's "
            "clock is refused (INVALID_TIMESTAMP). Topic default for message.timestamp.before.max.ms."),
    integer("log.message.timestamp.after.max.ms", kDynamicCluster, &BrokerConfig::log_message_timestamp_after_max_ms,
            0, kI64, "9223372036854775807",
            "CreateTime topics: a produced record whose timestamp is more than this far ahead of the broker's "
            "clock is refused (INVALID_TIMESTAMP). Topic default for message.timestamp.after.max.ms."),
    // Storage
    integer("log.segment.bytes", kDynamicCluster, &BrokerConfig::log_segment_bytes, 1 << 20, int64_t{1} << 32,
            "1073741824", "Size of one CommitLog file (every partition shares the log)."),
    choice("store.flush.mode", kStatic, &BrokerConfig::store_flush_mode, "sync,async", "async",
           "sync: an append is fsync'd before it is acknowledged (survives power loss); async: flushed every "
           "log.flush.interval.ms (survives a process crash)."),
    boolean("log.preallocate", kDynamicCluster, &BrokerConfig::log_preallocate, "true",
            "Give each new CommitLog file all its blocks when it is created (fallocate; they read as zeros), so "
            "writing it allocates nothing. Kafka's default is false; with one log file written at a time the "
            "cost is one fallocate per file and its disk space up front (e2e p99 at 58,933 msgs/s, median of "
            "15 alternating rounds: 25 ms sparse, 20 ms preallocated). false: the file grows sparsely, taking "
            "disk space only as it is written."),
    integer("log.flush.interval.ms", kDynamicCluster, &BrokerConfig::log_flush_interval_ms, 1, kI64, "500",
            "Async mode: flush at least this often."),
    integer("log.flush.interval.messages", kDynamicCluster, &BrokerConfig::log_flush_interval_messages, 1, kI64,
            "9223372036854775807", "Async mode: also flush after this many appended batches."),
    retention("log.retention.hours", 3600 * 1000, "168", "Delete CommitLog files older than this (-1: never)."),
    retention("log.retention.minutes", 60 * 1000, "", "As log.retention.hours, in minutes; overrides it."),
    retention("log.retention.ms", 1, "", "As log.retention.hours, in ms; overrides both."),
    integer("log.retention.bytes", kDynamicCluster, &BrokerConfig::log_retention_bytes, -1, kI64, "-1",
            "Delete the oldest CommitLog files while the log is larger than this (-1: no limit)."),
    integer("log.retention.check.interval.ms", kStatic, &BrokerConfig::log_retention_check_interval_ms, 1, kI64,
            "300000", "How often retention runs."),
    boolean("log.cleaner.enable", kStatic, &BrokerConfig::log_cleaner_enable, "true",
            "Run the log cleaner: compacts topics whose cleanup.policy includes compact."),
    integer("log.cleaner.backoff.ms", kDynamicCluster, &BrokerConfig::log_cleaner_backoff_ms, 1, kI64, "15000",
            "How long the log cleaner sleeps between passes over the compacted partitions."),
    integer("store.checkpoint.interval.bytes", kStatic, &BrokerConfig::store_checkpoint_interval_bytes, 1, kI64,
            "1073741824", "Write an index checkpoint after this much log; crash recovery re-reads at most "
            "about this much (plus up to 64 MiB before the checkpoint, re-verified)."),
    integer("store.checkpoint.interval.ms", kStatic, &BrokerConfig::store_checkpoint_interval_ms, 1, kI64, "10000",
            "Write an index checkpoint at least this often while data arrives."),
    integer("store.recovery.verify.bytes", kStatic, &BrokerConfig::store_recovery_verify_bytes, 0, kI64, "67108864",
            "Every start re-verifies (CRCs) up to this much log before the checkpoint, within its segment."),
    integer("store.pagecache.retain.bytes", kStatic, &BrokerConfig::store_pagecache_retain_bytes, -1, kI64,
            "1073741824",
            "The newest this-many bytes of the CommitLog stay in the OS page cache; older ones, once "
            "synced, are dropped from it (posix_fadvise DONTNEED), so the log's cache footprint stays flat "
            "and new writes reuse warm pages (on a VM that returns free memory to its host, a write into "
            "a fresh page-cache page cost 10x one into a recycled page). Consumers further behind read "
            "from disk. -1: leave the page cache to the kernel."),
    integer("store.tail.cache.bytes", kStatic, &BrokerConfig::store_tail_cache_bytes, 0, kI64, "67108864",
            "The newest this-many CommitLog bytes stay in the broker's memory, in the buffers they were "
            "written from (4 MiB each, at least the one being filled): fetches and replication reads "
            "there never touch the log files."),
    boolean("store.direct.io", kStatic, &BrokerConfig::store_direct_io, "false",
            "Write the CommitLog with O_DIRECT: each group commit of 256 KiB or more goes to the disk in "
            "whole 4 KiB blocks instead of being copied into the page cache (smaller ones, as at low "
            "rates, still are). Readers behind store.tail.cache.bytes read the files (from disk). Falls "
            "back to buffered writes, with a warning, where the file system cannot take O_DIRECT or "
            "log.segment.bytes is not a multiple of 4096."),
    // Groups and offsets
    integer("group.min.session.timeout.ms", kStatic, &BrokerConfig::group_min_session_timeout_ms, 0, kI32, "6000",
            "Smallest session timeout a consumer may ask for."),
    integer("group.max.session.timeout.ms", kStatic, &BrokerConfig::group_max_session_timeout_ms, 0, kI32, "1800000",
            "Largest session timeout a consumer may ask for."),
    integer("group.initial.rebalance.delay.ms", kStatic, &BrokerConfig::group_initial_rebalance_delay_ms, 0, kI32,
            "3000", "How long a new group waits for more members before its first rebalance."),
    integer("group.max.size", kStatic, &BrokerConfig::group_max_size, 1, kI32, "2147483647",
            "Most members in one group."),
    integer("group.consumer.heartbeat.interval.ms", kStatic, &BrokerConfig::group_consumer_heartbeat_interval_ms, 1,
            kI32, "5000", "How often a member of a consumer group (KIP-848, group.protocol=consumer) heartbeats."),
    integer("group.consumer.min.heartbeat.interval.ms", kStatic,
            &BrokerConfig::group_consumer_min_heartbeat_interval_ms, 1, kI32, "5000",
            "Smallest group.consumer.heartbeat.interval.ms allowed."),
    integer("group.consumer.max.heartbeat.interval.ms", kStatic,
            &BrokerConfig::group_consumer_max_heartbeat_interval_ms, 1, kI32, "15000",
            "Largest group.consumer.heartbeat.interval.ms allowed."),
    integer("group.consumer.session.timeout.ms", kStatic, &BrokerConfig::group_consumer_session_timeout_ms, 1, kI32,
            "45000", "A consumer group member that sends no heartbeat for this long is removed and its partitions move."),
    integer("group.consumer.min.session.timeout.ms", kStatic, &BrokerConfig::group_consumer_min_session_timeout_ms, 1,
            kI32, "45000", "Smallest group.consumer.session.timeout.ms allowed."),
    integer("group.consumer.max.session.timeout.ms", kStatic, &BrokerConfig::group_consumer_max_session_timeout_ms, 1,
            kI32, "60000", "Largest group.consumer.session.timeout.ms allowed."),
    integer("group.consumer.max.size", kStatic, &BrokerConfig::group_consumer_max_size, 1, kI32, "2147483647",
            "Most members in one consumer group (else GROUP_MAX_SIZE_REACHED)."),
    text("group.consumer.assignors", kStatic, &BrokerConfig::group_consumer_assignors, "uniform,range",
         "The server-side assignors a consumer group may ask for (group.remote.assignor), by Kafka's short names "
         "uniform and range or their class names; the first is the default."),
    choice("group.consumer.migration.policy", kStatic, &BrokerConfig::group_consumer_migration_policy,
           "disabled,upgrade,downgrade,bidirectional", "bidirectional",
           "Online migration between the group protocols: upgrade turns a classic group of consumers into a "
           "consumer group when a member with group.protocol=consumer joins (the classic members stay, through "
           "JoinGroup/SyncGroup/Heartbeat); downgrade turns a consumer group whose last such member left back "
           "into a classic group; bidirectional allows both, disabled neither."),
    integer("offsets.retention.minutes", kStatic, &BrokerConfig::offsets_retention_minutes, 1, kI32, "10080",
            "Committed offsets of an empty group are deleted after this long."),
    integer("offsets.retention.check.interval.ms", kStatic, &BrokerConfig::offsets_retention_check_interval_ms, 1,
            kI64, "600000", "How often expired offsets are removed."),
    integer("offset.metadata.max.bytes", kStatic, &BrokerConfig::offset_metadata_max_bytes, 0, kI32, "4096",
            "Longest metadata string stored with a committed offset."),
    // Transactions
    integer("transaction.max.timeout.ms", kStatic, &BrokerConfig::transaction_max_timeout_ms, 1, kI32, "900000",
            "Largest transaction timeout a producer may ask for (else INVALID_TRANSACTION_TIMEOUT)."),
    integer("transactional.id.expiration.ms", kStatic, &BrokerConfig::transactional_id_expiration_ms, 1, kI64,
            "604800000", "A transactional id with no transaction for this long is forgotten."),
    // Security
    {.name = "authorizer.class.name", .scope = kStatic, .type = ConfigType::kString,
     .doc = "Empty: no authorizer (everything allowed; the ACL APIs answer SECURITY_DISABLED). Kafka's "
            "org.apache.kafka.metadata.authorizer.StandardAuthorizer or "
            "kafka.security.authorizer.AclAuthorizer: enforce ACLs (CreateAcls/DescribeAcls/DeleteAcls) "
            "with Rokka's built-in authorizer. Plaintext clients are User:ANONYMOUS.",
     .read = Read::kAuthorizer, .field = &BrokerConfig::authorizer_class_name,
     .choices = "org.apache.kafka.metadata.authorizer.StandardAuthorizer,kafka.security.authorizer.AclAuthorizer,"
                "kafka.security.auth.SimpleAclAuthorizer"},
    boolean("allow.everyone.if.no.acl.found", kStatic, &BrokerConfig::allow_everyone_if_no_acl_found, "false",
            "With an authorizer: allow a request on a resource that no ACL covers."),
    optional_text("super.users", kStatic, &BrokerConfig::super_users,
                  "With an authorizer: principals allowed everything, separated by ';' (User:admin;User:ops)."),
    security("ssl.principal.mapping.rules", ConfigType::kString, "DEFAULT",
             "SSL listeners: how a client certificate's subject becomes the principal's name, Kafka's "
             "RULE:pattern/replacement/[LU] rules separated by commas, DEFAULT the whole subject "
             "(docs/security.md). Also as listener.name.<name>.ssl.principal.mapping.rules."),
    security("sasl.server.max.receive.size", ConfigType::kInt, "524288",
             "SASL listeners: the largest request frame before the client has authenticated; a larger size "
             "prefix closes the connection before allocating. Also as listener.name.<name>.<key>."),
    security("connections.max.reauth.ms", ConfigType::kLong, "0",
             "SASL listeners: a session's lifetime (KIP-368): a client must re-authenticate within it or its "
             "connection is closed (0: sessions do not expire). Also as <mechanism>.connections.max.reauth.ms "
             "and with a listener.name.<name>. prefix."),
    text("listener.security.protocol.map", kDynamicBroker, &BrokerConfig::listener_security_protocol_map,
         "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
         "Each listener name's security protocol, NAME:PROTOCOL pairs. The TLS and SASL keys (ssl.*, "
         "sasl.enabled.mechanisms, <mechanism>.sasl.jaas.config, connections.max.reauth.ms, each also as "
         "listener.name.<name>.<key>) are Kafka's: see docs/security.md."),
    // Cluster mode
    optional_text("rokka.cluster.etcd.endpoints", kStatic, &BrokerConfig::cluster_etcd_endpoints,
                  "Cluster mode: the etcd members' client URLs, http://host:port separated by commas. Brokers "
                  "that name the same etcd and rokka.cluster.root form one cluster: metadata, topics and their "
                  "placement live in etcd, each partition on one broker. Empty: a single broker (docs/cluster.md)."),
    text("rokka.cluster.root", kStatic, &BrokerConfig::cluster_root, "/rokka",
         "Cluster mode: the etcd key prefix of this cluster (several clusters may share one etcd)."),
    integer("rokka.cluster.session.timeout.ms", kStatic, &BrokerConfig::cluster_session_timeout_ms, 2000, 3600000,
            "6000",
            "Cluster mode: the broker's etcd lease. A broker that cannot renew it stops leading a quarter of it "
            "before it ends; a dead broker leaves the cluster's metadata when it ends (whole seconds)."),
    optional_text("broker.rack", kStatic, &BrokerConfig::broker_rack, "This broker's rack, reported in Metadata."),
    optional_text("inter.broker.listener.name", kStatic, &BrokerConfig::inter_broker_listener_name,
                  "Cluster mode: the listener, by name, this broker sends its own requests to the others on "
                  "(transaction markers), secured as that listener is: TLS against its truststore, SASL with "
                  "sasl.mechanism.inter.broker.protocol and the username and password of its "
                  "<mechanism>.sasl.jaas.config. Empty: the listener named as security.inter.broker.protocol, "
                  "else the first of that security protocol."),
    choice("security.inter.broker.protocol", kStatic, &BrokerConfig::security_inter_broker_protocol,
           "PLAINTEXT,SSL,SASL_PLAINTEXT,SASL_SSL", "PLAINTEXT",
           "Cluster mode, when inter.broker.listener.name is empty: the security protocol of the listener the "
           "brokers reach each other on."),
    // Replication (issue 24): these keys are read and checked at start-up; a doc that says "Not applied
    // yet" names the stage of the plan that applies its key.
    integer("min.insync.replicas", kDynamicCluster, &BrokerConfig::min_insync_replicas, 1, 32767, "1",
            "Topic default for min.insync.replicas: with acks=all, the fewest in-sync copies a produce to a "
            "replicated topic needs (else NOT_ENOUGH_REPLICAS); RF-1 topics have one copy and ignore it."),
    integer("replica.lag.time.max.ms", kStatic, &BrokerConfig::replica_lag_time_max_ms, 1, kI64, "30000",
            "A replication group's follower that has not caught up with its leader for this long leaves the "
            "in-sync set (the leader writes the smaller set to etcd); it joins again once it has caught up "
            "within half this time."),
    boolean("unclean.leader.election.enable", kDynamicCluster, &BrokerConfig::unclean_leader_election_enable,
            "false",
            "Whether a replication group may elect a leader outside its in-sync set when no member of it is "
            "alive, losing the records only the in-sync set held (set per group: the topic key is accepted "
            "only). The controller's elections use the value it started with."),
    optional_choice("replica.selector.class", kStatic, &BrokerConfig::replica_selector_class,
                    "org.apache.kafka.common.replica.RackAwareReplicaSelector",
                    "Empty, or org.apache.kafka.common.replica.RackAwareReplicaSelector: consumers with a "
                    "client.rack read from an in-sync copy in their rack (broker.rack; KIP-392): a replication "
                    "group's leader names an in-sync follower whose broker.rack is the consumer's, which then "
                    "serves the reads."),
    {.name = "rokka.replication.groups", .scope = kStatic, .type = ConfigType::kString,
     .doc = "Cluster mode: the replication groups, name=broker.id,broker.id,... separated by ';' (g1=1,2,3;"
            "g2=4,5,6); names are [a-z0-9_-]{1,32}, each member once per group. A group's members hold a copy "
            "of each of its partitions. Needs rokka.cluster.etcd.endpoints; a member needs "
            "rokka.replication.listener. Empty: none. A member keeps each group's copy in log.dirs/groups/<name>/ "
            "(a broker may be a member of one group for now); topics are not placed on groups yet (issue 24, "
            "stage S6).",
     .read = Read::kReplicationGroups, .field = &BrokerConfig::replication_groups},
    host_port("rokka.replication.listener", &BrokerConfig::replication_listener,
              "Cluster mode: host:port where this broker's replication groups copy their logs to their "
              "followers while it leads one (an IP address, empty for every interface, and a port other than 0: "
              "the registration publishes it); needed on a member of any group."),
    host_port("rokka.replication.advertised.listener", &BrokerConfig::replication_advertised_listener,
              "host:port the other members reach rokka.replication.listener on. Empty: its port on the host of "
              "the first advertised listener."),
    integer("rokka.replication.heartbeat.ms", kStatic, &BrokerConfig::replication_heartbeat_ms, 10, 60000, "100",
            "A group's leader sends each follower a heartbeat (carrying the confirmed position) at least this "
            "often."),
    integer("rokka.replication.idle.timeout.ms", kStatic, &BrokerConfig::replication_idle_timeout_ms, 100, 3600000,
            "5000",
            "A replication stream silent for this long is closed and reconnected; more than "
            "rokka.replication.heartbeat.ms."),
    // Operations
    choice("rokka.log.level", kStatic, &BrokerConfig::log_level, "trace,debug,info,warn,error", "info",
           "Log level; debug logs one line per request."),
    {.name = "rokka.http.listeners", .scope = kStatic, .type = ConfigType::kString, .default_value = "127.0.0.1:9644",
     .doc = "Where the HTTP endpoints listen, host:port[,host:port]: /metrics (Prometheus), /healthz and "
            "/readyz. Empty: no HTTP endpoints.",
     .read = Read::kHttpListeners},
    integer("rokka.metrics.max.topic.series", kStatic, &BrokerConfig::metrics_max_topic_series, 0, kI64, "1000",
            "At most this many topics get per-topic series in /metrics (the first ones seen); the others count "
            "in the broker-wide series only."),

    // ---- Kafka's broker keys Rokka does not read: AlterConfigs stores the dynamic ones, refuses the static ones.
    // Dynamic for the whole cluster (or one broker): log defaults, the log cleaner, thread pools, connection
    // quotas, metric reporters.
    kafka("log.roll.ms", kDynamicCluster), kafka("log.roll.hours", kDynamicCluster),
    kafka("log.roll.jitter.ms", kDynamicCluster), kafka("log.roll.jitter.hours", kDynamicCluster),
    kafka("log.index.size.max.bytes", kDynamicCluster), kafka("log.index.interval.bytes", kDynamicCluster),
    kafka("log.cleaner.delete.retention.ms", kDynamicCluster), kafka("log.cleaner.min.compaction.lag.ms", kDynamicCluster),
    kafka("log.cleaner.max.compaction.lag.ms", kDynamicCluster), kafka("log.segment.delete.delay.ms", kDynamicCluster),
    kafka("log.cleaner.min.cleanable.ratio", kDynamicCluster),
    kafka("log.cleanup.policy", kDynamicCluster, ConfigType::kList),
    kafka("compression.type", kDynamicCluster), kafka("log.message.timestamp.difference.max.ms", kDynamicCluster),
    kafka("log.message.downconversion.enable", kDynamicCluster), kafka("log.cleaner.threads", kDynamicCluster),
    kafka("log.cleaner.dedupe.buffer.size", kDynamicCluster), kafka("log.cleaner.io.buffer.load.factor", kDynamicCluster),
    kafka("log.cleaner.io.buffer.size", kDynamicCluster), kafka("log.cleaner.io.max.bytes.per.second", kDynamicCluster),
    kafka("num.io.threads", kDynamicCluster), kafka("num.replica.fetchers", kDynamicCluster),
    kafka("num.recovery.threads.per.data.dir", kDynamicCluster), kafka("background.threads", kDynamicCluster),
    kafka("metric.reporters", kDynamicCluster, ConfigType::kList),
    kafka("max.connections.per.ip.overrides", kDynamicCluster, ConfigType::kList),
    kafka("max.connection.creation.rate", kDynamicCluster), kafka("follower.replication.throttled.rate", kDynamicCluster),
    kafka("leader.replication.throttled.rate", kDynamicCluster),
    kafka("replica.alter.log.dirs.io.max.bytes.per.second", kDynamicCluster),
    // Dynamic for a named broker only (listeners and security); the keystores and truststores only
    // with a listener prefix.
    kafka("principal.builder.class", kDynamicBroker), kafka("ssl.protocol", kDynamicBroker),
    kafka("ssl.provider", kDynamicBroker), kafka("ssl.cipher.suites", kDynamicBroker, ConfigType::kList),
    kafka("ssl.enabled.protocols", kDynamicBroker, ConfigType::kList), kafka("ssl.keystore.type", kListenerSecret),
    kafka("ssl.keystore.location", kListenerSecret), kafka("ssl.keystore.password", kListenerSecret, ConfigType::kPassword),
    kafka("ssl.key.password", kListenerSecret, ConfigType::kPassword), kafka("ssl.truststore.type", kListenerSecret),
    kafka("ssl.truststore.location", kListenerSecret),
    kafka("ssl.truststore.password", kListenerSecret, ConfigType::kPassword),
    kafka("ssl.keymanager.algorithm", kDynamicBroker), kafka("ssl.trustmanager.algorithm", kDynamicBroker),
    kafka("ssl.endpoint.identification.algorithm", kDynamicBroker),
    kafka("ssl.secure.random.implementation", kDynamicBroker), kafka("ssl.client.auth", kDynamicBroker),
    kafka("ssl.keystore.certificate.chain", kListenerSecret, ConfigType::kPassword),
    kafka("ssl.keystore.key", kListenerSecret, ConfigType::kPassword),
    kafka("ssl.truststore.certificates", kListenerSecret, ConfigType::kPassword),
    kafka("sasl.mechanism.inter.broker.protocol", kDynamicBroker),
    kafka("sasl.jaas.config", kDynamicBroker, ConfigType::kPassword),
    kafka("sasl.enabled.mechanisms", kDynamicBroker, ConfigType::kList), kafka("sasl.kerberos.service.name", kDynamicBroker),
    kafka("sasl.kerberos.kinit.cmd", kDynamicBroker), kafka("sasl.kerberos.ticket.renew.window.factor", kDynamicBroker),
    kafka("sasl.kerberos.ticket.renew.jitter", kDynamicBroker),
    kafka("sasl.kerberos.min.time.before.relogin", kDynamicBroker),
    kafka("sasl.kerberos.principal.to.local.rules", kDynamicBroker),
    kafka("sasl.login.refresh.window.factor", kDynamicBroker), kafka("sasl.login.refresh.window.jitter", kDynamicBroker),
    kafka("sasl.login.refresh.min.period.seconds", kDynamicBroker),
    kafka("sasl.login.refresh.buffer.seconds", kDynamicBroker),
    // Static (a change needs a restart).
    kafka("zookeeper.connect", kStatic), kafka("node.id", kStatic), kafka("process.roles", kStatic),
    kafka("controller.quorum.voters", kStatic), kafka("controller.listener.names", kStatic), kafka("log.dir", kStatic),
    kafka("inter.broker.protocol.version", kStatic), kafka("log.message.format.version", kStatic),
    kafka("reserved.broker.max.id", kStatic), kafka("broker.id.generation.enable", kStatic),
    kafka("offsets.topic.replication.factor", kStatic), kafka("offsets.topic.num.partitions", kStatic),
    kafka("transaction.state.log.replication.factor", kStatic), kafka("transaction.state.log.num.partitions", kStatic),
    kafka("transaction.state.log.min.isr", kStatic), kafka("num.replica.alter.log.dirs.threads", kStatic),
    kafka("request.timeout.ms", kStatic), kafka("queued.max.requests", kStatic), kafka("socket.send.buffer.bytes", kStatic),
    kafka("socket.receive.buffer.bytes", kStatic),

    // ---- Kafka's topic keys. Applied ones change behaviour; accepted ones are stored and described so
    // tools that set them keep working, but have no effect here. The doc says which.
    topic("cleanup.policy", ConfigType::kList, kApplied, "delete", "delete, compact or both (README, Log compaction)"),
    topic("compression.type", ConfigType::kString, kAcceptedOnly, "producer",
          "batches are stored as produced (never recompressed)"),
    topic("delete.retention.ms", ConfigType::kLong, kApplied, "86400000", "how long the cleaner keeps tombstones"),
    topic("file.delete.delay.ms", ConfigType::kLong, kAcceptedOnly, "60000", "segment files are shared by all topics"),
    topic_from("flush.messages", ConfigType::kLong, kAcceptedOnly, "log.flush.interval.messages",
               "flushing is broker-wide (store.flush.mode)"),
    topic_from("flush.ms", ConfigType::kLong, kAcceptedOnly, "log.flush.interval.ms",
               "flushing is broker-wide (store.flush.mode)"),
    topic("follower.replication.throttled.replicas", ConfigType::kList, kAcceptedOnly, "", "single broker"),
    topic("index.interval.bytes", ConfigType::kInt, kAcceptedOnly, "4096", "every batch is indexed"),
    topic("leader.replication.throttled.replicas", ConfigType::kList, kAcceptedOnly, "", "single broker"),
    topic("max.compaction.lag.ms", ConfigType::kLong, kApplied, "9223372036854775807",
          "a record is cleaned at most this late"),
    topic_from("max.message.bytes", ConfigType::kInt, kApplied, "message.max.bytes", "largest record batch accepted"),
    topic("message.downconversion.enable", ConfigType::kBoolean, kAcceptedOnly, "true", "no down-conversion"),
    topic("message.format.version", ConfigType::kString, kAcceptedOnly, "3.0-IV1", "always record batch v2"),
    topic_from("message.timestamp.after.max.ms", ConfigType::kLong, kApplied, "log.message.timestamp.after.max.ms",
               "CreateTime: most a record may be ahead of the broker's clock"),
    topic_from("message.timestamp.before.max.ms", ConfigType::kLong, kApplied, "log.message.timestamp.before.max.ms",
               "CreateTime: most a record may be behind the broker's clock"),
    topic("message.timestamp.difference.max.ms", ConfigType::kLong, kApplied, "9223372036854775807",
          "deprecated: before/after.max.ms while they are at their default"),
    topic_from("message.timestamp.type", ConfigType::kString, kApplied, "log.message.timestamp.type",
               "CreateTime or LogAppendTime"),
    topic("min.cleanable.dirty.ratio", ConfigType::kDouble, kApplied, "0.5", "dirty share that makes a partition due"),
    topic("min.compaction.lag.ms", ConfigType::kLong, kApplied, "0", "records younger than this stay uncleaned"),
    topic_from("min.insync.replicas", ConfigType::kInt, kApplied, "min.insync.replicas",
               "1 to 32767: acks=all to a replicated topic needs this many in-sync copies (RF-1 topics ignore it)"),
    topic_from("preallocate", ConfigType::kBoolean, kAcceptedOnly, "log.preallocate",
               "the shared CommitLog follows log.preallocate"),
    // Not log.retention.bytes: Rokka's bounds the whole CommitLog, this one each partition.
    topic("retention.bytes", ConfigType::kLong, kApplied, "-1", "per-partition size limit"),
    topic_from("retention.ms", ConfigType::kLong, kApplied, "log.retention.ms", "per-partition age limit"),
    topic_from("segment.bytes", ConfigType::kInt, kAcceptedOnly, "log.segment.bytes",
               "segments are shared (log.segment.bytes)"),
    topic("segment.index.bytes", ConfigType::kInt, kAcceptedOnly, "10485760", "indexes are shared"),
    topic("segment.jitter.ms", ConfigType::kLong, kAcceptedOnly, "0", "segments are shared"),
    topic("segment.ms", ConfigType::kLong, kAcceptedOnly, "604800000", "segments are shared"),
    topic_from("unclean.leader.election.enable", ConfigType::kBoolean, kAcceptedOnly, "unclean.leader.election.enable",
               "group level: the broker key applies to every topic of a replication group"),

    // ---- Kafka's group keys (GROUP resources), each a consumer group's own value of a broker key.
    group("consumer.session.timeout.ms", "group.consumer.session.timeout.ms",
          "This consumer group's session timeout (overrides group.consumer.session.timeout.ms)."),
    group("consumer.heartbeat.interval.ms", "group.consumer.heartbeat.interval.ms",
          "This consumer group's heartbeat interval (overrides group.consumer.heartbeat.interval.ms)."),
};

consteval const Row& find(std::string_view name, uint8_t kind) {
  for (const Row& r : kRows)
    if (r.name == name && r.kind() == kind) return r;
  throw "no such key in cfg::schema::kRows";
}

}  // namespace schema

// Every row: broker keys (Rokka's first, in `rokka --help` order), then topic keys, then group keys.
inline constexpr std::span<const Row> kSchema = schema::kRows;

// A broker key's row, or nullptr. A listener.name.<l>.<key> name is not stripped here.
const Row* find_broker_key(std::string_view name);
// A topic key's row, or nullptr.
const Row* find_topic_key(std::string_view name);
// A group key's row, or nullptr.
const Row* find_group_key(std::string_view name);
// The topic keys, in table order (by name); the group keys.
std::span<const Row> topic_keys();
std::span<const Row> group_keys();
// The broker key a topic or group key takes its default from (its synonym).
const Row& synonym_of(const Row& key);

// A broker row Rokka reads: reads `value` into `config` as the row's Read says (an error
// message, or empty when the value is good); its value in `config` as text; an integer row's value.
std::string apply(const Row& row, BrokerConfig& config, std::string_view value);
std::string value(const Row& row, const BrokerConfig& config);
int64_t integer_value(const Row& row, const BrokerConfig& config);

// The keys code names; a name that is not a row of its kind does not compile.
inline constexpr const Row& kMaxConnections = schema::find("max.connections", 0);
inline constexpr const Row& kMaxConnectionsPerIp = schema::find("max.connections.per.ip", 0);
inline constexpr const Row& kSaslJaasConfig = schema::find("sasl.jaas.config", 0);
inline constexpr const Row& kSaslMechanismInterBrokerProtocol = schema::find("sasl.mechanism.inter.broker.protocol", 0);
inline constexpr const Row& kSslClientAuth = schema::find("ssl.client.auth", 0);
inline constexpr const Row& kSslKeystoreLocation = schema::find("ssl.keystore.location", 0);
inline constexpr const Row& kSslTruststoreLocation = schema::find("ssl.truststore.location", 0);
inline constexpr const Row& kSslPrincipalMappingRules = schema::find("ssl.principal.mapping.rules", 0);
inline constexpr const Row& kSaslServerMaxReceiveSize = schema::find("sasl.server.max.receive.size", 0);
inline constexpr const Row& kCleanupPolicy = schema::find("cleanup.policy", kTopic);
inline constexpr const Row& kDeleteRetentionMs = schema::find("delete.retention.ms", kTopic);
inline constexpr const Row& kMaxCompactionLagMs = schema::find("max.compaction.lag.ms", kTopic);
inline constexpr const Row& kMaxMessageBytes = schema::find("max.message.bytes", kTopic);
inline constexpr const Row& kMessageTimestampAfterMaxMs = schema::find("message.timestamp.after.max.ms", kTopic);
inline constexpr const Row& kMessageTimestampBeforeMaxMs = schema::find("message.timestamp.before.max.ms", kTopic);
inline constexpr const Row& kMessageTimestampDifferenceMaxMs =
    schema::find("message.timestamp.difference.max.ms", kTopic);
inline constexpr const Row& kMessageTimestampType = schema::find("message.timestamp.type", kTopic);
inline constexpr const Row& kMinCleanableDirtyRatio = schema::find("min.cleanable.dirty.ratio", kTopic);
inline constexpr const Row& kMinCompactionLagMs = schema::find("min.compaction.lag.ms", kTopic);
inline constexpr const Row& kMinInsyncReplicas = schema::find("min.insync.replicas", kTopic);
inline constexpr const Row& kRetentionBytes = schema::find("retention.bytes", kTopic);
inline constexpr const Row& kRetentionMs = schema::find("retention.ms", kTopic);
inline constexpr const Row& kConsumerSessionTimeoutMs = schema::find("consumer.session.timeout.ms", kGroup);
inline constexpr const Row& kConsumerHeartbeatIntervalMs = schema::find("consumer.heartbeat.interval.ms", kGroup);

}  // namespace cfg
}  // namespace rokka::broker
