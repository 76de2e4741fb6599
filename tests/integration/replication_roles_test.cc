// Replication groups' roles from the group state (issue 24, plan24 S5a; docs/cluster.md "Roles
// from the group state"): three build/rokka processes and a real etcd, rokka.replication.groups
// g1=1,2,3, each broker with its replication listener. The brokers publish their hints, the
// controller bootstraps the group, and the test moves the state by hand through etcd's gateway:
// the broker named (with its broker epoch) leads the group's store at that epoch and the others
// follow it, their group stores ending with the leader's log byte for byte (the epochs' records
// are what a group store holds before topics live there); a leader stopped past its lease fences
// its store when it runs again, and follows the leader the controller elected meanwhile. Skipped,
// with the reason, where etcd is not installed.
#include <gtest/gtest.h>
#include <signal.h>

#include <optional>
#include <string>

#include "tests/integration/group_cluster.h"
#include "tests/testutil/wait.h"

namespace rokka {
namespace {

using namespace std::chrono_literals;
using testutil::group_role;
using testutil::kRoot;
using testutil::kSessionMs;

class ReplicationRolesTest : public testutil::GroupClusterTest {};

TEST_F(ReplicationRolesTest, StoresTakeTheRolesTheGroupStateNames) {
  // Every registration publishes its replication endpoint and what its group store holds.
  for (int id = 1; id <= 3; ++id) {
    const auto reg = get(std::string(kRoot) + "/brokers/" + std::to_string(id));
    ASSERT_TRUE(reg) << id;
    rapidjson::Document d;
    d.Parse(reg->first.c_str());
    ASSERT_TRUE(d.IsObject() && d.HasMember("replication") && d.HasMember("groups")) << reg->first;
    EXPECT_EQ(std::string(d["replication"]["host"].GetString()), "127.0.0.1") << reg->first;
    EXPECT_EQ(d["replication"]["port"].GetInt(), repl_ports_[id]) << reg->first;
    ASSERT_TRUE(d["groups"].HasMember("g1")) << reg->first;
    EXPECT_EQ(d["groups"]["g1"]["last_epoch"].GetInt(), -1) << reg->first;  // a new store has led no epoch
  }

  // With the hints published the controller bootstraps the group: its leader leads, the others copy it.
  std::optional<std::pair<int, int>> first;
  ASSERT_TRUE(testutil::eventually([&] { return (first = state()).has_value(); }, 30s));
  expect_roles(first->first, first->second, {1, 2, 3});
  const int e = first->second;

  // The state moved by hand to another live broker (the controller elects only when the leader named is
  // gone): broker 2, then broker 3, each at a new epoch; the others follow, every store holds every epoch.
  const int second = first->first == 2 ? 1 : 2;
  ASSERT_NO_FATAL_FAILURE(name_leader(second, e + 1));
  expect_roles(second, e + 1, {1, 2, 3});
  ASSERT_NO_FATAL_FAILURE(name_leader(3, e + 2));
  expect_roles(3, e + 2, {1, 2, 3});

  // The leader stopped past its lease: back, it fences its store at once (its lease may have ended, and
  // another may lead); the controller has elected another member meanwhile, which the old leader, registered
  // again under a new broker epoch, follows to the same bytes.
  ::kill(broker(3).pid(), SIGSTOP);
  std::this_thread::sleep_for(std::chrono::milliseconds(kSessionMs + 2500));  // etcd expires the lease
  ::kill(broker(3).pid(), SIGCONT);
  const std::string fenced = "group g1: store fenced at epoch " + std::to_string(e + 2);
  EXPECT_TRUE(testutil::eventually([&] { return broker(3).log_tail(1 << 20).find(fenced) != std::string::npos; },
                                   30s))
      << broker(3).log_tail();
  std::optional<std::pair<int, int>> elected;
  ASSERT_TRUE(testutil::eventually(
      [&] {
        elected = state();
        return elected && elected->first != 3 && elected->second > e + 2;
      },
      30s));
  expect_roles(elected->first, elected->second, {1, 2, 3});
}

}  // namespace
}  // namespace rokka
