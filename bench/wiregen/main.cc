// wiregen: a load generator that speaks the Kafka protocol itself, through protocol/'s codecs,
// so that its own cost per record does not grow with the partition count (librdkafka's does:
// issue 22). Modes: create-topics (CreateTopics in chunks), produce (pipelined ProduceRequests,
// one RecordBatch per partition with data, open or closed loop), consume (Fetch over many
// partitions per request, checking offsets are dense and batch CRCs) and metadata (the time and
// size of a Metadata request for all topics, and of one per topic). One JSON line on stdout,
// with loadgen's keys (bench/loadgen/json_line.h, run_stats.h). Run with --help for the options.
// Exit status: 0 clean run, 1 run finished with errors, 2 bad command line, 3 could not start.
#include <poll.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <deque>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bench/loadgen/json_figures.h"
#include "bench/loadgen/json_line.h"
#include "bench/loadgen/run_stats.h"
#include "bench/wiregen/connection.h"
#include "protocol/error_code.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "protocol/record.h"
#include "protocol/record_batch.h"
#include "storage/crc32c.h"

namespace rokka::bench::wiregen {
namespace {

using protocol::ApiKey;

constexpr const char* kUsage = R"(usage: wiregen --mode create-topics|produce|consume|metadata [options]

  --bootstrap HOST:PORT      a broker to start from (default 127.0.0.1:9092)
  --topic PREFIX             topics PREFIX-0 .. PREFIX-(T-1) (default wiregen)
  --topics T                 number of topics (default 1)
  --partitions P             partitions per topic, for create-topics (default 100); produce and
                             consume use every partition Metadata lists
  --timeout-s S              bound on every wait for a response and on the final drain (default 30)
create-topics:
  --create-chunk N           topics per CreateTopics request (default 100); an existing topic
                             is counted in topics_existing, not as an error
produce:
  --records-per-batch N      records per RecordBatch (default 16; a count's last batch may be short)
  --size BYTES               value bytes per record (default 1024, at least 32); key: 8 bytes
  --acks 1|0|-1              (default 1)
  --inflight N               requests in flight per connection (default 5)
  --max-request-bytes B      batches per request: as many as fit (default 1048576); each
                             partition at most once per request
  --connections-per-broker N (default 1); a broker's partitions are split between them
  --rate MSGS_PER_S          open loop: record i is due at t0 + i/rate, a batch is sent once its
                             last record is due and the window allows, latency counts from each
                             record's due time; 0 (default): closed loop, as fast as acks return
  --duration-s S             how long to produce (default 10)
  --count N                  produce exactly N records instead (over the whole run)
  --each-partition N         produce exactly N full batches to every partition instead (the
                             count is N x partitions x records-per-batch; each cycle over the
                             shuffled partitions gives every partition one batch)
  --counts-out FILE          write "topic partition records" per partition acked
consume:
  --from-offset O            every partition from offset O (default 0); reads until each
                             partition reaches the high watermark of its first response;
                             checks offsets are dense, each batch's CRC-32C, and that each
                             wiregen value names the partition it was read from
  --fetch-partitions N       partitions per Fetch request (default 1000)
  --expect-counts FILE       a produce run's --counts-out: each partition must hold exactly that
                             many records from --from-offset (mismatches are errors)
  --duration-s S / --count N stop earlier after S seconds or N records
metadata:
  --repeat N                 Metadata requests for all topics (null topic list), one at a time
                             (default 3): time and response bytes of each
  --per-topic-requests N     then N requests naming one topic each, topics picked at random
                             among --topic's --topics (default 1000): latency percentiles
  --help
)";

enum class Mode { kCreateTopics, kProduce, kConsume, kMetadata };

struct Options {
  Mode mode = Mode::kProduce;
  std::string mode_name = "produce";
  std::string bootstrap = "127.0.0.1:9092";
  std::string topic = "wiregen";
  int topics = 1;
  int partitions = 100;
  double timeout_s = 30;
  int create_chunk = 100;
  int records_per_batch = 16;
  int size = 1024;
  int acks = 1;
  int inflight = 5;
  int64_t max_request_bytes = 1 << 20;
  int connections_per_broker = 1;
  double rate = 0;
  double duration_s = 10;
  int64_t count = 0;
  int64_t each_partition = 0;
  std::string counts_out;
  int64_t from_offset = 0;
  int fetch_partitions = 1000;
  std::string expect_counts;
  int repeat = 3;
  int per_topic_requests = 1000;
};

bool parse_int(std::string_view text, int64_t* out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

// 0: parsed; 1: --help; 2: bad command line (message on stderr).
int parse_options(int argc, char** argv, Options* o) {
  auto bad = [](const std::string& why) {
    std::fprintf(stderr, "wiregen: %s (see --help)\n", why.c_str());
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return 1;
    if (i + 1 >= argc) return bad("missing value for " + arg);
    const std::string v = argv[++i];
    int64_t n = 0;
    auto integer = [&](int64_t lo, int64_t hi) {
      if (!parse_int(v, &n) || n < lo || n > hi) {
        bad("bad value for " + arg + ": " + v);
        return false;
      }
      return true;
    };
    auto real = [&](double* out, double lo) {
      char* end = nullptr;
      *out = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != 0 || !(*out >= lo)) {
        bad("bad value for " + arg + ": " + v);
        return false;
      }
      return true;
    };
    if (arg == "--mode") {
      o->mode_name = v;
      if (v == "create-topics") o->mode = Mode::kCreateTopics;
      else if (v == "produce") o->mode = Mode::kProduce;
      else if (v == "consume") o->mode = Mode::kConsume;
      else if (v == "metadata") o->mode = Mode::kMetadata;
      else return bad("unknown mode " + v);
    } else if (arg == "--bootstrap") {
      o->bootstrap = v;
    } else if (arg == "--topic") {
      o->topic = v;
    } else if (arg == "--topics") {
      if (!integer(1, 1'000'000)) return 2;
      o->topics = static_cast<int>(n);
    } else if (arg == "--partitions") {
      if (!integer(1, 1'000'000)) return 2;
      o->partitions = static_cast<int>(n);
    } else if (arg == "--timeout-s") {
      if (!real(&o->timeout_s, 0.001)) return 2;
    } else if (arg == "--create-chunk") {
      if (!integer(1, 100'000)) return 2;
      o->create_chunk = static_cast<int>(n);
    } else if (arg == "--records-per-batch") {
      if (!integer(1, 100'000)) return 2;
      o->records_per_batch = static_cast<int>(n);
    } else if (arg == "--size") {
      if (!integer(32, 16 << 20)) return 2;
      o->size = static_cast<int>(n);
    } else if (arg == "--acks") {
      if (!integer(-1, 1)) return 2;
      o->acks = static_cast<int>(n);
    } else if (arg == "--inflight") {
      if (!integer(1, 1000)) return 2;
      o->inflight = static_cast<int>(n);
    } else if (arg == "--max-request-bytes") {
      if (!integer(1024, 1 << 30)) return 2;
      o->max_request_bytes = n;
    } else if (arg == "--connections-per-broker") {
      if (!integer(1, 64)) return 2;
      o->connections_per_broker = static_cast<int>(n);
    } else if (arg == "--rate") {
      if (!real(&o->rate, 0)) return 2;
    } else if (arg == "--duration-s") {
      if (!real(&o->duration_s, 0.001)) return 2;
    } else if (arg == "--count") {
      if (!integer(1, INT64_MAX)) return 2;
      o->count = n;
    } else if (arg == "--each-partition") {
      if (!integer(1, 1'000'000)) return 2;
      o->each_partition = n;
    } else if (arg == "--repeat") {
      if (!integer(1, 1'000'000)) return 2;
      o->repeat = static_cast<int>(n);
    } else if (arg == "--per-topic-requests") {
      if (!integer(0, 100'000'000)) return 2;
      o->per_topic_requests = static_cast<int>(n);
    } else if (arg == "--counts-out") {
      o->counts_out = v;
    } else if (arg == "--from-offset") {
      if (!integer(0, INT64_MAX)) return 2;
      o->from_offset = n;
    } else if (arg == "--fetch-partitions") {
      if (!integer(1, 1'000'000)) return 2;
      o->fetch_partitions = static_cast<int>(n);
    } else if (arg == "--expect-counts") {
      o->expect_counts = v;
    } else {
      return bad("unknown option " + arg);
    }
  }
  return 0;
}

std::vector<std::string> topic_names(const Options& o) {
  std::vector<std::string> names;
  for (int i = 0; i < o.topics; ++i) names.push_back(o.topic + "-" + std::to_string(i));
  return names;
}

bool split_host_port(const std::string& hp, std::string* host, int* port) {
  const size_t colon = hp.rfind(':');
  int64_t p = 0;
  if (colon == std::string::npos || !parse_int(std::string_view(hp).substr(colon + 1), &p) || p <= 0 || p > 65535) {
    return false;
  }
  *host = hp.substr(0, colon);
  *port = static_cast<int>(p);
  return true;
}


int64_t wall_ms() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

std::string error_text(protocol::ErrorCode code) {
  return std::string(protocol::error_name(code)) + " (" + std::to_string(protocol::to_int(code)) + ")";
}

// ---- The cluster as one broker's ApiVersions and Metadata describe it ----

struct Versions {
  int16_t produce = -1, fetch = -1, metadata = -1, create_topics = -1;
};

// The highest version both sides speak within [lo, hi]; -1 if none.
int16_t pick(const protocol::ApiVersionsResponse& r, ApiKey key, int16_t lo, int16_t hi) {
  for (const auto& k : r.api_keys) {
    if (k.api_key != static_cast<int16_t>(key)) continue;
    const int16_t v = std::min(hi, k.max_version);
    return v >= std::max(lo, k.min_version) ? v : -1;
  }
  return -1;
}

bool negotiate(Connection& c, int timeout_ms, Versions* v, std::string* error) {
  protocol::ApiVersionsRequest req;
  auto resp = c.call<protocol::ApiVersionsResponse>(req, 0, timeout_ms);
  if (!resp) return *error = "ApiVersions: " + c.error(), false;
  if (resp->error_code != protocol::ErrorCode::kNone) return *error = "ApiVersions: " + error_text(resp->error_code), false;
  v->produce = pick(*resp, ApiKey::kProduce, 3, 9);
  v->fetch = pick(*resp, ApiKey::kFetch, 4, 12);  // 13+ names topics by id
  v->metadata = pick(*resp, ApiKey::kMetadata, 1, 12);
  v->create_topics = pick(*resp, ApiKey::kCreateTopics, 0, 7);
  return true;
}

struct Broker {
  std::string host;
  int port = 0;
};

struct Slot {  // one partition
  int topic = 0;  // index into topic_names
  int32_t partition = 0;
};

struct Layout {
  std::vector<std::string> names;
  std::map<int32_t, Broker> brokers;
  std::map<int32_t, std::vector<Slot>> by_leader;
  size_t partitions = 0;
};

bool load_layout(Connection& c, const Options& o, const Versions& v, Layout* layout, std::string* error) {
  if (v.metadata < 0) return *error = "the broker offers no Metadata v1-12", false;
  layout->names = topic_names(o);
  protocol::MetadataRequest req;
  req.topics.emplace();
  for (const auto& n : layout->names) req.topics->push_back({{}, n});
  req.allow_auto_topic_creation = false;
  auto resp = c.call<protocol::MetadataResponse>(req, v.metadata, static_cast<int>(o.timeout_s * 1000));
  if (!resp) return *error = "Metadata: " + c.error(), false;
  for (const auto& b : resp->brokers) layout->brokers[b.node_id] = {b.host, b.port};
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < layout->names.size(); ++i) index[layout->names[i]] = static_cast<int>(i);
  size_t seen = 0;
  for (const auto& t : resp->topics) {
    const std::string name = t.name.value_or("");
    if (t.error_code != protocol::ErrorCode::kNone) return *error = "Metadata: topic " + name + ": " + error_text(t.error_code), false;
    auto it = index.find(name);
    if (it == index.end()) continue;
    ++seen;
    for (const auto& p : t.partitions) {
      if (p.error_code != protocol::ErrorCode::kNone || !layout->brokers.count(p.leader_id)) {
        return *error = "Metadata: " + name + "-" + std::to_string(p.partition_index) + " has no leader (" +
                        error_text(p.error_code) + ")",
               false;
      }
      layout->by_leader[p.leader_id].push_back({it->second, p.partition_index});
      ++layout->partitions;
    }
  }
  if (seen != layout->names.size()) {
    return *error = "Metadata: " + std::to_string(layout->names.size() - seen) + " of the topics are missing", false;
  }
  return true;
}

// ---- create-topics ----

void run_create_topics(const Options& o, Connection& c, const Versions& v, JsonLine& json, RunStats& stats) {
  if (v.create_topics < 0) stats.add_error("the broker offers no CreateTopics");
  const std::vector<std::string> names = topic_names(o);
  uint64_t created = 0, existing = 0;
  const uint64_t t0 = monotonic_ns();
  for (size_t at = 0; at < names.size() && stats.errors == 0; at += static_cast<size_t>(o.create_chunk)) {
    protocol::CreateTopicsRequest req;
    req.timeout_ms = static_cast<int32_t>(o.timeout_s * 1000);
    for (size_t i = at; i < std::min(names.size(), at + static_cast<size_t>(o.create_chunk)); ++i) {
      protocol::CreateTopicsRequest::CreatableTopic t;
      t.name = names[i];
      t.num_partitions = o.partitions;
      t.replication_factor = 1;
      req.topics.push_back(std::move(t));
    }
    auto resp = c.call<protocol::CreateTopicsResponse>(req, v.create_topics, static_cast<int>(o.timeout_s * 1000));
    if (!resp) {
      stats.add_error("CreateTopics: " + c.error());
      break;
    }
    for (const auto& t : resp->topics) {
      if (t.error_code == protocol::ErrorCode::kNone) ++created;
      else if (t.error_code == protocol::ErrorCode::kTopicAlreadyExists) ++existing;
      else stats.add_error("CreateTopics " + t.name + ": " + error_text(t.error_code) + " " + t.error_message.value_or(""));
    }
    if (resp->topics.size() != req.topics.size()) stats.add_error("CreateTopics: fewer results than topics");
  }
  const double elapsed = static_cast<double>(monotonic_ns() - t0) / 1e9;
  json.add("topics_created", created).add("topics_existing", existing).add("elapsed_s", elapsed);
}

// ---- produce ----

// The value of every record: bytes 0-7 the wall-clock send time in ns, 8-11 the topic index,
// 12-15 the partition, 16-23 the record's sequence in its partition within this run, then a
// fixed pattern. The consumer checks the CRC, which covers all of it.
void put_be(std::byte* p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<std::byte>(v & 0xff);
}

// Bytes of a zig-zag varint.
int32_t varint_size(int32_t v) {
  uint32_t z = (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
  int32_t n = 1;
  for (; z >= 0x80; z >>= 7) ++n;
  return n;
}

struct SentBatch {
  uint32_t slot = 0;      // index into the connection's slots
  int32_t records = 0;
  uint64_t first_due_ns = 0;  // due time of the batch's first record (open loop) or build time
};

struct SentRequest {
  int32_t correlation_id = 0;
  uint64_t end_offset = 0;  // bytes_queued() after it: on the wire once bytes_written() passes this
  std::vector<SentBatch> batches;
};

class ProduceWorker {
 public:
  ProduceWorker(const Options& o, const Layout& layout, Broker broker, std::vector<Slot> slots, int16_t version,
                double rate, int64_t count, uint64_t seed)
      : o_(o), layout_(layout), broker_(std::move(broker)), slots_(std::move(slots)), version_(version), rate_(rate),
        count_(count), rng_(seed), acked_(slots_.size(), 0), seq_(slots_.size(), 0) {
    pattern_.resize(static_cast<size_t>(o.size));
    for (size_t i = 0; i < pattern_.size(); ++i) pattern_[i] = static_cast<std::byte>(rng_() & 0xff);
    order_.resize(slots_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<uint32_t>(i);
    std::shuffle(order_.begin(), order_.end(), rng_);
    const int64_t batch_bytes = 61 + static_cast<int64_t>(o.records_per_batch) * (o.size + 20);
    batches_per_request_ = static_cast<size_t>(std::max<int64_t>(1, o.max_request_bytes / batch_bytes));
    batches_per_request_ = std::min(batches_per_request_, slots_.size());
  }

  bool connect(std::string* error) {
    if (!conn_.connect(broker_.host, broker_.port, static_cast<int>(o_.timeout_s * 1000))) {
      *error = conn_.error();
      return false;
    }
    return true;
  }

  void run(uint64_t t0) {
    t0_ = t0;
    const uint64_t end_ns = t0 + static_cast<uint64_t>(o_.duration_s * 1e9);
    const uint64_t timeout_ns = static_cast<uint64_t>(o_.timeout_s * 1e9);
    uint64_t drain_deadline = 0;
    for (;;) {
      const uint64_t now = monotonic_ns();
      const bool producing = count_ > 0 ? next_record_ < count_ : now < end_ns;
      if (producing) fill(now, count_ > 0 ? count_ : INT64_MAX);
      else if (drain_deadline == 0) drain_deadline = now + timeout_ns;
      if (!producing && inflight_.empty()) break;
      if (drain_deadline != 0 && now > drain_deadline) {
        fail_inflight("no response to " + std::to_string(inflight_.size()) + " requests within the final " +
                      std::to_string(o_.timeout_s) + " s");
        break;
      }
      const uint64_t progress = std::max(conn_.last_read_ns(), oldest_sent_ns_);  // may be after `now`
      if (!inflight_.empty() && o_.acks != 0 && now > progress && now - progress > timeout_ns) {
        fail_inflight(conn_.peer() + ": no response for " + std::to_string(o_.timeout_s) + " s");
        break;
      }
      int wait_ms = 100;
      if (producing && rate_ > 0 && inflight_.size() < static_cast<size_t>(o_.inflight)) {
        const uint64_t due = ready_ns(next_record_ + o_.records_per_batch - 1);
        wait_ms = due <= now ? 0 : static_cast<int>(std::min<uint64_t>(100, (due - now) / 1'000'000 + 1));
      }
      pollfd p{conn_.fd(), static_cast<short>(POLLIN | (conn_.want_write() ? POLLOUT : 0)), 0};
      const int rc = ::poll(&p, 1, wait_ms);
      if (rc < 0 && errno != EINTR) {
        fail_inflight(std::string("poll: ") + std::strerror(errno));
        break;
      }
      const bool readable = rc > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
      const bool writable = rc > 0 && (p.revents & POLLOUT);
      if (!conn_.pump(readable, writable || conn_.want_write())) {
        fail_inflight(conn_.error());
        break;
      }
      if (!handle_responses()) break;
    }
    // Open loop: records that were due before the end but never went out.
    if (rate_ > 0 && count_ == 0) {
      const auto due_by_end = static_cast<int64_t>(o_.duration_s * rate_);
      unsent_due_ = due_by_end > next_record_ ? static_cast<uint64_t>(due_by_end - next_record_) : 0;
    }
    conn_.close();
  }

  const RunStats& stats() const { return stats_; }
  uint64_t unsent_due() const { return unsent_due_; }
  uint64_t requests() const { return requests_; }
  const std::vector<Slot>& slots() const { return slots_; }
  const std::vector<int64_t>& acked() const { return acked_; }

 private:
  // Open loop: record i (of this connection) is due at t0 + i / rate.
  uint64_t ready_ns(int64_t record) const {
    return t0_ + static_cast<uint64_t>(static_cast<double>(record) * 1e9 / rate_);
  }

  // Queues requests while the window has room and batches are ready.
  void fill(uint64_t now, int64_t limit) {
    while (inflight_.size() < static_cast<size_t>(o_.inflight) && next_record_ < limit) {
      std::vector<SentBatch> batches;
      while (batches.size() < batches_per_request_ && next_record_ < limit) {
        const int64_t n = std::min<int64_t>(o_.records_per_batch, limit - next_record_);
        uint64_t due = now;
        if (rate_ > 0) {
          if (ready_ns(next_record_ + n - 1) > now) break;
          due = ready_ns(next_record_);
        }
        if (cursor_ == order_.size()) {  // a new cycle; this request's partitions go last
          std::shuffle(order_.begin(), order_.end(), rng_);
          std::stable_partition(order_.begin(), order_.end(), [&](uint32_t slot) {
            return std::none_of(batches.begin(), batches.end(), [&](const SentBatch& b) { return b.slot == slot; });
          });
          cursor_ = 0;
        }
        batches.push_back({order_[cursor_++], static_cast<int32_t>(n), due});
        next_record_ += n;
      }
      if (batches.empty()) return;
      send(std::move(batches));
    }
  }

  // Encodes b's batch into `out` (its capacity reused).
  void build_batch(const SentBatch& b, std::vector<std::byte>& out) {
    const Slot& s = slots_[b.slot];
    protocol::Writer w(std::move(out));
    w.write_int64(0);
    const auto length = w.reserve_int32();
    w.write_int32(-1);  // partition leader epoch
    w.write_int8(protocol::kMagicV2);
    w.write_uint32(0);  // CRC, below
    w.write_int16(0);   // no compression, create time
    w.write_int32(b.records - 1);
    const int64_t ts = wall_ms();
    w.write_int64(ts);
    w.write_int64(ts);
    w.write_int64(-1);  // no producer id
    w.write_int16(-1);
    w.write_int32(-1);
    w.write_int32(b.records);
    timespec rt{};
    clock_gettime(CLOCK_REALTIME, &rt);
    const uint64_t send_wall_ns = static_cast<uint64_t>(rt.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(rt.tv_nsec);
    std::vector<std::byte>& value = pattern_;  // each record rewrites its first 24 bytes
    for (int32_t i = 0; i < b.records; ++i) {
      const int64_t seq = seq_[b.slot]++;
      put_be(value.data(), send_wall_ns, 8);
      put_be(value.data() + 8, static_cast<uint32_t>(s.topic), 4);
      put_be(value.data() + 12, static_cast<uint32_t>(s.partition), 4);
      put_be(value.data() + 16, static_cast<uint64_t>(seq), 8);
      char key[9];
      std::snprintf(key, sizeof key, "%08x", static_cast<unsigned>((static_cast<uint64_t>(s.partition) << 20) ^ seq));
      // Length, then attributes, timestamp delta, offset delta, key, value, no headers.
      const int32_t vsize = static_cast<int32_t>(value.size());
      w.write_varint(1 + 1 + varint_size(i) + 1 + 8 + varint_size(vsize) + vsize + 1);
      w.write_int8(0);
      w.write_varlong(0);
      w.write_varint(i);
      w.write_varint(8);
      w.write_raw(protocol::as_bytes(std::string_view(key, 8)));
      w.write_varint(vsize);
      w.write_raw(value);
      w.write_varint(0);
    }
    w.patch_length(length);
    out = std::move(w).take();
    storage::seal_batch_crc(out);
  }

  void send(std::vector<SentBatch> batches) {
    std::sort(batches.begin(), batches.end(), [&](const SentBatch& a, const SentBatch& b) {
      return slots_[a.slot].topic < slots_[b.slot].topic;
    });
    if (bodies_.size() < batches.size()) bodies_.resize(batches.size());
    protocol::ProduceRequest req;
    req.acks = static_cast<int16_t>(o_.acks);
    req.timeout_ms = static_cast<int32_t>(o_.timeout_s * 1000);
    for (size_t i = 0; i < batches.size(); ++i) {
      const SentBatch& b = batches[i];
      const Slot& s = slots_[b.slot];
      if (req.topic_data.empty() || req.topic_data.back().name != layout_.names[static_cast<size_t>(s.topic)]) {
        req.topic_data.push_back({layout_.names[static_cast<size_t>(s.topic)], {}});
      }
      build_batch(b, bodies_[i]);
      protocol::ProduceRequest::PartitionProduceData p;
      p.index = s.partition;
      p.records.data = protocol::Bytes(bodies_[i]);
      req.topic_data.back().partition_data.push_back(std::move(p));
    }
    SentRequest sent;
    sent.correlation_id = conn_.next_correlation_id();
    conn_.queue(conn_.make_frame(req, version_, sent.correlation_id));
    sent.end_offset = conn_.bytes_queued();
    sent.batches = std::move(batches);
    if (inflight_.empty()) oldest_sent_ns_ = monotonic_ns();
    inflight_.push_back(std::move(sent));
    ++requests_;
  }

  void complete(const SentBatch& b, uint64_t now) {
    acked_[b.slot] += b.records;
    const uint64_t step = rate_ > 0 ? static_cast<uint64_t>(1e9 / rate_) : 0;
    for (int32_t i = 0; i < b.records; ++i) {
      const uint64_t due = b.first_due_ns + step * static_cast<uint64_t>(i);
      stats_.latency.record(now > due ? now - due : 0);
      stats_.count_message(static_cast<uint64_t>(o_.size), now);
    }
  }

  bool handle_responses() {
    const uint64_t now = monotonic_ns();
    if (o_.acks == 0) {  // no responses: a request counts once it is on the wire
      while (!inflight_.empty() && conn_.bytes_written() >= inflight_.front().end_offset) {
        for (const SentBatch& b : inflight_.front().batches) complete(b, now);
        inflight_.pop_front();
      }
      return true;
    }
    while (auto f = conn_.next_frame()) {
      if (inflight_.empty()) {
        fail_inflight(conn_.peer() + ": a response to no request");
        return false;
      }
      SentRequest req = std::move(inflight_.front());
      inflight_.pop_front();
      oldest_sent_ns_ = now;
      protocol::ProduceResponse resp;
      if (!conn_.decode_response(*f, version_, req.correlation_id, &resp)) {
        inflight_.push_front(std::move(req));
        fail_inflight(conn_.error());
        return false;
      }
      std::unordered_map<uint64_t, size_t> where;  // (topic, partition) -> batch
      for (size_t i = 0; i < req.batches.size(); ++i) {
        const Slot& s = slots_[req.batches[i].slot];
        where[static_cast<uint64_t>(s.topic) << 32 | static_cast<uint32_t>(s.partition)] = i;
      }
      std::vector<bool> answered(req.batches.size(), false);
      std::unordered_map<std::string_view, int> topic_index;
      for (const SentBatch& b : req.batches) {
        topic_index[layout_.names[static_cast<size_t>(slots_[b.slot].topic)]] = slots_[b.slot].topic;
      }
      for (const auto& t : resp.responses) {
        auto ti = topic_index.find(t.name);
        for (const auto& p : t.partition_responses) {
          auto it = ti == topic_index.end()
                        ? where.end()
                        : where.find(static_cast<uint64_t>(ti->second) << 32 | static_cast<uint32_t>(p.index));
          if (it == where.end() || answered[it->second]) {
            stats_.add_error("produce response names " + t.name + "-" + std::to_string(p.index) +
                             ", not in the request or twice");
            continue;
          }
          answered[it->second] = true;
          const SentBatch& b = req.batches[it->second];
          if (p.error_code != protocol::ErrorCode::kNone) {
            stats_.add_error("produce " + t.name + "-" + std::to_string(p.index) + ": " + error_text(p.error_code),
                             static_cast<uint64_t>(b.records));
          } else {
            complete(b, now);
          }
        }
      }
      for (size_t i = 0; i < req.batches.size(); ++i) {
        if (answered[i]) continue;
        const Slot& s = slots_[req.batches[i].slot];
        stats_.add_error("produce response without " + layout_.names[static_cast<size_t>(s.topic)] + "-" +
                             std::to_string(s.partition),
                         static_cast<uint64_t>(req.batches[i].records));
      }
    }
    if (!conn_.error().empty()) {
      fail_inflight(conn_.error());
      return false;
    }
    return true;
  }

  // Every record still in flight is an error (the connection is given up).
  void fail_inflight(const std::string& why) {
    uint64_t n = 0;
    for (const auto& r : inflight_) {
      for (const auto& b : r.batches) n += static_cast<uint64_t>(b.records);
    }
    stats_.add_error(why, std::max<uint64_t>(n, 1));
    inflight_.clear();
  }

  const Options& o_;
  const Layout& layout_;
  Broker broker_;
  std::vector<Slot> slots_;
  int16_t version_;
  double rate_;
  int64_t count_;  // 0: by duration
  std::mt19937_64 rng_;
  std::vector<int64_t> acked_;
  std::vector<int64_t> seq_;
  std::vector<std::byte> pattern_;
  // The batches of the request being built, their storage kept from request to request (the
  // frame copies them; freed, ~1 MiB of them would go back to the kernel every request).
  std::vector<std::vector<std::byte>> bodies_;
  std::vector<uint32_t> order_;  // a shuffled cycle over the slots: uniform, each once per cycle
  size_t cursor_ = 0;
  size_t batches_per_request_ = 1;
  Connection conn_;
  std::deque<SentRequest> inflight_;
  uint64_t t0_ = 0;
  uint64_t oldest_sent_ns_ = 0;
  int64_t next_record_ = 0;
  uint64_t unsent_due_ = 0;
  uint64_t requests_ = 0;
  RunStats stats_;
};

// The connections: per leader, connections_per_broker of them, each with a share of its
// partitions (round robin) and of the rate and count in proportion.
struct Assignment {
  Broker broker;
  std::vector<Slot> slots;
};

std::vector<Assignment> assign(const Options& o, const Layout& layout) {
  std::vector<Assignment> out;
  for (const auto& [leader, slots] : layout.by_leader) {
    const size_t k = std::min(static_cast<size_t>(o.connections_per_broker), slots.size());
    const size_t first = out.size();
    for (size_t i = 0; i < k; ++i) out.push_back({layout.brokers.at(leader), {}});
    for (size_t i = 0; i < slots.size(); ++i) out[first + i % k].slots.push_back(slots[i]);
  }
  return out;
}

int run_produce(const Options& o, const Layout& layout, const Versions& v, JsonLine& json) {
  RunStats stats;
  if (v.produce < 0) {
    stats.add_error("the broker offers no Produce v3-9");
    return 1;
  }
  const std::vector<Assignment> parts = assign(o, layout);
  std::vector<std::unique_ptr<ProduceWorker>> workers;
  std::random_device rd;
  int64_t count_left = o.count;
  std::string error;
  for (size_t i = 0; i < parts.size(); ++i) {
    const double share = static_cast<double>(parts[i].slots.size()) / static_cast<double>(layout.partitions);
    int64_t count = 0;
    if (o.each_partition > 0) {
      count = o.each_partition * static_cast<int64_t>(parts[i].slots.size()) * o.records_per_batch;
    } else if (o.count > 0) {
      count = i + 1 == parts.size() ? count_left : static_cast<int64_t>(static_cast<double>(o.count) * share);
      count_left -= count;
    }
    workers.push_back(std::make_unique<ProduceWorker>(o, layout, parts[i].broker, parts[i].slots, v.produce,
                                                      o.rate * share, count, (static_cast<uint64_t>(rd()) << 32) ^ i));
    if (!workers.back()->connect(&error)) {
      stats.add_error(error);
      json.add("connections", static_cast<int64_t>(parts.size()));
      add_throughput(json, stats, 0);
      return 3;
    }
  }
  const uint64_t t0 = monotonic_ns();
  {
    std::vector<std::jthread> threads;
    for (auto& w : workers) threads.emplace_back([&w, t0] { w->run(t0); });
  }
  uint64_t unsent = 0, requests = 0;
  for (const auto& w : workers) {
    stats.merge(w->stats());
    unsent += w->unsent_due();
    requests += w->requests();
  }
  uint64_t written = 0;
  for (const auto& w : workers) written += static_cast<uint64_t>(std::count_if(w->acked().begin(), w->acked().end(), [](int64_t n) { return n > 0; }));
  add_throughput(json, stats, t0);
  json.add("requests", requests)
      .add("records_per_request", requests ? static_cast<double>(stats.msgs) / static_cast<double>(requests) : 0.0)
      .add("unsent_due", unsent)
      .add("partitions_written", written);
  add_latency(json, "latency", stats.latency);
  json.add("errors", stats.errors).add("first_error", stats.first_error);
  if (!o.counts_out.empty()) {
    std::ofstream out(o.counts_out);
    for (const auto& w : workers) {
      for (size_t i = 0; i < w->slots().size(); ++i) {
        out << layout.names[static_cast<size_t>(w->slots()[i].topic)] << ' ' << w->slots()[i].partition << ' '
            << w->acked()[i] << '\n';
      }
    }
  }
  return stats.errors > 0 ? 1 : 0;
}

// ---- consume ----

struct ConsumePartition {
  Slot slot;
  int64_t next = 0;       // next offset to fetch
  int64_t target = -1;    // the high watermark of the first response; -1: none yet
  int64_t records = 0;
};

class ConsumeWorker {
 public:
  ConsumeWorker(const Options& o, const Layout& layout, Broker broker, std::vector<Slot> slots, int16_t version)
      : o_(o), layout_(layout), broker_(std::move(broker)), version_(version) {
    for (const Slot& s : slots) parts_.push_back({s, o.from_offset, -1, 0});
  }

  bool connect(std::string* error) {
    if (!conn_.connect(broker_.host, broker_.port, static_cast<int>(o_.timeout_s * 1000))) {
      *error = conn_.error();
      return false;
    }
    return true;
  }

  // Fetches in chunks of fetch_partitions, round robin over the partitions not yet done.
  void run(uint64_t t0, int64_t count) {
    const uint64_t end_ns = t0 + static_cast<uint64_t>(o_.duration_s * 1e9);
    size_t cursor = 0;
    const int timeout_ms = static_cast<int>(o_.timeout_s * 1000);
    while (monotonic_ns() < end_ns && (count == 0 || static_cast<int64_t>(stats_.msgs) < count)) {
      std::vector<size_t> chunk;
      for (size_t scanned = 0; scanned < parts_.size() && chunk.size() < static_cast<size_t>(o_.fetch_partitions);
           ++scanned, cursor = (cursor + 1) % parts_.size()) {
        const ConsumePartition& p = parts_[cursor];
        if (p.target < 0 || p.next < p.target) chunk.push_back(cursor);
      }
      if (chunk.empty()) break;  // every partition reached its high watermark
      std::sort(chunk.begin(), chunk.end(), [&](size_t a, size_t b) {
        return parts_[a].slot.topic < parts_[b].slot.topic;
      });
      protocol::FetchRequest req;
      req.max_wait_ms = 100;
      req.min_bytes = 1;
      req.max_bytes = 50 << 20;
      for (size_t i : chunk) {
        const ConsumePartition& p = parts_[i];
        const std::string& name = layout_.names[static_cast<size_t>(p.slot.topic)];
        if (req.topics.empty() || req.topics.back().topic != name) req.topics.push_back({name, {}, {}});
        protocol::FetchRequest::FetchPartition fp;
        fp.partition = p.slot.partition;
        fp.fetch_offset = p.next;
        fp.partition_max_bytes = 1 << 20;
        req.topics.back().partitions.push_back(fp);
      }
      ++requests_;
      std::vector<std::byte> frame;  // the records in resp point into it
      auto resp = conn_.call<protocol::FetchResponse>(req, version_, timeout_ms, &frame);
      if (!resp) {
        stats_.add_error("Fetch: " + conn_.error());
        return;
      }
      if (resp->error_code != protocol::ErrorCode::kNone) {
        stats_.add_error("Fetch: " + error_text(resp->error_code));
        return;
      }
      std::unordered_map<uint64_t, size_t> where;
      for (size_t i : chunk) {
        where[static_cast<uint64_t>(parts_[i].slot.topic) << 32 | static_cast<uint32_t>(parts_[i].slot.partition)] = i;
      }
      std::unordered_map<std::string_view, int> topic_index;
      for (size_t i : chunk) topic_index[layout_.names[static_cast<size_t>(parts_[i].slot.topic)]] = parts_[i].slot.topic;
      const uint64_t now = monotonic_ns();
      for (const auto& t : resp->responses) {
        auto ti = topic_index.find(t.topic);
        for (const auto& pd : t.partitions) {
          auto it = ti == topic_index.end()
                        ? where.end()
                        : where.find(static_cast<uint64_t>(ti->second) << 32 | static_cast<uint32_t>(pd.partition_index));
          const std::string tp = t.topic + "-" + std::to_string(pd.partition_index);
          if (it == where.end()) {
            stats_.add_error("fetch response names " + tp + ", not in the request");
            continue;
          }
          ConsumePartition& p = parts_[it->second];
          if (pd.error_code != protocol::ErrorCode::kNone) {
            stats_.add_error("fetch " + tp + ": " + error_text(pd.error_code));
            p.target = p.next;  // give the partition up
            continue;
          }
          if (p.target < 0) p.target = pd.high_watermark;
          if (pd.records.data) take(p, tp, *pd.records.data, now);
        }
      }
    }
  }

  const RunStats& stats() const { return stats_; }
  const std::vector<ConsumePartition>& parts() const { return parts_; }
  uint64_t requests() const { return requests_; }

 private:
  void take(ConsumePartition& p, const std::string& tp, protocol::Bytes data, uint64_t now) {
    std::vector<protocol::RecordBatchView> batches;
    const protocol::BatchCheck check = protocol::split_batches(data, batches);
    // A partial batch at the end is how a fetch is cut at partition_max_bytes.
    if (check != protocol::BatchCheck::kOk && check != protocol::BatchCheck::kTruncatedHeader &&
        check != protocol::BatchCheck::kLengthBeyondData) {
      stats_.add_error("fetch " + tp + ": " + protocol::batch_check_name(check));
    }
    for (const auto& b : batches) {
      if (b.last_offset() < p.next) continue;  // a batch that starts before the fetch offset
      if (b.base_offset() != p.next) {
        stats_.add_error("fetch " + tp + ": offsets not dense, batch at " + std::to_string(b.base_offset()) +
                         " after " + std::to_string(p.next));
      }
      if (!storage::batch_crc_ok(b.bytes())) {
        stats_.add_error("fetch " + tp + ": CRC mismatch in the batch at " + std::to_string(b.base_offset()));
      }
      int64_t n = 0;
      bool misplaced = false;
      const bool ok = protocol::for_each_record(b, 64 << 20, scratch_, [&](const protocol::Record& r) {
        ++n;
        const size_t size = r.value ? r.value->size() : 0;
        stats_.count_message(size, now);
        // wiregen's values carry their topic index and partition at bytes 8-15.
        if (size >= 24 && !misplaced) {
          uint64_t topic = 0, partition = 0;
          for (int i = 8; i < 12; ++i) topic = topic << 8 | std::to_integer<uint64_t>((*r.value)[static_cast<size_t>(i)]);
          for (int i = 12; i < 16; ++i) partition = partition << 8 | std::to_integer<uint64_t>((*r.value)[static_cast<size_t>(i)]);
          misplaced = topic != static_cast<uint64_t>(p.slot.topic) || partition != static_cast<uint64_t>(p.slot.partition);
        }
      });
      if (!ok || n != b.records_count()) {
        stats_.add_error("fetch " + tp + ": malformed records in the batch at " + std::to_string(b.base_offset()));
      }
      if (misplaced) stats_.add_error("fetch " + tp + ": a record written by wiregen for another partition");
      p.records += n;
      p.next = b.last_offset() + 1;
    }
  }

  std::vector<std::byte> scratch_;

  const Options& o_;
  const Layout& layout_;
  Broker broker_;
  int16_t version_;
  Connection conn_;
  std::vector<ConsumePartition> parts_;
  uint64_t requests_ = 0;
  RunStats stats_;
};

int run_consume(const Options& o, const Layout& layout, const Versions& v, JsonLine& json) {
  RunStats stats;
  if (v.fetch < 0) {
    stats.add_error("the broker offers no Fetch v4-12");
    json.add("errors", stats.errors).add("first_error", stats.first_error);
    return 1;
  }
  std::map<std::pair<std::string, int32_t>, int64_t> expected;
  if (!o.expect_counts.empty()) {
    std::ifstream in(o.expect_counts);
    std::string name;
    int32_t partition = 0;
    int64_t n = 0;
    while (in >> name >> partition >> n) expected[{name, partition}] = n;
    if (expected.empty()) stats.add_error("--expect-counts " + o.expect_counts + ": nothing read");
  }
  std::vector<std::unique_ptr<ConsumeWorker>> workers;
  std::string error;
  for (const Assignment& a : assign(o, layout)) {
    workers.push_back(std::make_unique<ConsumeWorker>(o, layout, a.broker, a.slots, v.fetch));
    if (!workers.back()->connect(&error)) {
      stats.add_error(error);
      json.add("errors", stats.errors).add("first_error", stats.first_error);
      return 3;
    }
  }
  const uint64_t t0 = monotonic_ns();
  {
    const int64_t per = o.count > 0 ? std::max<int64_t>(1, o.count / static_cast<int64_t>(workers.size())) : 0;
    std::vector<std::jthread> threads;
    for (auto& w : workers) threads.emplace_back([&w, t0, per] { w->run(t0, per); });
  }
  uint64_t requests = 0, mismatched = 0, short_of_hw = 0;
  for (const auto& w : workers) {
    stats.merge(w->stats());
    requests += w->requests();
    for (const ConsumePartition& p : w->parts()) {
      if (p.target < 0 || p.next < p.target) ++short_of_hw;
      if (expected.empty()) continue;
      const std::string& name = layout.names[static_cast<size_t>(p.slot.topic)];
      auto it = expected.find({name, p.slot.partition});
      const int64_t want = it == expected.end() ? 0 : it->second;
      if (p.records != want) {
        ++mismatched;
        stats.add_error("consume " + name + "-" + std::to_string(p.slot.partition) + ": " + std::to_string(p.records) +
                        " records, expected " + std::to_string(want));
      }
    }
  }
  add_throughput(json, stats, t0);
  json.add("requests", requests)
      .add("partitions_below_high_watermark", short_of_hw)
      .add("partitions_not_as_expected", mismatched)
      .add("errors", stats.errors)
      .add("first_error", stats.first_error);
  return stats.errors > 0 ? 1 : 0;
}

// ---- metadata ----

// All topics (a null topic list) --repeat times, then --per-topic-requests requests for one
// random topic each. Every response must decode and name no topic with an error.
int run_metadata(const Options& o, Connection& c, const Versions& v, JsonLine& json) {
  RunStats stats;
  if (v.metadata < 0) {
    stats.add_error("the broker offers no Metadata v1-12");
    json.add("errors", stats.errors).add("first_error", stats.first_error);
    return 1;
  }
  const int timeout_ms = static_cast<int>(o.timeout_s * 1000);
  std::vector<double> all_ms;
  uint64_t all_bytes = 0, all_topics = 0, all_partitions = 0;
  for (int i = 0; i < o.repeat && stats.errors == 0; ++i) {
    protocol::MetadataRequest req;  // topics: null = all
    req.allow_auto_topic_creation = false;
    std::vector<std::byte> frame;
    const uint64_t t0 = monotonic_ns();
    auto resp = c.call<protocol::MetadataResponse>(req, v.metadata, timeout_ms, &frame);
    const uint64_t t1 = monotonic_ns();
    if (!resp) {
      stats.add_error("Metadata (all topics): " + c.error());
      break;
    }
    all_ms.push_back(to_ms(t1 - t0));
    all_bytes = frame.size() + 4;
    all_topics = resp->topics.size();
    all_partitions = 0;
    for (const auto& t : resp->topics) {
      all_partitions += t.partitions.size();
      if (t.error_code != protocol::ErrorCode::kNone) stats.add_error("Metadata (all topics): " + t.name.value_or("") + ": " + error_text(t.error_code));
    }
  }
  std::sort(all_ms.begin(), all_ms.end());
  json.add("all_topics_requests", static_cast<uint64_t>(all_ms.size()))
      .add("all_topics_response_bytes", all_bytes)
      .add("all_topics_topics", all_topics)
      .add("all_topics_partitions", all_partitions)
      .add("all_topics_min_ms", all_ms.empty() ? 0.0 : all_ms.front())
      .add("all_topics_median_ms", all_ms.empty() ? 0.0 : all_ms[all_ms.size() / 2])
      .add("all_topics_max_ms", all_ms.empty() ? 0.0 : all_ms.back());
  const std::vector<std::string> names = topic_names(o);
  std::mt19937_64 rng(std::random_device{}());
  LatencyHistogram per_topic;
  uint64_t per_topic_bytes = 0;
  const uint64_t p0 = monotonic_ns();
  for (int i = 0; i < o.per_topic_requests && stats.errors == 0; ++i) {
    const std::string& name = names[rng() % names.size()];
    protocol::MetadataRequest req;
    req.topics.emplace();
    req.topics->push_back({{}, name});
    req.allow_auto_topic_creation = false;
    std::vector<std::byte> frame;
    const uint64_t t0 = monotonic_ns();
    auto resp = c.call<protocol::MetadataResponse>(req, v.metadata, timeout_ms, &frame);
    const uint64_t t1 = monotonic_ns();
    if (!resp) {
      stats.add_error("Metadata (" + name + "): " + c.error());
      break;
    }
    per_topic.record(t1 - t0);
    per_topic_bytes += frame.size() + 4;
    if (resp->topics.size() != 1 || resp->topics[0].error_code != protocol::ErrorCode::kNone || resp->topics[0].name.value_or("") != name) {
      stats.add_error("Metadata (" + name + "): not answered for that topic" +
                      (resp->topics.size() == 1 ? " (" + error_text(resp->topics[0].error_code) + ")" : ""));
    }
  }
  const double per_topic_s = static_cast<double>(monotonic_ns() - p0) / 1e9;
  json.add("per_topic_requests", per_topic.count())
      .add("per_topic_response_bytes_avg",
           per_topic.count() ? static_cast<double>(per_topic_bytes) / static_cast<double>(per_topic.count()) : 0.0)
      .add("per_topic_requests_per_s", per_topic_s > 0 ? static_cast<double>(per_topic.count()) / per_topic_s : 0.0);
  add_latency(json, "per_topic", per_topic);
  json.add("errors", stats.errors).add("first_error", stats.first_error);
  return stats.errors > 0 ? 1 : 0;
}

int finish(JsonLine& json, int status) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  json.add("client_cpu_s", cpu_s).add("client_peak_rss_mb", static_cast<double>(usage.ru_maxrss) / 1024.0);
  std::puts(json.str().c_str());
  std::fflush(stdout);
  return status;
}

int main_(int argc, char** argv) {
  Options o;
  if (const int rc = parse_options(argc, argv, &o); rc != 0) {
    if (rc == 1) std::fputs(kUsage, stdout);
    return rc == 1 ? 0 : 2;
  }
  JsonLine json;
  json.add("tool", "wiregen").add("mode", o.mode_name).add("bootstrap", o.bootstrap).add("topic", o.topic)
      .add("topics", o.topics);
  auto setup_failed = [&](const std::string& why) {
    json.add("errors", 1).add("first_error", why);
    return finish(json, 3);
  };
  std::string host;
  int port = 0;
  if (!split_host_port(o.bootstrap, &host, &port)) {
    std::fprintf(stderr, "wiregen: --bootstrap wants HOST:PORT, not %s\n", o.bootstrap.c_str());
    return 2;
  }
  Connection boot;
  if (!boot.connect(host, port, static_cast<int>(o.timeout_s * 1000))) return setup_failed(boot.error());
  Versions v;
  std::string error;
  if (!negotiate(boot, static_cast<int>(o.timeout_s * 1000), &v, &error)) return setup_failed(error);
  json.add("produce_version", v.produce).add("fetch_version", v.fetch).add("metadata_version", v.metadata);
  if (o.mode == Mode::kCreateTopics) {
    json.add("partitions", o.partitions).add("create_chunk", o.create_chunk);
    RunStats stats;
    run_create_topics(o, boot, v, json, stats);
    json.add("errors", stats.errors).add("first_error", stats.first_error);
    return finish(json, stats.errors ? 1 : 0);
  }
  if (o.mode == Mode::kMetadata) {
    json.add("repeat", o.repeat);
    return finish(json, run_metadata(o, boot, v, json));
  }
  Layout layout;
  if (!load_layout(boot, o, v, &layout, &error)) return setup_failed(error);
  boot.close();
  json.add("partitions", static_cast<uint64_t>(layout.partitions)).add("brokers", static_cast<uint64_t>(layout.brokers.size()));
  int status = 0;
  if (o.mode == Mode::kProduce) {
    json.add("records_per_batch", o.records_per_batch)
        .add("size", o.size)
        .add("acks", o.acks)
        .add("inflight", o.inflight)
        .add("max_request_bytes", o.max_request_bytes)
        .add("connections_per_broker", o.connections_per_broker)
        .add("rate_target", o.rate)
        .add("count_target", o.count)
        .add("each_partition", o.each_partition)
        .add("duration_target_s", o.count > 0 || o.each_partition > 0 ? 0.0 : o.duration_s);
    status = run_produce(o, layout, v, json);
  } else {
    json.add("from_offset", o.from_offset).add("fetch_partitions", o.fetch_partitions);
    status = run_consume(o, layout, v, json);
  }
  return finish(json, status);
}

}  // namespace
}  // namespace rokka::bench::wiregen

int main(int argc, char** argv) { return rokka::bench::wiregen::main_(argc, argv); }
