// EtcdSharedMeta over a fake cluster: the shared broker state's etcd keys and values,
// what a batch becomes, hostile values (skipped, never a crash), notifications by prefix,
// and the components (Authorizer, ScramCredentials, ClientQuotas, DynamicBrokerConfig)
// reloading a change another broker made.
#include "broker/meta/etcd_shared_meta.h"

#include <gtest/gtest.h>

#include <deque>
#include <optional>

#include "broker/meta/authorizer.h"
#include "broker/meta/client_quotas.h"
#include "broker/meta/dynamic_config.h"
#include "broker/meta/scram_credentials.h"
#include "cluster/records.h"
#include "security/scram_crypto.h"
#include "storage/meta_keys.h"
#include "tests/testutil/fake_meta_store.h"

namespace rokka::broker {
namespace {

using storage::MetaStore;

// A cluster whose etcd is a key map: commit() applies a txn (compare: absent only) at the
// next revision and publishes the view at once; its callback runs at once, or when the
// test releases it (hold_callbacks). put()/erase() are another broker's writes.
class FakeCluster : public ClusterMetaAccess {
 public:
  FakeCluster() { snap_ = cluster::build_snapshot(keys_, kvs_, 0); }

  const cluster::Keys& keys() const override { return keys_; }
  SnapshotPtr view() const override { return snap_; }
  void follow_view(std::function<void(const SnapshotPtr&)> fn) override {
    fn(snap_);
    followers_.push_back(std::move(fn));
  }
  void commit(cluster::Txn txn, TxnCallback done) override {
    txns.push_back(txn);
    cluster::TxnResult r;
    r.succeeded = true;
    for (const cluster::Compare& c : txn.compare) r.succeeded = r.succeeded && !kvs_.contains(c.key);
    if (r.succeeded && !txn.success.empty()) {
      ++revision_;
      for (const cluster::TxnOp& op : txn.success) {
        if (const auto* put = std::get_if<cluster::PutRequest>(&op)) {
          set(put->key, put->value);
          r.responses.emplace_back(cluster::PutResult{});
        } else if (const auto* del = std::get_if<cluster::DeleteRequest>(&op)) {
          cluster::DeleteResult d;
          d.deleted = static_cast<int64_t>(kvs_.erase(del->key));
          r.responses.emplace_back(d);
        }
      }
      publish();
    }
    r.header.revision = revision_;
    if (hold_callbacks) {
      held_.push_back([done, r] { done(r); });
    } else {
      done(r);
    }
  }

  void put(const std::string& key, const std::string& value) {
    ++revision_;
    set(key, value);
    publish();
  }
  void erase(const std::string& key) {
    ++revision_;
    kvs_.erase(key);
    publish();
  }
  void release_callbacks() {
    while (!held_.empty()) {
      auto fn = std::move(held_.front());
      held_.pop_front();
      fn();
    }
  }
  const cluster::KeyMap& kvs() const { return kvs_; }

  std::vector<cluster::Txn> txns;
  bool hold_callbacks = false;

 private:
  void set(const std::string& key, const std::string& value) {
    cluster::KeyValue& kv = kvs_[key];
    if (kv.create_revision == 0) kv.create_revision = revision_;
    kv.key = key;
    kv.value = value;
    kv.mod_revision = revision_;
    ++kv.version;
  }
  void publish() {
    snap_ = cluster::build_snapshot(keys_, kvs_, revision_);
    for (auto& fn : followers_) fn(snap_);
  }

  cluster::Keys keys_{"/r"};
  cluster::KeyMap kvs_;
  int64_t revision_ = 1;
  SnapshotPtr snap_;
  std::vector<std::function<void(const SnapshotPtr&)>> followers_;
  std::deque<std::function<void()>> held_;
};

storage::Status write(MetaStore& meta, std::vector<MetaStore::Mutation> batch) {
  std::optional<storage::Status> got;
  meta.write(std::move(batch), [&](storage::Status s) { got = s; });
  return got.value_or(storage::Status::io_error("no callback"));
}

TEST(EtcdSharedMetaTest, ABatchIsOneTxnWithTheLastMutationOfEachKey) {
  cluster::Keys keys("/r");
  std::vector<MetaStore::Mutation> batch = {
      {"a/one", "", false}, {"u/1/bob", std::string("\x00\xff", 2), false}, {"a/one", "", true}, {"a/two", "x", false}};
  const cluster::Txn txn = EtcdSharedMeta::txn_of(keys, std::move(batch));
  EXPECT_TRUE(txn.compare.empty());
  ASSERT_EQ(txn.success.size(), 3u);
  const auto* del = std::get_if<cluster::DeleteRequest>(&txn.success[0]);
  ASSERT_NE(del, nullptr);
  EXPECT_EQ(del->key, "/r/meta/a/one");
  EXPECT_TRUE(del->range_end.empty()) << "one key, never a range";
  const auto* two = std::get_if<cluster::PutRequest>(&txn.success[1]);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->key, "/r/meta/a/two");
  EXPECT_EQ(two->value, R"("eA==")");
  const auto* bob = std::get_if<cluster::PutRequest>(&txn.success[2]);
  ASSERT_NE(bob, nullptr);
  EXPECT_EQ(*cluster::decode_meta_value(bob->value), std::string("\x00\xff", 2));
}

TEST(EtcdSharedMetaTest, WritesAreReadBackAndValuesThatDoNotDecodeAreSkipped) {
  FakeCluster etcd;
  EtcdSharedMeta meta(etcd);
  ASSERT_TRUE(write(meta, {{"q/x", std::string("\x40\x24\0\0\0\0\0\0", 8), false}, {"q/y", "", false}}).ok());
  ASSERT_EQ(etcd.txns.size(), 1u);
  for (const char* hostile : {"", "{", "null", "42", R"("not base64!")", R"("AAE")", R"({"v":"AAE="})", R"(["AAE="])",
                              "\"\xc3\x28\"", R"("AAE=" "AAE=")"})
    etcd.put("/r/meta/q/hostile-" + std::to_string(etcd.kvs().size()), hostile);
  etcd.put("/r/meta/q/" + std::string(200, '\xff'), std::string(100000, '['));
  etcd.put("/r/metaq/not-under-the-prefix", cluster::encode_meta_value("v"));
  etcd.put("/r/meta/qq/another-prefix", cluster::encode_meta_value("v"));
  const auto got = meta.scan("q/");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (std::pair<std::string, std::string>{"q/x", std::string("\x40\x24\0\0\0\0\0\0", 8)}));
  EXPECT_EQ(got[1], (std::pair<std::string, std::string>{"q/y", ""}));
  EXPECT_EQ(meta.scan("").size(), 3u);

  // Deleted, and a batch of nothing is answered too.
  ASSERT_TRUE(write(meta, {{"q/x", "", true}}).ok());
  ASSERT_TRUE(write(meta, {}).ok());
  ASSERT_EQ(meta.scan("q/").size(), 1u);
}

TEST(EtcdSharedMetaTest, AChangeNotifiesTheSubscribersOfItsPrefixOnly) {
  FakeCluster etcd;
  EtcdSharedMeta meta(etcd);
  int acls = 0, scram = 0;
  meta.subscribe("a/", [&] { ++acls; });
  meta.subscribe("u/", [&] { ++scram; });
  etcd.put("/r/meta/a/before-start", cluster::encode_meta_value(""));  // made before start(): reported by it
  meta.start();
  EXPECT_EQ(acls, 1);
  EXPECT_EQ(scram, 0);
  etcd.put("/r/topics/t", "{}");
  etcd.put("/r/meta/d/default/x", cluster::encode_meta_value("1"));
  EXPECT_EQ(acls, 1);
  EXPECT_EQ(scram, 0);
  etcd.put("/r/meta/u/1/bob", cluster::encode_meta_value("c"));
  EXPECT_EQ(scram, 1);
  etcd.put("/r/meta/u/1/bob", cluster::encode_meta_value("c"));  // the same value again is a new revision
  EXPECT_EQ(scram, 2);
  etcd.erase("/r/meta/a/before-start");
  EXPECT_EQ(acls, 2);
  EXPECT_EQ(scram, 2);
}

// The writer's callback applies its own change; a delete another broker made after it, which
// the view brought first, still wins once the writer reloads.
TEST(EtcdSharedMetaTest, AnotherBrokersLaterChangeIsNotLostUnderTheWritersOwn) {
  FakeCluster etcd;
  EtcdSharedMeta meta(etcd);
  Authorizer a(meta, AuthorizerOptions{true, false, {}});
  ASSERT_TRUE(a.load(true).ok());
  meta.subscribe("a/", [&] { ASSERT_TRUE(a.load(true).ok()); });
  meta.start();

  AclBinding b{ResourceType::kTopic, "orders", PatternType::kLiteral, "User:bob", "*", AclOperation::kRead,
               AclPermission::kAllow};
  etcd.hold_callbacks = true;
  std::optional<storage::Status> created;
  a.create({b}, [&](storage::Status s) { created = s; });
  EXPECT_EQ(a.size(), 1u) << "the view brought it before the write was answered";
  etcd.erase(etcd.keys().meta(Authorizer::encode_key(b)));  // another broker deletes it
  EXPECT_EQ(a.size(), 0u);
  etcd.release_callbacks();
  ASSERT_TRUE(created && created->ok());
  EXPECT_EQ(a.size(), 0u) << "the stale binding was put back";
  EXPECT_FALSE(a.check("User:bob", "127.0.0.1", AclOperation::kRead, ResourceType::kTopic, "orders"));
}

// Each component reloads another broker's change; a record that does not decode is skipped.
TEST(EtcdSharedMetaTest, ComponentsFollowAnotherBrokersChangesAndSkipBadRecords) {
  FakeCluster etcd;
  EtcdSharedMeta meta(etcd);
  Authorizer acls(meta, AuthorizerOptions{true, false, {}});
  ScramCredentials scram(meta);
  ClientQuotas quotas(meta);
  DynamicBrokerConfig configs(meta, 2);
  meta.subscribe(std::string(storage::meta_prefix::kAcls), [&] { ASSERT_TRUE(acls.load(true).ok()); });
  meta.subscribe(std::string(storage::meta_prefix::kScramCredentials), [&] { ASSERT_TRUE(scram.load(true).ok()); });
  meta.subscribe(std::string(storage::meta_prefix::kClientQuotas), [&] { ASSERT_TRUE(quotas.load(true).ok()); });
  meta.subscribe(std::string(storage::meta_prefix::kDynamicConfig), [&] { ASSERT_TRUE(configs.load().ok()); });
  meta.start();

  // Broker 1's writes, through its own components on the same etcd.
  EtcdSharedMeta other(etcd);
  Authorizer acls1(other, AuthorizerOptions{true, false, {}});
  ScramCredentials scram1(other);
  ClientQuotas quotas1(other);
  DynamicBrokerConfig configs1(other, 1);
  const AclBinding b{ResourceType::kTopic, "t", PatternType::kPrefixed, "User:carol", "*", AclOperation::kWrite,
                     AclPermission::kAllow};
  std::vector<storage::Status> results;
  auto record = [&](storage::Status s) { results.push_back(s); };
  acls1.create({b}, record);
  const std::string salted =
      security::scram_salted_password(security::ScramHash::kSha512, "carol-secret", "salt", 4096);
  auto credential = security::scram_credential_from_salted_password(security::ScramMechanism::kSha512, "salt", salted, 4096);
  ASSERT_TRUE(credential.ok());
  scram1.upsert({"carol", security::ScramMechanism::kSha512, std::move(credential).value()}, record);
  quotas1.alter({{{{std::string(kQuotaUser), std::string("carol")}}, {{std::string(kProducerByteRate), 1024.0}}}}, record);
  configs1.alter(DynamicScope::kClusterDefault, {{"log.retention.ms", "1000"}}, false, record);
  configs1.alter(DynamicScope::kBroker, {{"max.connections", "7"}}, false, record);
  ASSERT_EQ(results.size(), 5u);
  for (const auto& s : results) EXPECT_TRUE(s.ok()) << s.to_string();

  EXPECT_TRUE(acls.check("User:carol", "10.0.0.1", AclOperation::kWrite, ResourceType::kTopic, "t-1"));
  EXPECT_TRUE(scram.contains("carol", security::ScramMechanism::kSha512));
  EXPECT_EQ(quotas.bound(kProducerByteRate, "carol", "any"), 1024.0);
  EXPECT_EQ(configs.values(DynamicScope::kClusterDefault).at("log.retention.ms"), "1000");
  EXPECT_TRUE(configs.values(DynamicScope::kBroker).empty()) << "broker 1's own configs are not broker 2's";

  // Records written by hand that decode as values but not as records: skipped, the rest stays.
  etcd.put(etcd.keys().meta("a/\x02"), cluster::encode_meta_value(""));
  etcd.put(etcd.keys().meta("u/2/mallory"), cluster::encode_meta_value("not a credential"));
  etcd.put(etcd.keys().meta("u/1/carol-under-another-name"), etcd.kvs().at(etcd.keys().meta(ScramCredentials::encode_key("carol", security::ScramMechanism::kSha512))).value);
  etcd.put(etcd.keys().meta("q/\x01"), cluster::encode_meta_value("\x01\x02"));
  EXPECT_EQ(acls.size(), 1u);
  EXPECT_EQ(scram.size(), 1u);
  EXPECT_EQ(quotas.describe().size(), 1u);
  EXPECT_EQ(acls.load().code(), storage::StatusCode::kCorruption) << "a single broker's journal stays strict";
  EXPECT_EQ(scram.load().code(), storage::StatusCode::kCorruption);
  EXPECT_EQ(quotas.load().code(), storage::StatusCode::kCorruption);

  // Deleted on broker 1: gone here too.
  acls1.remove({AclFilter{}}, [](auto) {});
  scram1.remove("carol", security::ScramMechanism::kSha512, record);
  EXPECT_EQ(acls.size(), 0u);
  EXPECT_FALSE(scram.contains("carol", security::ScramMechanism::kSha512));
}

// A founding broker's own records go to etcd, except where etcd already has the key; other
// prefixes stay its own.
TEST(EtcdSharedMetaTest, AFounderPublishesItsRecordsWhereEtcdHasNone) {
  testutil::FakeMetaStore local;
  local.put("a/binding", "");
  local.put("u/2/alice", std::string("\x00\x01", 2));
  local.put("d/default/log.retention.ms", "5");
  local.put("t/topic", "not shared");
  FakeCluster etcd;
  etcd.put("/r/meta/d/default/log.retention.ms", cluster::encode_meta_value("9"));
  EtcdSharedMeta meta(etcd);
  constexpr std::string_view kPrefixes[] = {storage::meta_prefix::kAcls, storage::meta_prefix::kScramCredentials,
                                            storage::meta_prefix::kDynamicConfig};
  ASSERT_TRUE(meta.publish(local, kPrefixes).ok());
  EXPECT_EQ(meta.scan(""), (std::vector<std::pair<std::string, std::string>>{
                               {"a/binding", ""}, {"d/default/log.retention.ms", "9"}, {"u/2/alice", std::string("\x00\x01", 2)}}));
}

}  // namespace
}  // namespace rokka::broker
