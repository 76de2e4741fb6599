// The config schema's own invariants (broker/config/config_schema.h): what every derivation
// from the table relies on, so that a row added or changed wrongly fails here and not in a client.
#include "broker/config/config_schema.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "broker/meta/topic_registry.h"
#include "broker/services.h"
#include "tests/testutil/broker_fixture.h"

namespace rokka::broker::cfg {
namespace {

TEST(ConfigSchemaTest, NamesAreUniqueWithinEachKind) {
  std::set<std::pair<uint8_t, std::string_view>> seen;
  for (const Row& row : kSchema) EXPECT_TRUE(seen.emplace(row.kind(), row.name).second) << row.name << " twice";
}

TEST(ConfigSchemaTest, EveryKeyHasOneScope) {
  for (const Row& row : kSchema) {
    if (row.kind() != 0) {
      EXPECT_EQ(row.scope, row.kind()) << row.name << ": a topic or group key has no broker scope";
      continue;
    }
    const int scopes = !!(row.scope & kStatic) + !!(row.scope & kDynamicBroker) + !!(row.scope & kDynamicCluster);
    EXPECT_EQ(scopes, 1) << row.name << ": static, dynamic per broker or dynamic cluster-wide, exactly one";
    EXPECT_TRUE(!(row.scope & kListenerOnly) || (row.scope & kDynamicBroker)) << row.name;
    EXPECT_EQ(row.dynamic(), !(row.scope & kStatic)) << row.name;
  }
}

// A topic or group key's default is its synonym's value: the synonym must be a broker key Rokka
// reads, of the same type (the value is reported under the topic key's type).
TEST(ConfigSchemaTest, SynonymsAreBrokerKeysOfTheSameType) {
  // segment.bytes is Kafka's INT, but Rokka's log.segment.bytes goes up to 4 GiB (a LONG): a
  // topic then reports a segment.bytes default an INT cannot hold. Known; the only exception.
  const std::set<std::string_view> kWider = {"segment.bytes"};
  for (const Row& row : kSchema) {
    if (row.synonym.empty()) continue;
    const Row* synonym = find_broker_key(row.synonym);
    ASSERT_NE(synonym, nullptr) << row.name << ": synonym " << row.synonym << " is no broker key";
    EXPECT_TRUE(synonym->rokka()) << row.name << ": synonym " << row.synonym << " is not read by Rokka";
    EXPECT_TRUE(synonym->synonym.empty()) << row.name << ": synonym of a synonym";
    if (row.kind() == 0) {  // another unit of the same value
      EXPECT_TRUE(synonym->read == row.read && synonym->field == row.field) << row.name;
    } else if (!kWider.contains(row.name)) {
      EXPECT_TRUE(synonym->type == row.type) << row.name << " and " << row.synonym;
    } else {
      EXPECT_TRUE(row.type == ConfigType::kInt && synonym->type == ConfigType::kLong) << row.name;
    }
  }
  for (const Row& row : group_keys()) EXPECT_FALSE(row.synonym.empty()) << row.name;
}

// Each integer key's range fits its type, so what the validator accepts the field can hold.
TEST(ConfigSchemaTest, IntegerRangesFitTheirType) {
  for (const Row& row : kSchema) {
    if (row.read != Read::kInteger) continue;
    EXPECT_LE(row.min, row.max) << row.name;
    const bool fits = row.type == ConfigType::kInt     ? row.min >= INT32_MIN && row.max <= INT32_MAX
                      : row.type == ConfigType::kShort ? row.min >= INT16_MIN && row.max <= INT16_MAX
                                                       : row.type == ConfigType::kLong;
    EXPECT_TRUE(fits) << row.name;
  }
}

// Every default Rokka reads parses with the key's own validator and is shown as written.
TEST(ConfigSchemaTest, EveryBrokerDefaultParsesAndShowsAsWritten) {
  for (const Row& row : kSchema) {
    if (!row.rokka()) continue;
    EXPECT_FALSE(row.doc.empty()) << row.name << " has no doc for --help";
    if (row.default_value.empty()) continue;
    BrokerConfig config;
    EXPECT_EQ(apply(row, config, row.default_value), "") << row.name;
    EXPECT_EQ(value(row, config), row.default_value) << row.name;
  }
}

TEST(ConfigSchemaTest, KafkasKeysRokkaDoesNotReadHaveNoDefault) {
  for (const Row& row : kSchema) {
    if (row.kind() != 0 || row.rokka()) continue;
    EXPECT_TRUE(row.default_value.empty() && row.doc.empty()) << row.name;
    EXPECT_TRUE(std::holds_alternative<std::monostate>(row.field)) << row.name;
  }
}

// Every topic key's default, its own or its synonym's, passes the topic validator.
TEST(ConfigSchemaTest, EveryTopicDefaultParsesAsATopicConfig) {
  testutil::InProcessBroker b;
  const TopicRegistry& topics = b.broker().services().topics;
  const auto defaults = topics.broker_default_configs();
  EXPECT_EQ(defaults.size(), topic_keys().size());
  for (const Row& row : topic_keys()) {
    EXPECT_FALSE(row.doc.empty()) << row.name;
    auto it = defaults.find(std::string(row.name));
    ASSERT_NE(it, defaults.end()) << row.name;
    const TopicError e = topics.validate_configs({*it}, nullptr);
    EXPECT_TRUE(e.ok()) << e.message;
  }
}

TEST(ConfigSchemaTest, LookupsFindEachKindOnly) {
  EXPECT_EQ(find_broker_key("max.connections"), &kMaxConnections);
  EXPECT_EQ(find_topic_key("retention.ms"), &kRetentionMs);
  EXPECT_EQ(find_group_key("consumer.session.timeout.ms"), &kConsumerSessionTimeoutMs);
  EXPECT_EQ(find_broker_key("retention.ms"), nullptr);
  EXPECT_EQ(find_topic_key("log.retention.ms"), nullptr);
  // Kafka's names that are both a broker and a topic key are two rows.
  ASSERT_NE(find_broker_key("compression.type"), nullptr);
  ASSERT_NE(find_topic_key("compression.type"), nullptr);
  EXPECT_NE(find_broker_key("compression.type"), find_topic_key("compression.type"));
  // min.insync.replicas: the broker's value is the topic key's default.
  EXPECT_EQ(find_topic_key("min.insync.replicas"), &kMinInsyncReplicas);
  ASSERT_NE(find_broker_key("min.insync.replicas"), nullptr);
  EXPECT_EQ(&synonym_of(kMinInsyncReplicas), find_broker_key("min.insync.replicas"));
}

// The security keys with rows are read per listener: no BrokerConfig field, a default, and
// static as in Kafka (a change needs a restart).
TEST(ConfigSchemaTest, SecurityRowsAreStaticWithADefault) {
  int rows = 0;
  for (const Row& row : kSchema) {
    if (row.read != Read::kSecurity) continue;
    ++rows;
    EXPECT_EQ(row.scope, kStatic) << row.name;
    EXPECT_FALSE(row.default_value.empty()) << row.name;
    EXPECT_TRUE(std::holds_alternative<std::monostate>(row.field)) << row.name;
    EXPECT_TRUE(is_security_key(row.name)) << row.name << " would not reach the listeners";
  }
  EXPECT_EQ(rows, 3);
}

}  // namespace
}  // namespace rokka::broker::cfg
