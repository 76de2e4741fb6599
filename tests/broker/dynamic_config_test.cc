// DynamicBrokerConfig: Kafka's split between dynamic and static broker configs, and
// values that are stored durably per broker / as the cluster default.
#include "broker/meta/dynamic_config.h"

#include <gtest/gtest.h>

#include "tests/testutil/fake_meta_store.h"

namespace rokka::broker {
namespace {

using Changes = DynamicBrokerConfig::Changes;

TEST(DynamicConfigTest, KafkasDynamicKeysAreAcceptedForThisBroker) {
  EXPECT_EQ(DynamicBrokerConfig::validate(DynamicScope::kBroker, {{"sasl.kerberos.min.time.before.relogin", "58000"},
                                                                   {"log.cleaner.threads", "2"},
                                                                   {"message.max.bytes", "2000000"}}),
            "");
  // A name neither Kafka nor Rokka knows is a custom config, stored as Kafka does.
  EXPECT_EQ(DynamicBrokerConfig::validate(DynamicScope::kBroker, {{"my.plugin.setting", "x"}}), "");
}

TEST(DynamicConfigTest, StaticKeysRefuseTheWholeResourceNamingThemAll) {
  EXPECT_EQ(DynamicBrokerConfig::validate(DynamicScope::kBroker,
                                          {{"broker.id", "3"}, {"log.cleaner.threads", "2"}, {"log.dirs", "/x"}}),
            "Cannot update these configs dynamically: Set(broker.id, log.dirs)");
  // Rokka's own keys are static too, and so are Kafka's that Rokka does not use.
  EXPECT_NE(DynamicBrokerConfig::validate(DynamicScope::kClusterDefault, {{"store.flush.mode", "sync"}}), "");
  EXPECT_NE(DynamicBrokerConfig::validate(DynamicScope::kBroker, {{"zookeeper.connect", "zk:2181"}}), "");
}

TEST(DynamicConfigTest, KeystoresChangeOnlyWithAListenerPrefix) {
  EXPECT_NE(DynamicBrokerConfig::validate(DynamicScope::kBroker, {{"ssl.keystore.location", "/k.jks"}}), "");
  EXPECT_EQ(DynamicBrokerConfig::validate(DynamicScope::kBroker,
                                          {{"listener.name.plaintext.ssl.keystore.location", "/k.jks"}}),
            "");
}

TEST(DynamicConfigTest, PerBrokerKeysAreRefusedAsClusterDefault) {
  EXPECT_EQ(DynamicBrokerConfig::validate(DynamicScope::kClusterDefault,
                                          {{"sasl.kerberos.min.time.before.relogin", "58000"}}),
            "Cannot update these configs at default cluster level, broker id must be specified: "
            "Set(sasl.kerberos.min.time.before.relogin)");
  EXPECT_EQ(DynamicBrokerConfig::validate(DynamicScope::kClusterDefault, {{"log.retention.ms", "1000"}}), "");
}

TEST(DynamicConfigTest, ValuesOfRokkasKeysAreTypeChecked) {
  EXPECT_NE(DynamicBrokerConfig::validate(DynamicScope::kBroker, {{"message.max.bytes", "lots"}}), "");
  EXPECT_NE(DynamicBrokerConfig::validate(DynamicScope::kBroker, {{"log.message.timestamp.type", "Never"}}), "");
  // A deletion carries no value to check.
  EXPECT_EQ(DynamicBrokerConfig::validate(DynamicScope::kBroker, {{"message.max.bytes", std::nullopt}}), "");
}

TEST(DynamicConfigTest, PasswordsAreSensitive) {
  EXPECT_TRUE(DynamicBrokerConfig::is_sensitive("listener.name.plaintext.ssl.keystore.password"));
  EXPECT_TRUE(DynamicBrokerConfig::is_sensitive("listener.name.sasl_ssl.plain.sasl.jaas.config"));
  EXPECT_FALSE(DynamicBrokerConfig::is_sensitive("log.retention.ms"));
}

void alter(DynamicBrokerConfig& d, DynamicScope scope, Changes changes, bool replace) {
  bool ok = false;
  d.alter(scope, std::move(changes), replace, [&](storage::Status s) { ok = s.ok(); });
  ASSERT_TRUE(ok);
}

TEST(DynamicConfigTest, ValuesAreDurableAndLoadedPerScope) {
  testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  {
    DynamicBrokerConfig d(meta, 1);
    alter(d, DynamicScope::kBroker, {{"log.cleaner.threads", "4"}, {"num.io.threads", "16"}}, true);
    alter(d, DynamicScope::kClusterDefault, {{"log.retention.ms", "60000"}}, true);
  }
  DynamicBrokerConfig reloaded(meta, 1);
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.values(DynamicScope::kBroker),
            (std::map<std::string, std::string>{{"log.cleaner.threads", "4"}, {"num.io.threads", "16"}}));
  EXPECT_EQ(reloaded.values(DynamicScope::kClusterDefault),
            (std::map<std::string, std::string>{{"log.retention.ms", "60000"}}));
  // Another broker id sees the cluster default but not broker 1's own values.
  DynamicBrokerConfig other(meta, 2);
  ASSERT_TRUE(other.load().ok());
  EXPECT_TRUE(other.values(DynamicScope::kBroker).empty());
  EXPECT_EQ(other.values(DynamicScope::kClusterDefault).size(), 1u);
}

TEST(DynamicConfigTest, AlterConfigsReplacesWhileIncrementalMerges) {
  testutil::FakeMetaStore meta;
  meta.set_auto_complete(true);
  DynamicBrokerConfig d(meta, 0);
  alter(d, DynamicScope::kBroker, {{"log.cleaner.threads", "4"}, {"num.io.threads", "16"}}, true);
  alter(d, DynamicScope::kBroker, {{"background.threads", "5"}, {"num.io.threads", std::nullopt}}, false);
  EXPECT_EQ(d.values(DynamicScope::kBroker),
            (std::map<std::string, std::string>{{"background.threads", "5"}, {"log.cleaner.threads", "4"}}));
  alter(d, DynamicScope::kBroker, {{"num.io.threads", "8"}}, true);
  EXPECT_EQ(d.values(DynamicScope::kBroker), (std::map<std::string, std::string>{{"num.io.threads", "8"}}));
  DynamicBrokerConfig reloaded(meta, 0);
  ASSERT_TRUE(reloaded.load().ok());
  EXPECT_EQ(reloaded.values(DynamicScope::kBroker), (std::map<std::string, std::string>{{"num.io.threads", "8"}}));
}

TEST(DynamicConfigTest, AFailedWriteChangesNothing) {
  testutil::FakeMetaStore meta;
  DynamicBrokerConfig d(meta, 0);
  std::optional<bool> ok;
  d.alter(DynamicScope::kBroker, {{"num.io.threads", "8"}}, true, [&](storage::Status s) { ok = s.ok(); });
  meta.fail_next();
  ASSERT_TRUE(ok.has_value());
  EXPECT_FALSE(*ok);
  EXPECT_TRUE(d.values(DynamicScope::kBroker).empty());
}

}  // namespace
}  // namespace rokka::broker
