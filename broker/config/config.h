// BrokerConfig: server.properties + command-line overrides -> one immutable struct.
// Keys are Kafka's where Kafka has one; Rokka's own start with `store.` or `rokka.`.
// The table in config_schema.h is the single source of keys, defaults, docs and validation:
// `rokka --help` prints its rows that Rokka reads and conf/server.properties documents the same keys.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"

namespace rokka::broker {

struct Listener {
  std::string name = "PLAINTEXT";  // the listener's name (NAME in NAME://host:port)
  std::string host;                // empty = all interfaces
  uint16_t port = 9092;
  // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL: the name's entry in
  // listener.security.protocol.map (set by load_config).
  std::string security_protocol = "PLAINTEXT";
  std::string to_string() const;
};

// A TCP address, host:port (rokka.replication.listener); an empty host = every interface.
struct HostPort {
  std::string host;
  uint16_t port = 0;
  std::string to_string() const;  // host:port, an IPv6 host in brackets
  bool operator==(const HostPort&) const = default;
};

// One replication group of rokka.replication.groups (`name=id,id,...`): the brokers that will
// hold a copy of its partitions (issue 24; read, not applied yet).
struct ReplicationGroup {
  std::string name;              // [a-z0-9_-]{1,32}
  std::vector<int32_t> members;  // broker ids (broker.id), unique, at least one, in the order given
  bool operator==(const ReplicationGroup&) const = default;
};

// Kafka's security protocols, in listener.security.protocol.map's values.
inline constexpr std::string_view kSecurityProtocols[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"};

struct BrokerConfig {
  int32_t broker_id = 0;
  std::vector<Listener> listeners;
  std::vector<Listener> advertised_listeners;  // empty = derived from listeners
  std::string log_dirs;
  int32_t num_network_threads = 2;
  int32_t socket_request_max_bytes = 0;
  int64_t connections_max_idle_ms = 0;
  int32_t max_connections = 0;
  int32_t max_connections_per_ip = 0;
  int64_t queued_max_request_bytes = 0;  // -1 = unlimited
  int64_t request_read_timeout_ms = 0;
  int32_t quota_window_num = 11;
  int32_t quota_window_size_seconds = 1;

  int32_t num_partitions = 1;
  int32_t max_partitions_per_topic = 100000;
  int16_t default_replication_factor = 1;
  bool auto_create_topics_enable = true;
  bool delete_topic_enable = true;
  int32_t message_max_bytes = 0;
  int32_t fetch_max_bytes = 0;  // cap on the record bytes of one Fetch response
  std::string log_message_timestamp_type;  // CreateTime | LogAppendTime
  int64_t log_message_timestamp_before_max_ms = 0;  // topic defaults for message.timestamp.{before,after}.max.ms
  int64_t log_message_timestamp_after_max_ms = 0;

  int64_t log_segment_bytes = 0;
  std::string store_flush_mode;  // sync | async
  int64_t log_flush_interval_ms = 0;
  int64_t log_flush_interval_messages = 0;
  int64_t log_retention_ms = 0;  // -1 = unlimited
  int64_t log_retention_bytes = 0;
  int64_t log_retention_check_interval_ms = 0;
  bool log_cleaner_enable = true;
  int64_t log_cleaner_backoff_ms = 0;
  int64_t store_checkpoint_interval_bytes = 0;
  int64_t store_checkpoint_interval_ms = 0;
  int64_t store_recovery_verify_bytes = 0;
  int64_t store_pagecache_retain_bytes = 0;
  int64_t store_tail_cache_bytes = 0;
  bool store_direct_io = false;
  bool log_preallocate = true;

  int32_t group_min_session_timeout_ms = 0;
  int32_t group_max_session_timeout_ms = 0;
  int32_t group_initial_rebalance_delay_ms = 0;
  int32_t group_max_size = 0;
  // The consumer group protocol (KIP-848).
  int32_t group_consumer_heartbeat_interval_ms = 0;
  int32_t group_consumer_min_heartbeat_interval_ms = 0;
  int32_t group_consumer_max_heartbeat_interval_ms = 0;
  int32_t group_consumer_session_timeout_ms = 0;
  int32_t group_consumer_min_session_timeout_ms = 0;
  int32_t group_consumer_max_session_timeout_ms = 0;
  int32_t group_consumer_max_size = 0;
  std::string group_consumer_assignors;
  std::string group_consumer_migration_policy;
  int32_t offsets_retention_minutes = 0;
  int64_t offsets_retention_check_interval_ms = 0;
  int32_t offset_metadata_max_bytes = 0;

  int32_t transaction_max_timeout_ms = 0;
  int64_t transactional_id_expiration_ms = 0;

  // Security. authorizer.class.name empty = no authorizer (the ACL APIs answer
  // SECURITY_DISABLED); any of Kafka's authorizer class names enables Rokka's own.
  std::string authorizer_class_name;
  bool allow_everyone_if_no_acl_found = false;
  std::string super_users;  // principals separated by ';'
  std::string listener_security_protocol_map;  // NAME:PROTOCOL[,NAME:PROTOCOL]
  // The TLS and SASL settings as given (ssl.*, sasl.*, <mechanism>.sasl.jaas.config,
  // connections.max.reauth.ms and their listener.name.<l>. forms): read per
  // listener by broker/net/listener_security.cc with security/'s parsers, never
  // logged (they hold passwords and keys); DescribeConfigs masks the secrets. The keys
  // of the table's Read::kSecurity rows are here too, when given (their defaults are the
  // table's).
  std::map<std::string, std::string, std::less<>> security_settings;

  // Cluster mode (docs/cluster.md): empty endpoints = a single broker, as without these keys.
  std::string cluster_etcd_endpoints;  // rokka.cluster.etcd.endpoints: http://host:port[,...]
  std::string cluster_root;            // rokka.cluster.root: every key of the cluster is under it
  int64_t cluster_session_timeout_ms = 0;  // rokka.cluster.session.timeout.ms: the broker's etcd lease
  std::string broker_rack;             // broker.rack: reported in Metadata (empty = none)
  std::string inter_broker_listener_name;      // inter.broker.listener.name (empty: see below)
  std::string security_inter_broker_protocol;  // security.inter.broker.protocol: names it when the above is empty

  // Replication (issue 24): read and checked, not applied yet; each key's doc in the
  // table names the stage that applies it.
  int32_t min_insync_replicas = 1;               // min.insync.replicas: topic default
  int64_t replica_lag_time_max_ms = 0;           // replica.lag.time.max.ms
  bool unclean_leader_election_enable = false;   // unclean.leader.election.enable
  std::string replica_selector_class;            // replica.selector.class: empty or Kafka's rack-aware selector
  std::vector<ReplicationGroup> replication_groups;     // rokka.replication.groups; empty = none
  std::optional<HostPort> replication_listener;         // rokka.replication.listener
  std::optional<HostPort> replication_advertised_listener;  // rokka.replication.advertised.listener
  int64_t replication_heartbeat_ms = 0;          // rokka.replication.heartbeat.ms
  int64_t replication_idle_timeout_ms = 0;       // rokka.replication.idle.timeout.ms

  std::string log_level;  // rokka.log.level
  std::vector<Listener> http_listeners;  // rokka.http.listeners (name "http"); empty = none
  int64_t metrics_max_topic_series = 0;  // rokka.metrics.max.topic.series

  // Keys the table does not know (and that are not security settings), to be warned about once logging is up.
  std::vector<std::string> unknown_keys;
  // Keys of the table set by the file or an override (DescribeConfigs reports them as
  // STATIC_BROKER_CONFIG, the others as DEFAULT_CONFIG).
  std::vector<std::string> given_keys;

  // The listeners clients are told about (advertised, else listeners with a
  // wildcard host replaced by this machine's name).
  std::vector<Listener> effective_advertised_listeners() const;
  // The replication groups `broker` is a member of, in the order of rokka.replication.groups.
  std::vector<const ReplicationGroup*> replication_groups_of(int32_t broker) const;
  // Where the other members reach this broker's replication listener:
  // rokka.replication.advertised.listener, else the listener's port on the first
  // advertised listener's host. nullopt without a replication listener.
  std::optional<HostPort> effective_replication_advertised_listener() const;
};

// Parses `rokka [CONFIG_FILE] [--override key=value]...`. With no config file the
// embedded defaults apply. Returns the config, or a message for the user.
struct CommandLine {
  std::optional<std::string> config_file;
  std::vector<std::pair<std::string, std::string>> overrides;
  bool help = false;
  bool version = false;
};
storage::Result<CommandLine> parse_command_line(int argc, char** argv);

// Builds the config from the defaults, then `properties` text (Java properties
// syntax), then `overrides`. Unknown keys are collected, bad values are errors.
storage::Result<BrokerConfig> load_config(std::string_view properties,
                                          const std::vector<std::pair<std::string, std::string>>& overrides);

// A config value as an integer: the whole of `s` (no blanks, no sign other than '-',
// non-empty) in int64, else nullopt. Every integer a config, a dynamic config, a topic
// config or a broker record holds is read with it.
std::optional<int64_t> parse_integer(std::string_view s);

// Every key the broker knows, in table order.
std::vector<std::string_view> config_keys();

// `--help`: usage and every key with its default and meaning.
std::string config_help();

// The effective configuration, one `key=value` per line (logged at start-up).
std::string describe_config(const BrokerConfig& config);

// One key of the effective configuration, as DescribeConfigs reports it.
struct ConfigValue {
  std::string name;
  std::string value;
  bool given = false;  // set by the file or an override, not the built-in default
  std::string_view doc;
};
// Every key of the effective configuration (log.retention.* shown once, as ms).
std::vector<ConfigValue> config_values(const BrokerConfig& config);

// Whether `value` is a valid value of the table's key `name`: an error message, or
// empty (also for a key the table does not know).
std::string check_config_value(std::string_view name, std::string_view value);

// group.consumer.assignors as Kafka's short names ("uniform", "range"), in order.
std::vector<std::string> consumer_assignor_names(const BrokerConfig& config);

// Whether `key` is one of the security settings (BrokerConfig::security_settings):
// ssl.*, sasl.*, <mechanism>.sasl.jaas.config, connections.max.reauth.ms and any
// listener.name.<l>. key.
bool is_security_key(std::string_view key);

// Parses "PLAINTEXT://host:port[,NAME://host:port]"; an error message on failure.
// Each listener's security_protocol is its name's, when the name is a protocol;
// load_config resolves the others through listener.security.protocol.map.
storage::Result<std::vector<Listener>> parse_listeners(std::string_view text);

// Parses "host:port" (an IPv6 host in brackets; an empty host = every interface).
storage::Result<HostPort> parse_host_port(std::string_view text);

// Parses rokka.replication.groups: "g1=1,2,3;g2=4,5,6" (blanks around items allowed, a
// trailing ';' too); empty = no group. Names are [a-z0-9_-]{1,32} and unique; members are
// broker ids, unique within their group, at least one. An error message names the group.
storage::Result<std::vector<ReplicationGroup>> parse_replication_groups(std::string_view text);
// The groups in that syntax (no blanks), as DescribeConfigs and --help show them.
std::string format_replication_groups(const std::vector<ReplicationGroup>& groups);

}  // namespace rokka::broker
