// Thin helpers over librdkafka's C++ API for tests: a producer that waits for
// every delivery report, and a consumer that collects messages.
#pragma once

#include <librdkafka/rdkafkacpp.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rokka::testutil {

struct Delivered {
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;
  RdKafka::ErrorCode error = RdKafka::ERR_NO_ERROR;
  std::optional<std::string> key;
  std::optional<std::string> value;
  intptr_t opaque = 0;  // what produce() was given as `opaque`
};

inline std::unique_ptr<RdKafka::Conf> make_conf(const std::map<std::string, std::string>& settings) {
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  std::string err;
  for (const auto& [k, v] : settings) {
    if (conf->set(k, v, err) != RdKafka::Conf::CONF_OK) throw std::runtime_error(k + ": " + err);
  }
  return conf;
}

class DeliveryCollector : public RdKafka::DeliveryReportCb {
 public:
  void dr_cb(RdKafka::Message& m) override {
    Delivered d;
    d.topic = m.topic_name();
    d.partition = m.partition();
    d.offset = m.offset();
    d.error = m.err();
    if (m.key()) d.key = *m.key();
    if (m.payload()) d.value = std::string(static_cast<const char*>(m.payload()), m.len());
    d.opaque = reinterpret_cast<intptr_t>(m.msg_opaque());
    delivered.push_back(std::move(d));
  }
  std::vector<Delivered> delivered;
};

class TestProducer {
 public:
  TestProducer(const std::string& bootstrap, std::map<std::string, std::string> settings = {}) {
    settings["bootstrap.servers"] = bootstrap;
    auto conf = make_conf(settings);
    std::string err;
    conf->set("dr_cb", &collector_, err);
    producer_.reset(RdKafka::Producer::create(conf.get(), err));
    if (!producer_) throw std::runtime_error("producer: " + err);
  }
  ~TestProducer() {
    if (producer_) producer_->flush(10000);
  }

  RdKafka::ErrorCode produce(const std::string& topic, int32_t partition, const std::optional<std::string>& key,
                             const std::optional<std::string>& value, RdKafka::Headers* headers = nullptr,
                             int64_t timestamp = 0, intptr_t opaque = 0) {
    for (;;) {
      auto err = producer_->produce(topic, partition, RdKafka::Producer::RK_MSG_COPY,
                                    value ? const_cast<char*>(value->data()) : nullptr, value ? value->size() : 0,
                                    key ? key->data() : nullptr, key ? key->size() : 0, timestamp, headers,
                                    reinterpret_cast<void*>(opaque));
      if (err != RdKafka::ERR__QUEUE_FULL) return err;
      producer_->poll(10);
    }
  }
  // Waits until every message is acknowledged (or failed); returns the reports.
  std::vector<Delivered>& flush(std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    producer_->flush(static_cast<int>(timeout.count()));
    return collector_.delivered;
  }
  RdKafka::Producer& handle() { return *producer_; }

 private:
  DeliveryCollector collector_;
  std::unique_ptr<RdKafka::Producer> producer_;
};

// The first error event a client reports (set as its event_cb), and its text.
struct FirstErrorEvent : RdKafka::EventCb {
  void event_cb(RdKafka::Event& e) override {
    if (e.type() == RdKafka::Event::EVENT_ERROR && first == RdKafka::ERR_NO_ERROR) {
      first = e.err();
      message = e.str();
    }
  }
  RdKafka::ErrorCode first = RdKafka::ERR_NO_ERROR;
  std::string message;
};

struct Consumed {
  int32_t partition = -1;
  int64_t offset = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  int64_t timestamp = -1;
  RdKafka::MessageTimestamp::MessageTimestampType timestamp_type = RdKafka::MessageTimestamp::MSG_TIMESTAMP_NOT_AVAILABLE;
};

inline Consumed to_consumed(RdKafka::Message& m) {
  Consumed c;
  c.partition = m.partition();
  c.offset = m.offset();
  if (m.key()) c.key = *m.key();
  if (m.payload()) c.value = std::string(static_cast<const char*>(m.payload()), m.len());
  if (auto* h = m.headers()) {
    for (const auto& hdr : h->get_all())
      c.headers.emplace_back(hdr.key(), hdr.value() ? std::optional<std::string>(std::string(
                                                          static_cast<const char*>(hdr.value()), hdr.value_size()))
                                                    : std::nullopt);
  }
  c.timestamp = m.timestamp().timestamp;
  c.timestamp_type = m.timestamp().type;
  return c;
}

// Reads partitions from given offsets (assign, no group) until `count` messages
// arrived or `timeout` passed.
inline std::vector<Consumed> consume_assigned(const std::string& bootstrap, const std::string& topic,
                                              const std::vector<int32_t>& partitions, int64_t from_offset,
                                              size_t count, std::chrono::milliseconds timeout = std::chrono::seconds(60),
                                              std::map<std::string, std::string> settings = {}) {
  settings["bootstrap.servers"] = bootstrap;
  settings.emplace("group.id", "rokka-test-assign");
  settings.emplace("enable.auto.commit", "false");
  auto conf = make_conf(settings);
  std::string err;
  std::unique_ptr<RdKafka::KafkaConsumer> consumer(RdKafka::KafkaConsumer::create(conf.get(), err));
  if (!consumer) throw std::runtime_error("consumer: " + err);
  std::vector<RdKafka::TopicPartition*> tps;
  for (int32_t p : partitions) tps.push_back(RdKafka::TopicPartition::create(topic, p, from_offset));
  consumer->assign(tps);
  RdKafka::TopicPartition::destroy(tps);
  std::vector<Consumed> out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
    std::unique_ptr<RdKafka::Message> m(consumer->consume(100));
    if (m->err() == RdKafka::ERR_NO_ERROR) out.push_back(to_consumed(*m));
  }
  consumer->close();
  return out;
}

}  // namespace rokka::testutil

namespace rokka::testutil {

// The high watermark of each partition 0..n-1, asked with ListOffsets.
inline std::vector<int64_t> high_watermarks(const std::string& bootstrap, const std::string& topic, int partitions) {
  auto conf = make_conf({{"bootstrap.servers", bootstrap}});
  std::string err;
  std::unique_ptr<RdKafka::Producer> p(RdKafka::Producer::create(conf.get(), err));
  if (!p) throw std::runtime_error(err);
  std::vector<int64_t> out;
  for (int i = 0; i < partitions; ++i) {
    int64_t low = -1, high = -1;
    auto e = p->query_watermark_offsets(topic, i, &low, &high, 10000);
    if (e != RdKafka::ERR_NO_ERROR) throw std::runtime_error("watermarks: " + RdKafka::err2str(e));
    out.push_back(high);
  }
  return out;
}

}  // namespace rokka::testutil
