// Replication groups' values in etcd without a server: the spec, the state, the epoch counter
// and the registration's replication fields round-trip; values other brokers (or an operator
// with etcdctl) wrote are refused with kMalformed when hostile, and read leniently when only
// optional fields are missing; the keys parse back to their group; the snapshot types them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cluster/cluster_view.h"
#include "cluster/keys.h"
#include "cluster/records.h"

namespace rokka::cluster {
namespace {

// Lists of `n` ids, as JSON text.
std::string ids(int n, int first = 0) {
  std::string out = "[";
  for (int i = 0; i < n; ++i) out += (i ? "," : "") + std::to_string(first + i);
  return out + "]";
}

TEST(GroupRecordsTest, SpecRoundTripsAndRefusesHostileValues) {
  const GroupSpec spec{{3, 1, 2}};  // the order is the spec's, not sorted
  auto back = decode_group_spec(encode_group_spec(spec));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, spec);
  EXPECT_EQ(*decode_group_spec(R"({"members":[1,2,3],"future_field":{"x":[1]}})"), (GroupSpec{{1, 2, 3}}));
  EXPECT_EQ(decode_group_spec("{\"members\":" + ids(64) + "}")->members.size(), 64u);

  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const std::string& bad : std::vector<std::string>{
           "", "null", "[1,2]", "{", R"({})", R"({"members":[]})", R"({"members":{}})", R"({"members":"1,2"})",
           R"({"members":[1,1]})",                 // a member twice
           R"({"members":[1,-2]})",                // a negative id
           R"({"members":[1,"2"]})", R"({"members":[1.5]})", R"({"members":[null]})",
           R"({"members":[4294967296]})",          // beyond int32
           "{\"members\":" + ids(65) + "}",        // too many
           "{\"members\":" + ids(200000) + "}",    // huge
           "{\"members\":" + deep + "}",
           "{\"members\":[1],\"x\":\"\xff\"}",     // not UTF-8
       }) {
    auto r = decode_group_spec(bad);
    ASSERT_FALSE(r.ok()) << bad.substr(0, 60);
    EXPECT_EQ(r.status().code(), StatusCode::kMalformed);
  }
}

TEST(GroupRecordsTest, StateRoundTripsAndReadsSCALEOUTsShorterForm) {
  const GroupState state{2, 812, 42, {2, 3, 1}, 7};
  EXPECT_EQ(encode_group_state(state),
            R"({"leader":2,"leader_broker_epoch":812,"epoch":42,"sss":[2,3,1],"sss_version":7})");
  auto back = decode_group_state(encode_group_state(state));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, state);
  const GroupState offline{kNoLeader, 0, 43, {2, 3}, 7};
  EXPECT_EQ(*decode_group_state(encode_group_state(offline)), offline);

  // Without the broker epoch and the version (SCALE-OUT §3.2's form, or written by hand): 0.
  auto old = decode_group_state(R"({"leader":1,"epoch":42,"sss":[1,2,3]})");
  ASSERT_TRUE(old.ok()) << old.status().to_string();
  EXPECT_EQ(*old, (GroupState{1, 0, 42, {1, 2, 3}, 0}));
  EXPECT_EQ(*decode_group_state(R"({"leader":1,"epoch":42,"sss":[1],"leader_broker_epoch":null,"sss_version":null})"),
            (GroupState{1, 0, 42, {1}, 0}));
}

TEST(GroupRecordsTest, StateRefusesHostileValues) {
  for (const std::string& bad : std::vector<std::string>{
           R"({"epoch":42,"sss":[1]})",                                       // no leader
           R"({"leader":1,"sss":[1]})",                                       // no epoch
           R"({"leader":1,"epoch":42})",                                      // no sss
           R"({"leader":-2,"epoch":42,"sss":[1]})",                           // below -1
           R"({"leader":"1","epoch":42,"sss":[1]})",
           R"({"leader":1,"epoch":-1,"sss":[1]})",
           R"({"leader":1,"epoch":2147483648,"sss":[1]})",                    // beyond int32
           R"({"leader":1,"epoch":4.0,"sss":[1]})",
           R"({"leader":1,"epoch":42,"sss":[1,1]})",                          // a member twice
           R"({"leader":1,"epoch":42,"sss":[1,-3]})",
           R"({"leader":1,"epoch":42,"sss":{"1":true}})",
           R"({"leader":1,"epoch":42,"sss":[2,3]})",                          // the leader outside its SSS
           R"({"leader":1,"epoch":42,"sss":[1],"leader_broker_epoch":-5})",
           R"({"leader":1,"epoch":42,"sss":[1],"leader_broker_epoch":"5"})",
           R"({"leader":1,"epoch":42,"sss":[1],"sss_version":-1})",
           R"({"leader":1,"epoch":42,"sss":[1],"sss_version":true})",
           R"({"leader":1,"epoch":42,"sss":)" + ids(100000) + "}",
           "[1]", "42", "",
       }) {
    auto r = decode_group_state(bad);
    ASSERT_FALSE(r.ok()) << bad.substr(0, 80);
    EXPECT_EQ(r.status().code(), StatusCode::kMalformed);
  }
}

TEST(GroupRecordsTest, EpochCounterIsABareNumber) {
  EXPECT_EQ(encode_epoch_counter(42), "42");
  EXPECT_EQ(*decode_epoch_counter("42"), 42);
  EXPECT_EQ(*decode_epoch_counter(" 0 "), 0);
  EXPECT_EQ(*decode_epoch_counter(encode_epoch_counter(2147483647)), 2147483647);
  for (const char* bad : {"", "-1", "\"42\"", "42.5", "2147483648", "{\"epoch\":42}", "[42]", "42 43", "null"}) {
    EXPECT_FALSE(decode_epoch_counter(bad).ok()) << bad;
  }
}

TEST(GroupRecordsTest, RegistrationCarriesTheReplicationEndpointAndGroupHints) {
  BrokerRegistration reg{{{"PLAINTEXT", "h", 9092, "PLAINTEXT"}}, std::string("r1"), "77"};
  reg.replication = ReplicationEndpoint{"10.0.0.1", 9093};
  reg.groups = {{"g1", {5, 123456789012}}, {"g_2-x", {-1, 0}}};
  auto back = decode_broker_registration(encode_broker_registration(reg));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, reg);

  // A registration written before groups existed (an older broker) still decodes, with none.
  auto old = decode_broker_registration(
      R"({"listeners":[{"name":"PLAINTEXT","host":"h","port":9092,"security_protocol":"PLAINTEXT"}],"rack":null,"incarnation":"5"})");
  ASSERT_TRUE(old.ok()) << old.status().to_string();
  EXPECT_FALSE(old->replication.has_value());
  EXPECT_TRUE(old->groups.empty());
  auto nulls = decode_broker_registration(R"({"listeners":[],"incarnation":"5","replication":null,"groups":null})");
  ASSERT_TRUE(nulls.ok()) << nulls.status().to_string();
  EXPECT_FALSE(nulls->replication.has_value());
  // And a broker without them writes neither field, so the value is the one older brokers wrote.
  EXPECT_EQ(encode_broker_registration({{}, {}, "5"}), R"({"listeners":[],"rack":null,"incarnation":"5"})");

  std::string many_groups = R"({"listeners":[],"incarnation":"5","groups":{)";
  for (int i = 0; i < 1025; ++i) many_groups += (i ? "," : "") + ("\"g" + std::to_string(i) + "\":{\"last_epoch\":1,\"log_end\":1}");
  many_groups += "}}";
  const std::string prefix = R"({"listeners":[],"incarnation":"5",)";
  for (const std::string& bad : std::vector<std::string>{
           prefix + R"("replication":"h:9093"})",                      // SCALE-OUT's string form
           prefix + R"("replication":{"host":"h"}})",
           prefix + R"("replication":{"host":"","port":9093}})",
           prefix + R"("replication":{"host":"h","port":0}})",
           prefix + R"("replication":{"host":"h","port":65536}})",
           prefix + R"("replication":{"host":"h","port":"9093"}})",
           prefix + R"("groups":["g1"]})",                             // SCALE-OUT's list form
           prefix + R"("groups":{"G1":{"last_epoch":1,"log_end":1}}})",  // not a group name
           prefix + R"("groups":{"":{"last_epoch":1,"log_end":1}}})",
           prefix + R"("groups":{"a/b":{"last_epoch":1,"log_end":1}}})",
           prefix + R"("groups":{"g1":{"last_epoch":-2,"log_end":1}}})",
           prefix + R"("groups":{"g1":{"last_epoch":1,"log_end":-1}}})",
           prefix + R"("groups":{"g1":{"last_epoch":1}}})",
           prefix + R"("groups":{"g1":{"last_epoch":1,"log_end":1.5}}})",
           prefix + R"("groups":{"g1":7}})",
           prefix + R"("groups":{"g1":{"last_epoch":1,"log_end":1},"g1":{"last_epoch":2,"log_end":2}}})",  // twice
           many_groups,
       }) {
    auto r = decode_broker_registration(bad);
    ASSERT_FALSE(r.ok()) << bad.substr(0, 100);
    EXPECT_EQ(r.status().code(), StatusCode::kMalformed);
  }
}

TEST(GroupKeysTest, KeysParseBackToTheirGroup) {
  const Keys keys("/r/");
  EXPECT_EQ(keys.group_spec("g1"), "/r/groups/g1/spec");
  EXPECT_EQ(keys.group_state("g1"), "/r/groups/g1/state");
  EXPECT_EQ(keys.epoch_counter(), "/r/epoch");
  const std::string spec_key = keys.group_spec("g-1_a");  // group_of's answer points into it
  auto spec = keys.group_of(spec_key);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->group, "g-1_a");
  EXPECT_EQ(spec->part, Keys::GroupKey::Part::kSpec);
  const std::string state_key = keys.group_state(std::string(32, 'z'));
  auto state = keys.group_of(state_key);
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->group, std::string(32, 'z'));
  EXPECT_EQ(state->part, Keys::GroupKey::Part::kState);
  for (const char* other : {"/r/groups/g1", "/r/groups/g1/", "/r/groups//spec", "/r/groups/spec", "/r/groups/G1/spec",
                            "/r/groups/a/b/spec", "/r/groups/g1/specs", "/r/groups/g1/other", "/q/groups/g1/spec",
                            "/r/topics/g1/spec"}) {
    EXPECT_FALSE(keys.group_of(other).has_value()) << other;
  }
  EXPECT_FALSE(keys.group_of(keys.group_state(std::string(33, 'z'))).has_value());
  EXPECT_TRUE(valid_group_name("g1"));
  EXPECT_FALSE(valid_group_name(""));
  EXPECT_FALSE(valid_group_name("g.1"));
  EXPECT_FALSE(valid_group_name(std::string(33, 'a')));
}

TEST(GroupKeysTest, TheSnapshotTypesTheGroupsAndTheCounter) {
  const Keys keys("/r");
  KeyMap m;
  auto add = [&](const std::string& key, const std::string& value, int64_t mod) {
    m.emplace(key, KeyValue{key, value, 2, mod, 1, 0});
  };
  add(keys.group_spec("g1"), encode_group_spec({{1, 2, 3}}), 10);
  add(keys.group_state("g1"), encode_group_state({2, 5, 7, {2, 3}, 1}), 11);
  add(keys.group_spec("g2"), encode_group_spec({{3, 1}}), 12);                // no state yet
  add(keys.group_state("g3"), R"({"leader":1,"epoch":1,"sss":[2]})", 13);     // malformed, spec-less
  add(keys.group_state("BAD"), encode_group_state({1, 1, 1, {1}, 0}), 14);    // not a group name: raw only
  add(keys.epoch_counter(), encode_epoch_counter(7), 15);

  auto s = build_snapshot(keys, m, 20);
  ASSERT_EQ(s->groups.size(), 3u);
  const GroupInfo* g1 = s->group("g1");
  ASSERT_NE(g1, nullptr);
  EXPECT_EQ(g1->name, "g1");
  EXPECT_EQ(g1->spec, (GroupSpec{{1, 2, 3}}));
  EXPECT_EQ(g1->spec_mod_revision, 10);
  EXPECT_EQ(g1->state, (GroupState{2, 5, 7, {2, 3}, 1}));
  EXPECT_EQ(g1->state_mod_revision, 11);
  const GroupInfo* g2 = s->group("g2");
  ASSERT_NE(g2, nullptr);
  EXPECT_FALSE(g2->state.has_value());
  EXPECT_EQ(g2->state_mod_revision, 0);
  // A state that does not decode is there without a value, at its revision (a guarded write
  // may replace it), and listed as malformed.
  const GroupInfo* g3 = s->group("g3");
  ASSERT_NE(g3, nullptr);
  EXPECT_FALSE(g3->spec.has_value());
  EXPECT_FALSE(g3->state.has_value());
  EXPECT_EQ(g3->state_mod_revision, 13);
  EXPECT_EQ(s->malformed, std::vector<std::string>{keys.group_state("g3")});
  EXPECT_EQ(s->group("BAD"), nullptr);
  EXPECT_EQ(s->epoch_counter, 7);
  EXPECT_EQ(s->epoch_counter_mod_revision, 15);

  m.erase(keys.epoch_counter());
  add(keys.epoch_counter(), R"("7")", 16);
  auto t = build_snapshot(keys, m, 21);
  EXPECT_FALSE(t->epoch_counter.has_value());
  EXPECT_EQ(t->epoch_counter_mod_revision, 16);
  EXPECT_EQ(t->malformed.size(), 2u);
}

}  // namespace
}  // namespace rokka::cluster
