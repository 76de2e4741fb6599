// crash_harness: kill -9 trials against the real broker (build/rokka) with real
// librdkafka clients. Each trial, on one growing data directory:
//   1. two producers (acks=all; one idempotent, one not) write to a fresh topic and a
//      committer commits increasing group offsets, recording every acknowledgement;
//   2. the broker dies by SIGKILL: at a random moment, or (half the trials) from a
//      fault probe at a chosen file-system call (ROKKA_FAULT_PROBE: inside a group
//      commit, a segment roll, a checkpoint, ...), sometimes again during recovery;
//   3. it restarts on the same port; the producers keep going (their retries meet
//      the new process), then flush;
//   4. checks: every acknowledged (partition, offset) holds the acknowledged payload,
//      offsets are dense, the idempotent producer left no duplicate, acknowledged
//      committed offsets are there, and every earlier topic kept its high watermark.
// Small segments (2 MiB) and frequent checkpoints make rolls and checkpoints common.
//
//   crash_harness --trials N --flush-mode sync|async [--seed S] [--work-dir DIR]
// Prints one line per trial and a summary; exits 1 on any violation.
#include <librdkafka/rdkafkacpp.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::crash {
namespace {

using Clock = std::chrono::steady_clock;
using testutil::RokkaProcess;

constexpr int kPartitions = 4;

struct Options {
  int trials = 3;
  std::string flush_mode = "sync";
  uint64_t seed = 1;
  std::string work_dir;  // empty: a temporary directory, removed at the end
};

// FNV-1a: payload identity in the ledger.
uint64_t hash_of(const void* data, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; ++i) h = (h ^ static_cast<const uint8_t*>(data)[i]) * 1099511628211ull;
  return h;
}

// What the broker acknowledged during one trial.
struct Ledger {
  struct Ack {
    int32_t partition;
    int64_t offset;
    uint64_t hash;
  };
  std::mutex mu;
  std::vector<Ack> acks;
  int64_t failed = 0;
  std::map<int32_t, int64_t> committed;  // partition -> largest acknowledged commit
};

// A producer thread: random payloads (id prefix + filler) to random partitions,
// ~2,000 messages/s, delivery reports into the ledger.
class Producer : public RdKafka::DeliveryReportCb {
 public:
  Producer(const std::string& bootstrap, bool idempotent, Ledger& ledger, uint64_t seed)
      : ledger_(ledger), idempotent_(idempotent), rng_(seed) {
    auto conf = testutil::make_conf({{"bootstrap.servers", bootstrap},
                                     {"acks", "all"},
                                     {"enable.idempotence", idempotent ? "true" : "false"},
                                     {"linger.ms", "5"},
                                     {"message.timeout.ms", "60000"},
                                     {"reconnect.backoff.max.ms", "500"},
                                     {"retry.backoff.ms", "100"}});
    std::string err;
    conf->set("dr_cb", static_cast<RdKafka::DeliveryReportCb*>(this), err);
    producer_.reset(RdKafka::Producer::create(conf.get(), err));
    if (!producer_) throw std::runtime_error("producer: " + err);
  }

  void start(const std::string& topic) {
    thread_ = std::thread([this, topic] { run(topic); });
  }
  // Stops producing and waits for every delivery report.
  void finish() {
    stop_ = true;
    thread_.join();
    producer_->flush(90000);
    if (producer_->outq_len() > 0) {
      std::fprintf(stderr, "producer: %d messages without a delivery report after 90 s\n", producer_->outq_len());
      producer_->purge(RdKafka::Producer::PURGE_QUEUE | RdKafka::Producer::PURGE_INFLIGHT);
      producer_->flush(5000);
    }
  }
  const std::string& tag() const { return tag_; }

  void dr_cb(RdKafka::Message& m) override {
    std::lock_guard lock(ledger_.mu);
    if (m.err() != RdKafka::ERR_NO_ERROR) {
      ++ledger_.failed;
      return;
    }
    ledger_.acks.push_back({m.partition(), m.offset(), hash_of(m.payload(), m.len())});
  }

 private:
  void run(const std::string& topic) {
    int64_t seq = 0;
    const auto begin = Clock::now();
    while (!stop_) {
      std::string value = tag_ + std::to_string(seq) + ":";
      value.resize(value.size() + std::uniform_int_distribution<size_t>(50, 2000)(rng_), static_cast<char>('a' + seq % 26));
      const auto err = producer_->produce(topic, RdKafka::Topic::PARTITION_UA, RdKafka::Producer::RK_MSG_COPY,
                                          value.data(), value.size(), nullptr, 0, 0, nullptr);
      if (err == RdKafka::ERR__QUEUE_FULL) {
        producer_->poll(10);
        continue;
      }
      ++seq;
      producer_->poll(0);
      // ~2,000 messages/s: about 2 MB/s per producer.
      const auto due = begin + std::chrono::microseconds(seq * 500);
      if (due > Clock::now()) std::this_thread::sleep_until(due);
    }
  }

  Ledger& ledger_;
  bool idempotent_;
  std::mt19937_64 rng_;
  std::string tag_ = idempotent_ ? "idem-" : "plain-";
  std::unique_ptr<RdKafka::Producer> producer_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

// Commits increasing offsets for a group every ~20 ms (a simple consumer: assign, no
// subscription); records each commit the broker acknowledged.
class Committer {
 public:
  Committer(const std::string& bootstrap, const std::string& group, const std::string& topic, Ledger& ledger)
      : ledger_(ledger), topic_(topic) {
    auto conf = testutil::make_conf({{"bootstrap.servers", bootstrap},
                                     {"group.id", group},
                                     {"enable.auto.commit", "false"},
                                     {"reconnect.backoff.max.ms", "500"}});
    std::string err;
    consumer_.reset(RdKafka::KafkaConsumer::create(conf.get(), err));
    if (!consumer_) throw std::runtime_error("consumer: " + err);
    thread_ = std::thread([this] { run(); });
  }
  ~Committer() {
    stop_ = true;
    thread_.join();
    consumer_->close();
  }

  // The committed offsets the broker reports now, per partition (-1001 = none).
  static std::map<int32_t, int64_t> committed(const std::string& bootstrap, const std::string& group,
                                              const std::string& topic) {
    auto conf = testutil::make_conf({{"bootstrap.servers", bootstrap}, {"group.id", group}});
    std::string err;
    std::unique_ptr<RdKafka::KafkaConsumer> c(RdKafka::KafkaConsumer::create(conf.get(), err));
    std::vector<RdKafka::TopicPartition*> tps;
    for (int p = 0; p < kPartitions; ++p) tps.push_back(RdKafka::TopicPartition::create(topic, p));
    std::map<int32_t, int64_t> out;
    if (c->committed(tps, 30000) == RdKafka::ERR_NO_ERROR) {
      for (auto* tp : tps) out[tp->partition()] = tp->offset();
    }
    RdKafka::TopicPartition::destroy(tps);
    c->close();
    return out;
  }

 private:
  void run() {
    int64_t next = 1;
    while (!stop_) {
      std::vector<RdKafka::TopicPartition*> tps;
      for (int p = 0; p < kPartitions; ++p) tps.push_back(RdKafka::TopicPartition::create(topic_, p, next + p));
      if (consumer_->commitSync(tps) == RdKafka::ERR_NO_ERROR) {
        bool all = true;
        for (auto* tp : tps) all = all && tp->err() == RdKafka::ERR_NO_ERROR;
        if (all) {
          std::lock_guard lock(ledger_.mu);
          for (auto* tp : tps) ledger_.committed[tp->partition()] = tp->offset();
        }
      }
      RdKafka::TopicPartition::destroy(tps);
      next += 10;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  Ledger& ledger_;
  std::string topic_;
  std::unique_ptr<RdKafka::KafkaConsumer> consumer_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

// Every record of partitions 0..n-1 from offset 0 up to the high watermarks, as
// (partition, offset) -> payload hash; librdkafka checks the batch CRCs. An empty
// optional if the records cannot all be read within a minute.
std::optional<std::map<std::pair<int32_t, int64_t>, std::string>> read_topic(const std::string& bootstrap,
                                                                              const std::string& topic,
                                                                              const std::vector<int64_t>& hw) {
  auto conf = testutil::make_conf(
      {{"bootstrap.servers", bootstrap}, {"group.id", "crash-reader"}, {"enable.auto.commit", "false"}, {"check.crcs", "true"}});
  std::string err;
  std::unique_ptr<RdKafka::KafkaConsumer> c(RdKafka::KafkaConsumer::create(conf.get(), err));
  std::vector<RdKafka::TopicPartition*> tps;
  size_t remaining = 0;
  for (int p = 0; p < kPartitions; ++p) {
    tps.push_back(RdKafka::TopicPartition::create(topic, p, 0));
    remaining += static_cast<size_t>(hw[p]);
  }
  c->assign(tps);
  RdKafka::TopicPartition::destroy(tps);
  std::map<std::pair<int32_t, int64_t>, std::string> out;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (out.size() < remaining && Clock::now() < deadline) {
    std::unique_ptr<RdKafka::Message> m(c->consume(100));
    if (m->err() == RdKafka::ERR_NO_ERROR && m->offset() < hw[m->partition()])
      out[{m->partition(), m->offset()}] = std::string(static_cast<const char*>(m->payload()), m->len());
    else if (m->err() != RdKafka::ERR_NO_ERROR && m->err() != RdKafka::ERR__TIMED_OUT &&
             m->err() != RdKafka::ERR__PARTITION_EOF)
      std::fprintf(stderr, "read %s: %s\n", topic.c_str(), m->errstr().c_str());
  }
  c->close();
  if (out.size() < remaining) return std::nullopt;
  return out;
}

struct Totals {
  int trials = 0, probe_kills = 0, timer_kills = 0, recovery_kills = 0;
  int64_t acked = 0, failed = 0, lost = 0, wrong_bytes = 0, holes = 0, duplicates = 0, commits_lost = 0,
          watermarks_moved = 0;
  bool restart_failed = false;
  int64_t violations() const {
    return lost + wrong_bytes + holes + duplicates + commits_lost + watermarks_moved + (restart_failed ? 1 : 0);
  }
};

class Harness {
 public:
  explicit Harness(const Options& o) : options_(o), rng_(o.seed) {}

  int run() {
    std::filesystem::path dir = options_.work_dir.empty() ? temp_.path() : std::filesystem::path(options_.work_dir);
    std::filesystem::create_directories(dir / "data");
    RokkaProcess broker(dir / "data", {{"num.partitions", std::to_string(kPartitions)},
                                       {"store.flush.mode", options_.flush_mode},
                                       {"log.segment.bytes", "2097152"},
                                       {"message.max.bytes", "1048576"},
                                       {"store.checkpoint.interval.ms", "200"},
                                       {"store.checkpoint.interval.bytes", "524288"},
                                       {"log.flush.interval.ms", "50"},
                                       {"log.retention.bytes", "268435456"},
                                       {"log.retention.check.interval.ms", "1000"},
                                       {"group.initial.rebalance.delay.ms", "0"}});
    broker.start();
    for (int t = 0; t < options_.trials && !totals_.restart_failed; ++t) trial(broker, t);
    broker.stop();
    std::printf(
        "SUMMARY flush_mode=%s trials=%d kills: timer=%d probe=%d during_recovery=%d | acked=%lld failed=%lld | "
        "lost=%lld wrong_bytes=%lld holes=%lld idempotent_duplicates=%lld commits_lost=%lld watermarks_moved=%lld "
        "restart_failed=%d\n",
        options_.flush_mode.c_str(), totals_.trials, totals_.timer_kills, totals_.probe_kills, totals_.recovery_kills,
        static_cast<long long>(totals_.acked), static_cast<long long>(totals_.failed),
        static_cast<long long>(totals_.lost), static_cast<long long>(totals_.wrong_bytes),
        static_cast<long long>(totals_.holes), static_cast<long long>(totals_.duplicates),
        static_cast<long long>(totals_.commits_lost), static_cast<long long>(totals_.watermarks_moved),
        totals_.restart_failed ? 1 : 0);
    if (totals_.violations() > 0) std::printf("broker log tail:\n%s\n", broker.log_tail(6000).c_str());
    return totals_.violations() == 0 ? 0 : 1;
  }

 private:
  // A fault probe spec for the next start, or "" (then a timer kills).
  std::string pick_probe() {
    if (rng_() % 2 == 0) return "";
    struct Choice {
      const char* call;
      int max_n;
    };
    static constexpr Choice kChoices[] = {{"write", 400}, {"sync", 300},   {"sync_dir", 8}, {"create", 6},
                                          {"rename", 6},  {"remove", 3},   {"punch_hole", 2}};
    const Choice& c = kChoices[rng_() % std::size(kChoices)];
    return std::string(c.call) + ":" + std::to_string(1 + rng_() % c.max_n);
  }

  // Starts the broker with ROKKA_FAULT_PROBE=probe (if any); a probe that fires during
  // start-up counts as a kill during recovery, and the broker starts again without it.
  void start(RokkaProcess& broker, const std::string& probe) {
    if (!probe.empty()) ::setenv("ROKKA_FAULT_PROBE", probe.c_str(), 1);
    try {
      broker.start();
    } catch (const std::exception&) {
      ::unsetenv("ROKKA_FAULT_PROBE");
      if (probe.empty()) throw;
      ++totals_.recovery_kills;
      broker.start();
    }
    ::unsetenv("ROKKA_FAULT_PROBE");
  }

  void trial(RokkaProcess& broker, int t) {
    const std::string topic = "crash-" + std::to_string(t);
    const std::string group = "crash-group-" + std::to_string(t);
    Ledger ledger;
    const auto t0 = Clock::now();
    std::string how;
    // Half the trials run the broker with a fault probe armed (from a clean restart).
    const std::string probe = pick_probe();
    if (!probe.empty()) {
      broker.stop();
      start(broker, probe);
    }
    {
      Producer idem(broker.bootstrap(), true, ledger, rng_());
      Producer plain(broker.bootstrap(), false, ledger, rng_());
      idem.start(topic);
      plain.start(topic);
      std::optional<Committer> committer;
      committer.emplace(broker.bootstrap(), group, topic, ledger);

      const auto kill_at = Clock::now() + std::chrono::milliseconds(100 + rng_() % 1400);
      while (Clock::now() < kill_at && !broker.has_exited()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (broker.has_exited()) {
        ++totals_.probe_kills;
        how = "probe " + probe;
      } else {
        broker.kill9();
        ++totals_.timer_kills;
        how = probe.empty() ? "timer" : "timer (probe " + probe + " did not fire)";
      }
      // Sometimes crash again inside recovery (its checkpoint rename or the segment cut).
      try {
        start(broker, rng_() % 5 == 0 ? (rng_() % 2 ? "rename:1" : "sync:1") : "");
      } catch (const std::exception& e) {
        std::printf("trial %d: restart failed: %s\n", t, e.what());
        totals_.restart_failed = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      committer.reset();
      idem.finish();
      plain.finish();
    }
    verify(broker, t, topic, group, ledger);
    std::printf("trial %d (%s): kill by %s, acked=%zu failed=%lld, %.1f s\n", t, options_.flush_mode.c_str(),
                how.c_str(), ledger.acks.size(), static_cast<long long>(ledger.failed),
                std::chrono::duration<double>(Clock::now() - t0).count());
    std::fflush(stdout);
  }

  void verify(RokkaProcess& broker, int t, const std::string& topic, const std::string& group, Ledger& ledger) {
    ++totals_.trials;
    totals_.acked += static_cast<int64_t>(ledger.acks.size());
    totals_.failed += ledger.failed;
    const auto hw = testutil::high_watermarks(broker.bootstrap(), topic, kPartitions);
    auto records = read_topic(broker.bootstrap(), topic, hw);
    if (!records) {
      std::printf("trial %d: VIOLATION could not read every record below the high watermarks\n", t);
      ++totals_.holes;
      return;
    }
    // Dense: every offset below the high watermark was read (read_topic returned them all).
    for (const auto& a : ledger.acks) {
      auto it = records->find({a.partition, a.offset});
      if (it == records->end()) {
        std::printf("trial %d: VIOLATION acknowledged %d/%lld lost (hw %lld)\n", t, a.partition,
                    static_cast<long long>(a.offset), static_cast<long long>(hw[a.partition]));
        ++totals_.lost;
      } else if (hash_of(it->second.data(), it->second.size()) != a.hash) {
        std::printf("trial %d: VIOLATION %d/%lld holds other bytes than acknowledged\n", t, a.partition,
                    static_cast<long long>(a.offset));
        ++totals_.wrong_bytes;
      }
    }
    std::set<std::string> idempotent_ids;
    for (const auto& [at, value] : *records) {
      if (value.rfind("idem-", 0) != 0) continue;
      const std::string id = value.substr(0, value.find(':'));
      if (!idempotent_ids.insert(id).second) {
        std::printf("trial %d: VIOLATION idempotent message %s stored twice\n", t, id.c_str());
        ++totals_.duplicates;
      }
    }
    const auto committed = Committer::committed(broker.bootstrap(), group, topic);
    for (const auto& [p, offset] : ledger.committed) {
      auto it = committed.find(p);
      if (it == committed.end() || it->second < offset) {
        std::printf("trial %d: VIOLATION acknowledged commit %d=%lld lost (now %lld)\n", t, p,
                    static_cast<long long>(offset), static_cast<long long>(it == committed.end() ? -1 : it->second));
        ++totals_.commits_lost;
      }
    }
    for (const auto& [name, old_hw] : watermarks_) {
      if (testutil::high_watermarks(broker.bootstrap(), name, kPartitions) != old_hw) {
        std::printf("trial %d: VIOLATION high watermarks of %s moved\n", t, name.c_str());
        ++totals_.watermarks_moved;
      }
    }
    watermarks_[topic] = hw;
  }

  Options options_;
  std::mt19937_64 rng_;
  testutil::TempDir temp_;
  Totals totals_;
  std::map<std::string, std::vector<int64_t>> watermarks_;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--trials") {
      o.trials = std::atoi(v.c_str());
    } else if (k == "--flush-mode") {
      o.flush_mode = v;
    } else if (k == "--seed") {
      o.seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (k == "--work-dir") {
      o.work_dir = v;
    } else {
      throw std::runtime_error("unknown option " + k);
    }
  }
  return o;
}

}  // namespace
}  // namespace rokka::crash

int main(int argc, char** argv) {
  try {
    return rokka::crash::Harness(rokka::crash::parse(argc, argv)).run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crash_harness: %s\n", e.what());
    return 2;
  }
}
