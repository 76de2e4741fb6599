// librdkafka against the in-process broker: the handlers' wire
// behaviour with a real client. The same flows run against build/rokka with the
// real store in tests/integration/.
#include <gtest/gtest.h>

#include "tests/testutil/broker_fixture.h"
#include "tests/testutil/kafka_clients.h"

namespace rokka {
namespace {

using testutil::InProcessBroker;

TEST(LibrdkafkaTest, ProduceThenConsumeReturnsIdenticalBytesAndDenseOffsets) {
  InProcessBroker b;
  const std::string topic = "t1";
  const int n = 1000;
  {
    testutil::TestProducer p(b.bootstrap(), {{"linger.ms", "5"}});
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(p.produce(topic, 0, "k" + std::to_string(i), "value-" + std::to_string(i)), RdKafka::ERR_NO_ERROR);
    }
    auto& d = p.flush();
    ASSERT_EQ(d.size(), static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(d[i].error, RdKafka::ERR_NO_ERROR) << RdKafka::err2str(d[i].error);
      EXPECT_EQ(d[i].offset, i);
    }
  }
  auto got = testutil::consume_assigned(b.bootstrap(), topic, {0}, 0, n);
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(got[i].offset, i);
    EXPECT_EQ(got[i].key, "k" + std::to_string(i));
    EXPECT_EQ(got[i].value, "value-" + std::to_string(i));
  }
}

}  // namespace
}  // namespace rokka
