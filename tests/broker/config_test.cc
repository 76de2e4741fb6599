#include "broker/config/config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace rokka::broker {
namespace {

TEST(ConfigTest, EmbeddedDefaultsListenOn9092AndStoreLocally) {
  auto c = load_config("", {});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  ASSERT_EQ(c->listeners.size(), 1u);
  EXPECT_EQ(c->listeners[0].port, 9092);
  EXPECT_EQ(c->log_dirs, "./rokka-data");
  EXPECT_TRUE(c->auto_create_topics_enable);
  EXPECT_EQ(c->message_max_bytes, 1048588);
  EXPECT_EQ(c->socket_request_max_bytes, 104857600);
  EXPECT_EQ(c->log_retention_ms, 168LL * 3600 * 1000);
}

TEST(ConfigTest, FileThenOverridesLaterWins) {
  auto c = load_config("# comment\nnum.partitions=3\nlog.dirs : /tmp/x\nbroker.id 7\n",
                       {{"num.partitions", "5"}});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->num_partitions, 5);
  EXPECT_EQ(c->log_dirs, "/tmp/x");
  EXPECT_EQ(c->broker_id, 7);
}

TEST(ConfigTest, FinestRetentionUnitWins) {
  auto c = load_config("log.retention.ms=1234\nlog.retention.hours=1\n", {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->log_retention_ms, 1234);
  auto h = load_config("log.retention.hours=2\n", {});
  EXPECT_EQ(h->log_retention_ms, 2 * 3600 * 1000);
  auto never = load_config("log.retention.hours=-1\n", {});
  EXPECT_EQ(never->log_retention_ms, -1);
}

TEST(ConfigTest, BadValuesStopWithTheKeyInTheMessage) {
  auto c = load_config("num.partitions=zero\n", {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("num.partitions"), std::string::npos);
  EXPECT_FALSE(load_config("store.flush.mode=sometimes\n", {}).ok());
  EXPECT_FALSE(load_config("listeners=CLIENT://:9093\n", {}).ok());  // no security protocol for CLIENT
  EXPECT_FALSE(load_config("listeners=PLAINTEXT://host\n", {}).ok());
  EXPECT_FALSE(load_config("socket.request.max.bytes=-1\n", {}).ok());
}

TEST(ConfigTest, UnknownKeysAreCollectedNotFatal) {
  auto c = load_config("zookeeper.connect=localhost:2181\n", {});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->unknown_keys.size(), 1u);
  EXPECT_EQ(c->unknown_keys[0], "zookeeper.connect");
}

TEST(ConfigTest, ListenersParseHostsAndWildcards) {
  auto l = parse_listeners("PLAINTEXT://:9092");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ((*l)[0].host, "");
  auto v6 = parse_listeners("PLAINTEXT://[::1]:19092");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ((*v6)[0].host, "::1");
  EXPECT_EQ((*v6)[0].port, 19092);
}

TEST(ConfigTest, CommandLineTakesOneFileAndOverrides) {
  const char* argv[] = {"rokka", "server.properties", "--override", "a=b", "--override", "c=d=e"};
  auto cl = parse_command_line(6, const_cast<char**>(argv));
  ASSERT_TRUE(cl.ok());
  EXPECT_EQ(cl->config_file, "server.properties");
  ASSERT_EQ(cl->overrides.size(), 2u);
  EXPECT_EQ(cl->overrides[1].second, "d=e");
  const char* bad[] = {"rokka", "--override", "novalue"};
  EXPECT_FALSE(parse_command_line(3, const_cast<char**>(bad)).ok());
}

TEST(ConfigTest, HelpListsEveryKey) {
  const std::string help = config_help();
  for (const char* key : {"listeners", "log.dirs", "store.flush.mode", "log.retention.hours",
                          "group.initial.rebalance.delay.ms", "socket.request.max.bytes", "min.insync.replicas",
                          "replica.lag.time.max.ms", "unclean.leader.election.enable", "replica.selector.class",
                          "rokka.replication.groups", "rokka.replication.listener",
                          "rokka.replication.advertised.listener", "rokka.replication.heartbeat.ms",
                          "rokka.replication.idle.timeout.ms", "ssl.principal.mapping.rules",
                          "sasl.server.max.receive.size", "connections.max.reauth.ms"})
    EXPECT_NE(help.find(std::string("  ") + key + " ["), std::string::npos) << key;
}

// A cluster config with `extra` lines: replication groups need cluster mode.
storage::Result<BrokerConfig> cluster_config(const std::string& extra) {
  return load_config("rokka.cluster.etcd.endpoints=http://127.0.0.1:2379\n" + extra, {});
}

TEST(ConfigTest, ReplicationGroupsParseInOrder) {
  auto c = cluster_config("broker.id=7\nrokka.replication.groups= g1=1,2,3 ; g_2-b = 4 ,5,6;\n");
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  const std::vector<ReplicationGroup> want = {{"g1", {1, 2, 3}}, {"g_2-b", {4, 5, 6}}};
  EXPECT_EQ(c->replication_groups, want);
  EXPECT_TRUE(c->replication_groups_of(7).empty());
  ASSERT_EQ(c->replication_groups_of(5).size(), 1u);
  EXPECT_EQ(c->replication_groups_of(5)[0]->name, "g_2-b");
  // Reported in the syntax it was given in, without the blanks.
  std::string described = describe_config(*c);
  EXPECT_NE(described.find("\nrokka.replication.groups=g1=1,2,3;g_2-b=4,5,6\n"), std::string::npos) << described;
  // A broker may be in several groups; one group may have one member; 32 characters is the longest name.
  auto many = parse_replication_groups("a=1;b=1,2;abcdefghijklmnopqrstuvwxyz012345=9");
  ASSERT_TRUE(many.ok()) << many.status().to_string();
  EXPECT_EQ(many->size(), 3u);
  EXPECT_TRUE(load_config("", {})->replication_groups.empty());
}

TEST(ConfigTest, BadReplicationGroupsStopTheStartNamingTheKey) {
  for (const char* bad : {"g1=1,2,1",          // a member twice
                          "G1=1,2,3",          // upper case
                          "g.1=1,2,3",         // '.'
                          "abcdefghijklmnopqrstuvwxyz0123456=1",  // 33 characters
                          "=1,2,3",            // no name
                          "g1=",               // no member
                          "g1= ;g2=1",         // no member
                          "g1=1,,2",           // an empty member
                          "g1=1,two,3",        // not a number
                          "g1=1,-2",           // not a broker id
                          "g1=1,2147483648",   // not a broker id
                          "g1=1;g1=2",         // a group twice
                          "g1",                // no '='
                          "g1=1;;g2=2"}) {     // an empty group
    auto c = cluster_config(std::string("rokka.replication.groups=") + bad + "\n");
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.status().message().find("rokka.replication.groups"), std::string::npos) << c.status().message();
    EXPECT_FALSE(parse_replication_groups(bad).ok()) << bad;
  }
  // 64 members is the most a group has (etcd's group records refuse more): 65 stops the start.
  std::string members;
  for (int i = 0; i < 65; ++i) members += (i ? "," : "") + std::to_string(i);
  EXPECT_TRUE(parse_replication_groups("g1=" + members.substr(0, members.rfind(','))).ok());
  auto too_many = parse_replication_groups("g1=" + members);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("more than 64 members"), std::string::npos)
      << too_many.status().message();
  auto twice = parse_replication_groups("g1=1,2,1");
  EXPECT_NE(twice.status().message().find("broker 1 is a member twice"), std::string::npos)
      << twice.status().message();
}

TEST(ConfigTest, ReplicationGroupsNeedClusterModeAndAMembersListener) {
  auto alone = load_config("rokka.replication.groups=g1=1,2,3\n", {});
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.status().message().find("rokka.cluster.etcd.endpoints"), std::string::npos)
      << alone.status().message();

  auto member = cluster_config("broker.id=2\nrokka.replication.groups=g1=1,2,3\n");
  ASSERT_FALSE(member.ok());
  EXPECT_NE(member.status().message().find("rokka.replication.listener"), std::string::npos)
      << member.status().message();
  EXPECT_NE(member.status().message().find("g1"), std::string::npos) << member.status().message();

  // A broker in no group needs no replication listener.
  EXPECT_TRUE(cluster_config("broker.id=4\nrokka.replication.groups=g1=1,2,3\n").ok());
  auto with_listener =
      cluster_config("broker.id=2\nrokka.replication.groups=g1=1,2,3\nrokka.replication.listener=0.0.0.0:9500\n");
  ASSERT_TRUE(with_listener.ok()) << with_listener.status().to_string();
  EXPECT_EQ(with_listener->replication_listener, (HostPort{"0.0.0.0", 9500}));
}

TEST(ConfigTest, ReplicationAdvertisedListenerDefaultsToTheFirstAdvertisedHost) {
  auto c = load_config("listeners=PLAINTEXT://0.0.0.0:9092,SSL://0.0.0.0:9093\n"
                       "advertised.listeners=PLAINTEXT://b1.example:19092,SSL://b1-tls.example:19093\n"
                       "rokka.replication.listener=0.0.0.0:9500\n",
                       {});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_FALSE(c->replication_advertised_listener);
  EXPECT_EQ(c->effective_replication_advertised_listener(), (HostPort{"b1.example", 9500}));

  auto given = load_config("rokka.replication.listener=[::]:9500\n"
                           "rokka.replication.advertised.listener=[fd00::7]:29500\n",
                           {});
  ASSERT_TRUE(given.ok()) << given.status().to_string();
  EXPECT_EQ(given->replication_listener, (HostPort{"::", 9500}));
  EXPECT_EQ(given->effective_replication_advertised_listener(), (HostPort{"fd00::7", 29500}));
  EXPECT_NE(describe_config(*given).find("rokka.replication.advertised.listener=[fd00::7]:29500\n"),
            std::string::npos);

  EXPECT_FALSE(load_config("", {})->effective_replication_advertised_listener());
  EXPECT_FALSE(load_config("rokka.replication.listener=9500\n", {}).ok());
  EXPECT_FALSE(load_config("rokka.replication.listener=host:99999\n", {}).ok());
  // It binds: an IP address, never a name to look up.
  EXPECT_FALSE(load_config("rokka.replication.listener=broker-1.example:9500\n", {}).ok());
  EXPECT_FALSE(load_config("rokka.replication.listener=PLAINTEXT://host:9500\n", {}).ok());
  EXPECT_FALSE(load_config("rokka.replication.advertised.listener=0.0.0.0:9500\n", {}).ok());
  EXPECT_FALSE(load_config("rokka.replication.advertised.listener=:9500\n", {}).ok());
}

TEST(ConfigTest, ReplicationKeysDefaultsAndBounds) {
  auto d = load_config("", {});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->default_replication_factor, 1);
  EXPECT_EQ(d->min_insync_replicas, 1);
  EXPECT_EQ(d->replica_lag_time_max_ms, 30000);
  EXPECT_FALSE(d->unclean_leader_election_enable);
  EXPECT_EQ(d->replica_selector_class, "");
  EXPECT_EQ(d->replication_heartbeat_ms, 100);
  EXPECT_EQ(d->replication_idle_timeout_ms, 5000);

  auto c = load_config("default.replication.factor=32767\nmin.insync.replicas=2\nreplica.lag.time.max.ms=2000\n"
                       "unclean.leader.election.enable=true\n"
                       "replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector\n",
                       {});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->default_replication_factor, 32767);
  EXPECT_EQ(c->min_insync_replicas, 2);
  EXPECT_EQ(c->replica_lag_time_max_ms, 2000);
  EXPECT_TRUE(c->unclean_leader_election_enable);
  EXPECT_EQ(c->replica_selector_class, "org.apache.kafka.common.replica.RackAwareReplicaSelector");

  for (const char* bad : {"default.replication.factor=32768", "default.replication.factor=0",
                          "min.insync.replicas=0", "min.insync.replicas=-1", "replica.lag.time.max.ms=0",
                          "unclean.leader.election.enable=yes", "replica.selector.class=com.example.MySelector",
                          "rokka.replication.heartbeat.ms=0", "rokka.replication.idle.timeout.ms=abc"}) {
    auto r = load_config(std::string(bad) + "\n", {});
    ASSERT_FALSE(r.ok()) << bad;
    const std::string key(std::string_view(bad).substr(0, std::string_view(bad).find('=')));
    EXPECT_NE(r.status().message().find(key), std::string::npos) << r.status().message();
  }
  // The stream's silence limit must outlast its heartbeats.
  auto idle = load_config("rokka.replication.heartbeat.ms=1000\nrokka.replication.idle.timeout.ms=1000\n", {});
  ASSERT_FALSE(idle.ok());
  EXPECT_NE(idle.status().message().find("rokka.replication.idle.timeout.ms"), std::string::npos);
}

// ssl.principal.mapping.rules, sasl.server.max.receive.size and connections.max.reauth.ms have
// rows (--help, DescribeConfigs with their defaults), and the listeners still read them, as
// given, from the security settings beside their listener.name.<l>. forms.
TEST(ConfigTest, SecurityKeysWithRowsStayInTheSecuritySettings) {
  auto d = load_config("", {});
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->security_settings.empty());
  const std::string described = describe_config(*d);
  for (const char* line : {"\nssl.principal.mapping.rules=DEFAULT\n", "\nsasl.server.max.receive.size=524288\n",
                           "\nconnections.max.reauth.ms=0\n"})
    EXPECT_NE(described.find(line), std::string::npos) << line;

  auto c = load_config(
      "sasl.server.max.receive.size=4096\nlistener.name.ssl.ssl.principal.mapping.rules=RULE:^CN=(.*)$/$1/\n",
      {{"connections.max.reauth.ms", "60000"}});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->security_settings,
            (std::map<std::string, std::string, std::less<>>{
                {"connections.max.reauth.ms", "60000"},
                {"listener.name.ssl.ssl.principal.mapping.rules", "RULE:^CN=(.*)$/$1/"},
                {"sasl.server.max.receive.size", "4096"}}));
  EXPECT_TRUE(c->unknown_keys.empty());
  EXPECT_NE(describe_config(*c).find("\nconnections.max.reauth.ms=60000\n"), std::string::npos);
}

}  // namespace
}  // namespace rokka::broker

namespace rokka::broker {
namespace {

// conf/server.properties documents every key and, as shipped, equals the embedded defaults.
TEST(ConfigTest, ShippedServerPropertiesMatchesTheKeyTable) {
  std::ifstream in(std::string(ROKKA_SOURCE_DIR) + "/conf/server.properties");
  ASSERT_TRUE(in) << "conf/server.properties missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (std::string_view key : config_keys()) {
    EXPECT_NE(text.find(std::string(key) + "="), std::string::npos) << key << " is not documented";
  }
  auto shipped = load_config(text, {});
  ASSERT_TRUE(shipped.ok()) << shipped.status().to_string();
  EXPECT_TRUE(shipped->unknown_keys.empty());
  auto defaults = load_config("", {});
  EXPECT_EQ(describe_config(*shipped), describe_config(*defaults));
}

}  // namespace
}  // namespace rokka::broker
