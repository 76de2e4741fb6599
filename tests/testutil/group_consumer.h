// A librdkafka KafkaConsumer in a consumer group, for integration tests. It records
// what a user of the group would see: every rebalance callback (eager and incremental
// cooperative), the current assignment, every message handed to the application,
// which commits the broker acknowledged, and the "uncommitted windows" -- messages
// processed but not yet committed when the consumer lost a partition, the only ones
// at-least-once delivery may hand to the group again.
//
// Single-threaded: poll the consumer from the test thread only (poll_all() round-robins
// several). Every consumer tracks one topic.
#pragma once

#include <gtest/gtest.h>
#include <librdkafka/rdkafkacpp.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::testutil {

// Consumer settings that keep group tests fast: rebalances are noticed within one
// 100 ms heartbeat, and nothing is committed behind the test's back.
inline std::map<std::string, std::string> fast_group_settings() {
  return {{"enable.auto.commit", "false"},
          {"auto.offset.reset", "earliest"},
          {"session.timeout.ms", "6000"},
          {"heartbeat.interval.ms", "100"},
          {"fetch.wait.max.ms", "50"},
          {"topic.metadata.refresh.interval.ms", "1000"}};
}

// Broker overrides for group tests: no initial rebalance delay, short sessions allowed.
inline std::vector<std::pair<std::string, std::string>> fast_group_broker(int num_partitions = 12) {
  return {{"group.initial.rebalance.delay.ms", "0"},
          {"group.min.session.timeout.ms", "500"},
          {"num.partitions", std::to_string(num_partitions)}};
}

// build/rokka with fast_group_broker() settings in its own temp directory, started.
struct GroupBroker {
  explicit GroupBroker(int num_partitions) : process(make_data_dir(dir), fast_group_broker(num_partitions)) {
    process.start();
  }
  // A failed test shows the broker's log (the temp directory goes with it).
  ~GroupBroker() {
    if (::testing::Test::HasFailure()) ADD_FAILURE() << "broker log (tail):\n" << process.log_tail(30000);
  }
  std::string bootstrap() const { return process.bootstrap(); }

  TempDir dir;
  RokkaProcess process;

 private:
  static std::filesystem::path make_data_dir(const TempDir& d) {
    std::filesystem::create_directories(d / "data");
    return d / "data";
  }
};

class GroupConsumer : public RdKafka::RebalanceCb {
 public:
  struct Rebalance {
    bool assigned = false;  // false: revoked (or lost)
    std::set<int32_t> partitions;
  };
  struct Processed {
    int32_t partition = -1;
    int64_t offset = -1;
    std::string value;
  };

  // Subscribes to `topic` in `group`. `settings` override fast_group_settings().
  GroupConsumer(const std::string& bootstrap, const std::string& group, std::string topic,
                const std::map<std::string, std::string>& settings = {})
      : topic_(std::move(topic)) {
    auto all = fast_group_settings();
    for (const auto& [k, v] : settings) all[k] = v;
    all["bootstrap.servers"] = bootstrap;
    all["group.id"] = group;
    auto conf = make_conf(all);
    std::string err;
    if (conf->set("rebalance_cb", static_cast<RdKafka::RebalanceCb*>(this), err) != RdKafka::Conf::CONF_OK)
      throw std::runtime_error(err);
    consumer_.reset(RdKafka::KafkaConsumer::create(conf.get(), err));
    if (!consumer_) throw std::runtime_error("consumer: " + err);
    if (auto e = consumer_->subscribe({topic_}); e != RdKafka::ERR_NO_ERROR)
      throw std::runtime_error("subscribe: " + RdKafka::err2str(e));
  }
  ~GroupConsumer() override { close(); }
  GroupConsumer(const GroupConsumer&) = delete;
  GroupConsumer& operator=(const GroupConsumer&) = delete;

  // Leaves the group (a static member does not send LeaveGroup). Idempotent.
  void close() {
    if (consumer_ && !closed_) {
      closed_ = true;
      consumer_->close();
    }
  }

  // Waits up to `timeout` for one message; a message is "processed" once returned.
  // Errors other than "nothing yet" are kept in last_error().
  std::optional<Processed> poll(std::chrono::milliseconds timeout) {
    std::unique_ptr<RdKafka::Message> m(consumer_->consume(static_cast<int>(timeout.count())));
    if (m->err() == RdKafka::ERR_NO_ERROR) {
      Processed p{m->partition(), m->offset(),
                  m->payload() ? std::string(static_cast<const char*>(m->payload()), m->len()) : std::string()};
      processed_.push_back(p);
      next_[p.partition] = p.offset + 1;
      return p;
    }
    if (m->err() != RdKafka::ERR__TIMED_OUT && m->err() != RdKafka::ERR__PARTITION_EOF) last_error_ = m->err();
    return std::nullopt;
  }

  // Commits, synchronously, the position after the last processed message of each
  // partition it still owns. Returns the broker's answer; the commit counts as
  // acknowledged (committed()) only on success.
  RdKafka::ErrorCode commit_processed() {
    std::vector<RdKafka::TopicPartition*> tps;
    for (const auto& [p, next] : next_) {
      auto acked = committed_.find(p);
      if (owned_.count(p) && (acked == committed_.end() || acked->second != next))
        tps.push_back(RdKafka::TopicPartition::create(topic_, p, next));
    }
    if (tps.empty()) return RdKafka::ERR_NO_ERROR;
    RdKafka::ErrorCode e = consumer_->commitSync(tps);
    std::ostringstream note;
    note << "commit " << RdKafka::err2str(e) << ":";
    if (e == RdKafka::ERR_NO_ERROR) {
      for (auto* tp : tps) {
        note << " p" << tp->partition() << "=" << tp->offset();
        if (tp->err() == RdKafka::ERR_NO_ERROR) {
          committed_[tp->partition()] = tp->offset();
        } else {
          e = tp->err();
          note << "(" << RdKafka::err2str(e) << ")";
        }
      }
    }
    history_.push_back(note.str());
    RdKafka::TopicPartition::destroy(tps);
    return e;
  }

  void rebalance_cb(RdKafka::KafkaConsumer* c, RdKafka::ErrorCode err,
                    std::vector<RdKafka::TopicPartition*>& parts) override {
    const bool cooperative = c->rebalance_protocol() == "COOPERATIVE";
    Rebalance r;
    r.assigned = err == RdKafka::ERR__ASSIGN_PARTITIONS;
    for (auto* tp : parts) r.partitions.insert(tp->partition());
    if (r.assigned) {
      for (int32_t p : r.partitions) {
        if (!owned_.insert(p).second) double_assigned_ = true;
        committed_.erase(p);
        next_.erase(p);
      }
      RdKafka::Error* e = cooperative ? c->incremental_assign(parts) : nullptr;
      if (!cooperative) c->assign(parts);
      delete e;
    } else {
      for (int32_t p : r.partitions) {
        owned_.erase(p);
        record_uncommitted_window(p);
      }
      RdKafka::Error* e = cooperative ? c->incremental_unassign(parts) : nullptr;
      if (!cooperative) c->unassign();
      delete e;
    }
    std::ostringstream note;
    note << (r.assigned ? "assigned" : "revoked") << " (after " << processed_.size() << " processed):";
    for (int32_t p : r.partitions) note << " " << p;
    history_.push_back(note.str());
    rebalances_.push_back(std::move(r));
  }

  // Rebalances and commits in order, with what was processed in between (for failure messages).
  std::string history() const {
    std::ostringstream out;
    for (const std::string& line : history_) out << "  " << line << "\n";
    std::map<int32_t, std::vector<int64_t>> by_partition;
    for (const Processed& m : processed_) by_partition[m.partition].push_back(m.offset);
    for (const auto& [p, offsets] : by_partition) {
      out << "  processed p" << p << ":";
      for (int64_t o : offsets) out << " " << o;
      out << "\n";
    }
    return out.str();
  }

  // Partitions owned now (after the last rebalance callback).
  const std::set<int32_t>& owned() const { return owned_; }
  const std::vector<Rebalance>& rebalances() const { return rebalances_; }
  const std::vector<Processed>& processed() const { return processed_; }
  // An assign callback named a partition it already owned.
  bool double_assigned() const { return double_assigned_; }
  // (partition, offset) of messages processed past the last acknowledged commit of a
  // partition this consumer then lost.
  const std::set<std::pair<int32_t, int64_t>>& uncommitted_windows() const { return windows_; }
  std::optional<int64_t> acked_commit(int32_t partition) const {
    auto it = committed_.find(partition);
    return it == committed_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  RdKafka::ErrorCode last_error() const { return last_error_; }
  // The error that made the client unusable (e.g. FENCED_INSTANCE_ID), or NO_ERROR.
  RdKafka::ErrorCode fatal_error() const {
    std::string why;
    return consumer_->fatal_error(why);
  }
  RdKafka::KafkaConsumer& handle() { return *consumer_; }
  const std::string& topic() const { return topic_; }

 private:
  void record_uncommitted_window(int32_t p) {
    auto next = next_.find(p);
    if (next == next_.end()) return;
    auto acked = committed_.find(p);
    const int64_t from = acked == committed_.end() ? -1 : acked->second;
    for (const Processed& m : processed_) {
      if (m.partition == p && m.offset >= from && m.offset < next->second) windows_.insert({p, m.offset});
    }
    next_.erase(next);
    committed_.erase(p);
  }

  std::string topic_;
  std::unique_ptr<RdKafka::KafkaConsumer> consumer_;
  bool closed_ = false;
  std::set<int32_t> owned_;
  std::vector<Rebalance> rebalances_;
  std::vector<std::string> history_;
  std::vector<Processed> processed_;
  std::map<int32_t, int64_t> next_;       // partition -> offset after the last processed message
  std::map<int32_t, int64_t> committed_;  // partition -> last acknowledged commit
  std::set<std::pair<int32_t, int64_t>> windows_;
  bool double_assigned_ = false;
  RdKafka::ErrorCode last_error_ = RdKafka::ERR_NO_ERROR;
};

// Fails the test if two consumers own the same partition right now.
inline void expect_disjoint(const std::vector<GroupConsumer*>& consumers) {
  std::map<int32_t, size_t> owner;
  for (size_t i = 0; i < consumers.size(); ++i) {
    for (int32_t p : consumers[i]->owned()) {
      auto [it, fresh] = owner.emplace(p, i);
      EXPECT_TRUE(fresh) << "partition " << p << " owned by consumers " << it->second << " and " << i;
    }
  }
}

// Polls every consumer in turn (each up to `slice`) until `done()` holds or `timeout`
// passes; `on_message` sees each message as it is processed. After every poll no
// partition may be owned twice (expect_disjoint). Returns done().
inline bool poll_all_until(const std::vector<GroupConsumer*>& consumers, const std::function<bool()>& done,
                           std::chrono::milliseconds timeout = std::chrono::seconds(60),
                           const std::function<void(GroupConsumer&, const GroupConsumer::Processed&)>& on_message = {},
                           std::chrono::milliseconds slice = std::chrono::milliseconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    for (GroupConsumer* c : consumers) {
      if (auto m = c->poll(slice); m && on_message) on_message(*c, *m);
      expect_disjoint(consumers);
    }
  }
  return true;
}

// True when the consumers' assignments are disjoint, non-empty each, and together
// cover partitions 0..partitions-1: a settled group of these members.
inline bool settled(const std::vector<GroupConsumer*>& consumers, int partitions) {
  std::set<int32_t> all;
  size_t total = 0;
  for (const GroupConsumer* c : consumers) {
    if (c->owned().empty()) return false;
    all.insert(c->owned().begin(), c->owned().end());
    total += c->owned().size();
  }
  return total == static_cast<size_t>(partitions) && all.size() == total &&
         (all.empty() || (*all.begin() == 0 && *all.rbegin() == partitions - 1));
}

// settled(), and evenly: no member owns two partitions more than another (where the
// assignors that balance, roundrobin and cooperative-sticky, end).
inline bool balanced(const std::vector<GroupConsumer*>& consumers, int partitions) {
  if (!settled(consumers, partitions)) return false;
  const auto [least, most] = std::minmax_element(consumers.begin(), consumers.end(), [](auto* x, auto* y) {
    return x->owned().size() < y->owned().size();
  });
  return (*most)->owned().size() - (*least)->owned().size() <= 1;
}

}  // namespace rokka::testutil
