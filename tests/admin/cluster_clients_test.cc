// rokka-admin acls, cluster, produce, consume, and the command line itself (help,
// usage errors, exit codes, --command-config) against build/rokka.
#include <gtest/gtest.h>

#include <set>

#include "tests/admin/admin_cli.h"
#include "tests/testutil/group_consumer.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"

namespace rokka {
namespace {

using testutil::admin;
using testutil::array_of;
using testutil::find_by;
using testutil::GroupBroker;
using testutil::run_admin;

// build/rokka with extra overrides in its own temp directory.
struct Broker {
  explicit Broker(testutil::RokkaProcess::Overrides overrides) : process(data_dir(), std::move(overrides)) {
    process.start();
  }
  ~Broker() {
    if (::testing::Test::HasFailure()) ADD_FAILURE() << "broker log (tail):\n" << process.log_tail(20000);
  }
  std::filesystem::path data_dir() {
    std::filesystem::create_directories(dir / "data");
    return dir / "data";
  }
  std::string bootstrap() const { return process.bootstrap(); }
  testutil::TempDir dir;
  testutil::RokkaProcess process;
};

// What a librdkafka producer gets for one record to `topic`.
RdKafka::ErrorCode produce_one(const std::string& bootstrap, const std::string& topic) {
  testutil::TestProducer p(bootstrap, {{"message.timeout.ms", "10000"}});
  if (auto e = p.produce(topic, 0, std::nullopt, "x"); e != RdKafka::ERR_NO_ERROR) return e;
  const auto& d = p.flush();
  return d.size() == 1 ? d[0].error : RdKafka::ERR__FAIL;
}

TEST(AdminAclsTest, CreatedAclsAreListedEnforcedAndDeleted) {
  // ACLs on, and a request no ACL covers is allowed: only what the test creates decides.
  Broker broker({{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
                 {"allow.everyone.if.no.acl.found", "true"}});
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("secret", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(kafka.create_topic("open", 1), RD_KAFKA_RESP_ERR_NO_ERROR);

  // Plaintext clients are User:ANONYMOUS: deny it writes to "secret".
  auto run = admin(broker.bootstrap(),
                   {"acls", "create", "--resource-type", "topic", "--resource-name", "secret", "--principal",
                    "User:ANONYMOUS", "--operation", "write", "--permission", "deny", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_TRUE(run.json()["acls"][0]["error"].IsNull());
  EXPECT_EQ(produce_one(broker.bootstrap(), "secret"), RdKafka::ERR_TOPIC_AUTHORIZATION_FAILED);
  EXPECT_EQ(produce_one(broker.bootstrap(), "open"), RdKafka::ERR_NO_ERROR);

  run = admin(broker.bootstrap(),
              {"acls", "create", "--resource-type", "group", "--resource-name", "app-", "--pattern-type", "prefixed",
               "--principal", "User:alice", "--host", "10.0.0.1", "--operation", "read", "--operation", "describe"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(testutil::parse_text(run.out).tables.at("").size(), 2u) << "one ACL per operation";

  run = admin(broker.bootstrap(), {"acls", "list", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  auto doc = run.json();
  ASSERT_EQ(array_of(doc, "acls").Size(), 3u) << run.out;
  const auto* deny = find_by(doc["acls"], "principal", "User:ANONYMOUS");
  ASSERT_NE(deny, nullptr);
  EXPECT_STREQ((*deny)["resource_type"].GetString(), "TOPIC");
  EXPECT_STREQ((*deny)["resource_name"].GetString(), "secret");
  EXPECT_STREQ((*deny)["pattern_type"].GetString(), "LITERAL");
  EXPECT_STREQ((*deny)["operation"].GetString(), "WRITE");
  EXPECT_STREQ((*deny)["permission"].GetString(), "DENY");
  EXPECT_STREQ((*deny)["host"].GetString(), "*");

  // Filters: by principal; by resource type; by pattern.
  run = admin(broker.bootstrap(), {"acls", "list", "--principal", "User:alice"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto rows = testutil::parse_text(run.out).tables.at("");
  ASSERT_EQ(rows.size(), 2u) << run.out;
  std::set<std::string> ops = {rows[0].at("OPERATION"), rows[1].at("OPERATION")};
  EXPECT_EQ(ops, (std::set<std::string>{"READ", "DESCRIBE"}));
  EXPECT_EQ(rows[0].at("PATTERN-TYPE"), "PREFIXED");
  EXPECT_EQ(rows[0].at("HOST"), "10.0.0.1");
  EXPECT_EQ(admin(broker.bootstrap(), {"acls", "list", "--resource-type", "topic", "--json"}).json()["acls"].Size(),
            1u);
  // A prefixed ACL matches a group named under its prefix.
  EXPECT_EQ(admin(broker.bootstrap(), {"acls", "list", "--resource-type", "group", "--resource-name", "app-orders",
                                       "--pattern-type", "match", "--json"})
                .json()["acls"]
                .Size(),
            2u);

  // Delete the deny ACL: it is listed as deleted, and writes to "secret" work again.
  run =
      admin(broker.bootstrap(), {"acls", "delete", "--resource-type", "topic", "--resource-name", "secret", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  doc = run.json();
  ASSERT_EQ(array_of(doc, "deleted").Size(), 1u);
  EXPECT_STREQ(doc["deleted"][0]["principal"].GetString(), "User:ANONYMOUS");
  EXPECT_EQ(produce_one(broker.bootstrap(), "secret"), RdKafka::ERR_NO_ERROR);
  EXPECT_EQ(admin(broker.bootstrap(), {"acls", "list", "--json"}).json()["acls"].Size(), 2u);

  // Usage: an unknown operation, a type librdkafka 2.0.2 cannot send, delete without a type.
  EXPECT_EQ(admin(broker.bootstrap(), {"acls", "create", "--resource-type", "topic", "--resource-name", "x",
                                       "--principal", "User:a", "--operation", "fly"})
                .exit_code,
            2);
  EXPECT_EQ(admin(broker.bootstrap(), {"acls", "create", "--resource-type", "transactional-id", "--resource-name", "x",
                                       "--principal", "User:a", "--operation", "write"})
                .exit_code,
            2);
  EXPECT_EQ(admin(broker.bootstrap(), {"acls", "delete"}).exit_code, 2);
}

TEST(AdminAclsTest, WithoutAnAuthorizerCreateFailsWithSecurityDisabled) {
  GroupBroker broker(1);
  const auto run = admin(broker.bootstrap(), {"acls", "create", "--resource-type", "topic", "--resource-name", "t",
                                              "--principal", "User:a", "--operation", "read", "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_STREQ(run.json()["acls"][0]["error"].GetString(), "SECURITY_DISABLED");
}

TEST(AdminClusterTest, DescribeShowsTheBrokerAsController) {
  GroupBroker broker(1);
  auto run = admin(broker.bootstrap(), {"cluster", "describe", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto doc = run.json();
  ASSERT_TRUE(doc["cluster_id"].IsString());
  EXPECT_GT(doc["cluster_id"].GetStringLength(), 0u);
  EXPECT_EQ(doc["controller_id"].GetInt(), 0);
  ASSERT_EQ(array_of(doc, "brokers").Size(), 1u);
  EXPECT_EQ(doc["brokers"][0]["id"].GetInt(), 0);
  EXPECT_STREQ(doc["brokers"][0]["host"].GetString(), "127.0.0.1");
  EXPECT_EQ(doc["brokers"][0]["port"].GetInt(), broker.process.port());
  EXPECT_TRUE(doc["brokers"][0]["controller"].GetBool());

  run = admin(broker.bootstrap(), {"cluster", "describe"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto text = testutil::parse_text(run.out);
  EXPECT_EQ(text.fields.at("CLUSTER-ID"), doc["cluster_id"].GetString());
  EXPECT_EQ(text.tables.at("BROKERS").at(0).at("PORT"), std::to_string(broker.process.port()));
}

TEST(AdminClusterTest, ConfigsShowTheBrokersSettingsAndTheirSources) {
  Broker broker(testutil::RokkaProcess::Overrides{{"num.partitions", "7"}});
  auto run = admin(broker.bootstrap(), {"cluster", "configs", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  auto doc = run.json();
  EXPECT_EQ(doc["broker"].GetInt(), 0);
  const auto* partitions = find_by(array_of(doc, "configs"), "name", "num.partitions");
  ASSERT_NE(partitions, nullptr);
  EXPECT_STREQ((*partitions)["value"].GetString(), "7");
  EXPECT_STREQ((*partitions)["source"].GetString(), "STATIC_BROKER_CONFIG");
  const auto* retention = find_by(doc["configs"], "name", "log.retention.bytes");
  ASSERT_NE(retention, nullptr);
  EXPECT_STREQ((*retention)["source"].GetString(), "DEFAULT_CONFIG");

  run = admin(broker.bootstrap(), {"cluster", "configs", "--broker", "0", "--non-default"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  std::set<std::string> names;
  const auto text = testutil::parse_text(run.out);
  for (const auto& row : text.tables.at("CONFIGS")) names.insert(row.at("NAME"));
  EXPECT_TRUE(names.count("num.partitions")) << run.out;
  EXPECT_FALSE(names.count("log.retention.bytes")) << run.out;

  // librdkafka sends a broker's DescribeConfigs to that broker: there is no broker 5.
  run = admin(broker.bootstrap(), {"cluster", "configs", "--broker", "5", "--timeout", "1000", "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
}

TEST(AdminClientsTest, ProduceWritesKeysHeadersAndPartitionsAClientReadsBack) {
  GroupBroker broker(1);
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("t", 3), RD_KAFKA_RESP_ERR_NO_ERROR);

  // stdin lines, key:value split, a header, partition 2.
  auto run = admin(broker.bootstrap(), {"produce", "t", "-p", "2", "-K", ":", "-H", "trace=abc", "--json"},
                   "k1:first\nk2:second\nk3:third\n");
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  auto doc = run.json();
  EXPECT_EQ(doc["failed"].GetInt(), 0);
  ASSERT_EQ(array_of(doc, "produced").Size(), 1u);
  EXPECT_EQ(doc["produced"][0]["partition"].GetInt(), 2);
  EXPECT_EQ(doc["produced"][0]["records"].GetInt(), 3);
  EXPECT_EQ(doc["produced"][0]["first_offset"].GetInt64(), 0);
  EXPECT_EQ(doc["produced"][0]["last_offset"].GetInt64(), 2);
  const auto got = testutil::consume_assigned(broker.bootstrap(), "t", {2}, RdKafka::Topic::OFFSET_BEGINNING, 3);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].key, "k1");
  EXPECT_EQ(got[0].value, "first");
  EXPECT_EQ(got[2].key, "k3");
  EXPECT_EQ(got[2].value, "third");
  ASSERT_EQ(got[1].headers.size(), 1u);
  EXPECT_EQ(got[1].headers[0].first, "trace");
  EXPECT_EQ(got[1].headers[0].second, "abc");

  // --value and a fixed key; the table reports the offsets.
  run = admin(broker.bootstrap(), {"produce", "t", "-p", "0", "-k", "same", "--value", "x", "--value", "y"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto text = testutil::parse_text(run.out);
  EXPECT_EQ(text.fields.at("FAILED"), "0");
  EXPECT_EQ(text.tables.at("PRODUCED").at(0).at("RECORDS"), "2");
  EXPECT_EQ(text.tables.at("PRODUCED").at(0).at("LAST-OFFSET"), "1");
  const auto same = testutil::consume_assigned(broker.bootstrap(), "t", {0}, RdKafka::Topic::OFFSET_BEGINNING, 2);
  ASSERT_EQ(same.size(), 2u);
  EXPECT_EQ(same[1].key, "same");
  EXPECT_EQ(same[1].value, "y");

  run = admin(broker.bootstrap(), {"produce", "t", "-p", "9", "--value", "x", "--json"});
  EXPECT_EQ(run.exit_code, 1) << "no partition 9: " << run.describe();
  EXPECT_EQ(run.json()["failed"].GetInt(), 1);
}

TEST(AdminClientsTest, ConsumeReadsFromAnOffsetToTheEnd) {
  GroupBroker broker(1);
  testutil::KafkaAdmin kafka(broker.bootstrap());
  ASSERT_EQ(kafka.create_topic("t", 2), RD_KAFKA_RESP_ERR_NO_ERROR);
  {
    testutil::TestProducer p(broker.bootstrap());
    std::unique_ptr<RdKafka::Headers> h(RdKafka::Headers::create());
    h->add("h", "v");
    ASSERT_EQ(p.produce("t", 0, "k0", "zero", h.release()), RdKafka::ERR_NO_ERROR);
    ASSERT_EQ(p.produce("t", 0, std::nullopt, std::string("\xff\x00\x01", 3)), RdKafka::ERR_NO_ERROR);
    for (int i = 0; i < 5; ++i)
      ASSERT_EQ(p.produce("t", 1, std::nullopt, "p1-" + std::to_string(i)), RdKafka::ERR_NO_ERROR);
    for (const auto& d : p.flush()) ASSERT_EQ(d.error, RdKafka::ERR_NO_ERROR);
  }

  // Everything, then exit at the end: one JSON document.
  auto run = admin(broker.bootstrap(), {"consume", "t", "--from-beginning", "--exit", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  auto doc = run.json();
  const auto& messages = array_of(doc, "messages");
  ASSERT_EQ(messages.Size(), 7u);
  std::map<std::pair<int, int64_t>, const rapidjson::Value*> by_position;
  for (const auto& m : messages.GetArray()) by_position[{m["partition"].GetInt(), m["offset"].GetInt64()}] = &m;
  ASSERT_EQ(by_position.size(), 7u);
  const auto& first = *by_position.at({0, 0});
  EXPECT_STREQ(first["key"].GetString(), "k0");
  EXPECT_STREQ(first["value"].GetString(), "zero");
  EXPECT_STREQ(first["headers"][0]["key"].GetString(), "h");
  EXPECT_STREQ(first["headers"][0]["value"].GetString(), "v");
  const auto& binary = *by_position.at({0, 1});
  EXPECT_STREQ(binary["encoding"].GetString(), "base64");
  EXPECT_STREQ(binary["value"].GetString(), "/wAB");
  EXPECT_TRUE(binary["key"].IsNull());

  // Partition 1 from offset 2, two records, kcat's format tokens.
  run = admin(broker.bootstrap(), {"consume", "t", "-p", "1", "-o", "2", "-c", "2", "-f", "%p:%o:%s\\n"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(run.out, "1:2:p1-2\n1:3:p1-3\n");

  // The last record of partition 1 (-1: one before the end).
  run = admin(broker.bootstrap(), {"consume", "t", "-p", "1", "-o", "-1", "-e", "-f", "%s|"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(run.out, "p1-4|");

  EXPECT_EQ(admin(broker.bootstrap(), {"consume", "t", "-f", "%q"}).exit_code, 2);
  EXPECT_EQ(admin(broker.bootstrap(), {"consume", "nope", "-e", "--json"}).exit_code, 1);
}

TEST(AdminCliTest, EveryCommandHasHelpAndTheRootListsThem) {
  const std::vector<std::vector<std::string>> commands = {{"topics"},
                                                          {"topics", "create"},
                                                          {"topics", "list"},
                                                          {"topics", "describe"},
                                                          {"topics", "alter-config"},
                                                          {"topics", "add-partitions"},
                                                          {"topics", "delete"},
                                                          {"topics", "delete-records"},
                                                          {"groups"},
                                                          {"groups", "list"},
                                                          {"groups", "describe"},
                                                          {"groups", "reset-offsets"},
                                                          {"groups", "delete"},
                                                          {"acls"},
                                                          {"acls", "list"},
                                                          {"acls", "create"},
                                                          {"acls", "delete"},
                                                          {"cluster"},
                                                          {"cluster", "describe"},
                                                          {"cluster", "configs"},
                                                          {"produce"},
                                                          {"consume"},
                                                          {"users"},
                                                          {"users", "describe"},
                                                          {"users", "alter"},
                                                          {"users", "delete"}};
  const auto root = run_admin({"--help"});
  ASSERT_EQ(root.exit_code, 0) << root.describe();
  for (auto args : commands) {
    std::string path = "rokka-admin";
    for (const auto& a : args) path += " " + a;
    if (args.size() == 1) {
      EXPECT_NE(root.out.find("\n  " + args[0] + " "), std::string::npos) << args[0];
    }
    args.push_back("--help");
    const auto run = run_admin(args);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(run.out.rfind("Usage: " + path + " ", 0), 0u) << run.out;
  }
}

TEST(AdminCliTest, ExitCodesSayWhatWentWrong) {
  // Usage: 2, with a JSON error document when --json was asked for.
  auto run = run_admin({"nope"});
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  EXPECT_EQ(run_admin({}).exit_code, 2);
  EXPECT_EQ(run_admin({"topics"}).exit_code, 2);
  EXPECT_EQ(run_admin({"topics", "create"}).exit_code, 2) << "no topic named";
  EXPECT_EQ(run_admin({"topics", "list", "--no-such-flag"}).exit_code, 2);
  EXPECT_EQ(run_admin({"topics", "create", "t", "-p", "three"}).exit_code, 2);
  run = run_admin({"topics", "delete-records", "t", "--json"});
  EXPECT_EQ(run.exit_code, 2) << "--offset is required: " << run.describe();
  EXPECT_STREQ(run.json()["error"].GetString(), "USAGE");
  run = run_admin({"users", "list"});
  EXPECT_EQ(run.exit_code, 2) << "no such subcommand: " << run.describe();

  // Kafka: 1. Nobody listens on the port (bound here, never accepted).
  GroupBroker broker(1);
  const int port = broker.process.port();
  broker.process.stop();
  run = run_admin({"-b", "127.0.0.1:" + std::to_string(port), "--timeout", "1500", "topics", "list", "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_TRUE(run.json()["error"].IsString());
}

TEST(AdminCliTest, CommandConfigIsPassedToLibrdkafka) {
  GroupBroker broker(1);
  testutil::TempDir dir;
  // The file's bootstrap.servers wins over the (wrong) flag: proof the file reached librdkafka.
  const std::string good = dir / "client.properties";
  std::ofstream(good) << "# comment\n\nbootstrap.servers = " << broker.bootstrap() << "\nclient.id=from-file\n";
  auto run =
      run_admin({"-b", "127.0.0.1:1", "--command-config", good, "--timeout", "5000", "topics", "list", "--json"});
  EXPECT_EQ(run.exit_code, 0) << run.describe();

  const std::string bad = dir / "bad.properties";
  std::ofstream(bad) << "security.protocol=carrier-pigeon\n";
  run = run_admin({"--command-config", bad, "topics", "list"});
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  EXPECT_EQ(run_admin({"--command-config", (dir / "missing").string(), "topics", "list"}).exit_code, 2);
}

}  // namespace
}  // namespace rokka
