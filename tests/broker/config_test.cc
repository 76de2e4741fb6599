#include "broker/config/config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

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
                          "group.initial.rebalance.delay.ms", "socket.request.max.bytes", "ssl.principal.mapping.rules",
                          "sasl.server.max.receive.size", "connections.max.reauth.ms"})
    EXPECT_NE(help.find(std::string("  ") + key + " ["), std::string::npos) << key;
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
