// ListTransactions over raw frames against the in-process broker, v2's
// TransactionalIdPattern (KIP-1152) above all: a pattern selects the ids it matches as
// a whole, null or empty selects all, an invalid or oversized pattern is
// INVALID_REGULAR_EXPRESSION, and patterns built to explode a backtracking engine are
// answered promptly.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/list_transactions.h"
#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/wire_client.h"

namespace rokka {
namespace {

using protocol::ErrorCode;
using protocol::ListTransactionsRequest;
using protocol::ListTransactionsResponse;
using testutil::InProcessBroker;
using testutil::WireClient;

class ListTransactionsTest : public ::testing::Test {
 protected:
  ListTransactionsTest() : c_(b_.port()) {}

  void SetUp() override {
    for (std::string_view id : {"orders-1", "orders-2", "payments-1", "xorders-1"}) init(id);
  }

  // InitProducerId for a transactional id: the coordinator then lists it (state Empty).
  // Retries while the coordinator is still loading.
  void init(std::string_view id) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      protocol::InitProducerIdRequest req;
      req.transactional_id = id;
      req.transaction_timeout_ms = 60000;
      const int32_t cid = ++cid_;
      c_.send(req, 4, cid);
      auto r = c_.receive<protocol::InitProducerIdResponse>(4, cid);
      ASSERT_TRUE(r);
      if (r->error_code == ErrorCode::kNone) return;
      const auto e = static_cast<ErrorCode>(r->error_code);
      ASSERT_TRUE(e == ErrorCode::kCoordinatorLoadInProgress || e == ErrorCode::kCoordinatorNotAvailable ||
                  e == ErrorCode::kConcurrentTransactions)
          << "InitProducerId(" << id << "): " << r->error_code;
      ASSERT_LT(std::chrono::steady_clock::now(), deadline);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  std::optional<ListTransactionsResponse> list(std::optional<std::string_view> pattern, int16_t version = 2,
                                               std::vector<std::string_view> states = {}) {
    ListTransactionsRequest req;
    req.state_filters = std::move(states);
    req.transactional_id_pattern = pattern;
    const int32_t cid = ++cid_;
    c_.send(req, version, cid);
    return c_.receive<ListTransactionsResponse>(version, cid);
  }

  static std::set<std::string> ids(const ListTransactionsResponse& r) {
    std::set<std::string> out;
    for (const auto& t : r.transaction_states) out.insert(t.transactional_id);
    return out;
  }

  InProcessBroker b_;
  WireClient c_;
  int32_t cid_ = 0;
};

TEST_F(ListTransactionsTest, NullOrEmptyPatternListsEveryTransaction) {
  const std::set<std::string> all = {"orders-1", "orders-2", "payments-1", "xorders-1"};
  for (int16_t v : {0, 1, 2}) {
    SCOPED_TRACE("v" + std::to_string(v));
    auto r = list(std::nullopt, v);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->error_code, ErrorCode::kNone);
    EXPECT_EQ(ids(*r), all);
    for (const auto& t : r->transaction_states) {
      EXPECT_EQ(t.transaction_state, "Empty");
      EXPECT_GE(t.producer_id, 0);
    }
  }
  auto empty = list("");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->error_code, ErrorCode::kNone);
  EXPECT_EQ(ids(*empty), all);
}

// The pattern must match the whole id: "orders-.*" does not select "xorders-1", and a
// bare prefix selects nothing; it combines with the other filters (AND).
TEST_F(ListTransactionsTest, PatternMatchesWholeIdsAndCombinesWithOtherFilters) {
  auto orders = list("orders-.*");
  ASSERT_TRUE(orders);
  EXPECT_EQ(orders->error_code, ErrorCode::kNone);
  EXPECT_EQ(ids(*orders), (std::set<std::string>{"orders-1", "orders-2"}));

  auto any_one = list(".*-1");
  ASSERT_TRUE(any_one);
  EXPECT_EQ(ids(*any_one), (std::set<std::string>{"orders-1", "payments-1", "xorders-1"}));

  auto prefix = list("orders");
  ASSERT_TRUE(prefix);
  EXPECT_EQ(prefix->error_code, ErrorCode::kNone);
  EXPECT_TRUE(prefix->transaction_states.empty());

  auto alternation = list("(payments|xorders)-[0-9]+");
  ASSERT_TRUE(alternation);
  EXPECT_EQ(ids(*alternation), (std::set<std::string>{"payments-1", "xorders-1"}));

  auto ongoing_orders = list("orders-.*", 2, {"Ongoing"});
  ASSERT_TRUE(ongoing_orders);
  EXPECT_EQ(ongoing_orders->error_code, ErrorCode::kNone);
  EXPECT_TRUE(ongoing_orders->transaction_states.empty()) << "no transaction is open";
}

TEST_F(ListTransactionsTest, InvalidPatternIsInvalidRegularExpression) {
  for (std::string_view bad : {"(ab(cd", "ab)", "[z-a]", "*", "a{2,1}", "\\"}) {
    SCOPED_TRACE(std::string(bad));
    auto r = list(bad);
    ASSERT_TRUE(r) << "the connection must stay open";
    EXPECT_EQ(r->error_code, ErrorCode::kInvalidRegularExpression);
    EXPECT_EQ(r->error_code, ErrorCode::kInvalidRegularExpression);
    EXPECT_TRUE(r->transaction_states.empty());
  }
  auto after = list("orders-1");
  ASSERT_TRUE(after);
  EXPECT_EQ(ids(*after), std::set<std::string>{"orders-1"});
}

// Nested quantifiers that take a backtracking engine exponential time (or its
// recursion the stack), a long run of them, and a 100 KB pattern: each is answered
// within seconds, an oversized one with INVALID_REGULAR_EXPRESSION.
TEST_F(ListTransactionsTest, HostilePatternsGetAnAnswerNotACrashOrAHang) {
  const auto start = std::chrono::steady_clock::now();

  auto nested = list("(((((a*)*)*)*)*)");
  ASSERT_TRUE(nested);
  EXPECT_EQ(nested->error_code, ErrorCode::kNone);
  EXPECT_TRUE(nested->transaction_states.empty());

  auto catastrophic = list("(x+x+)+y");
  ASSERT_TRUE(catastrophic);
  EXPECT_TRUE(catastrophic->transaction_states.empty());

  std::string deep;  // 5000 nested groups: recursion depth a recursive engine cannot take
  for (int i = 0; i < 5000; ++i) deep += '(';
  deep += 'a';
  for (int i = 0; i < 5000; ++i) deep += ")*";
  auto deep_r = list(deep);
  ASSERT_TRUE(deep_r) << "the broker must answer, not crash";
  EXPECT_TRUE(deep_r->error_code == ErrorCode::kNone || deep_r->error_code == ErrorCode::kInvalidRegularExpression) << deep_r->error_code;
  EXPECT_TRUE(deep_r->transaction_states.empty());

  const std::string huge(100 * 1024, 'a');
  auto huge_r = list(huge);
  ASSERT_TRUE(huge_r);
  EXPECT_EQ(huge_r->error_code, ErrorCode::kInvalidRegularExpression);
  EXPECT_TRUE(huge_r->transaction_states.empty());

  std::string repeats;  // many counted repetitions: a program too big for max_mem
  for (int i = 0; i < 200; ++i) repeats += "(a{1000}){1000}";
  auto repeats_r = list(repeats);
  ASSERT_TRUE(repeats_r);
  EXPECT_EQ(repeats_r->error_code, ErrorCode::kInvalidRegularExpression);

  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  auto after = list("payments-.*");
  ASSERT_TRUE(after);
  EXPECT_EQ(ids(*after), std::set<std::string>{"payments-1"});
}

}  // namespace
}  // namespace rokka
