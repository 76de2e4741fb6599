#include "bench/loadgen/options.h"

#include <charconv>
#include <functional>
#include <map>
#include <string_view>

#include "bench/loadgen/payload.h"

namespace rokka::bench {
namespace {

constexpr int kMaxMessageSize = 64 << 20;
constexpr int kMaxTopics = 1'000'000;
constexpr int kMaxPartitions = 1'000'000;
constexpr int kMaxProducers = 64;

bool parse_number(std::string_view text, int64_t* out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool parse_number(std::string_view text, double* out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool parse_int(std::string_view text, int64_t lo, int64_t hi, int* out) {
  int64_t v = 0;
  if (!parse_number(text, &v) || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

bool parse_property(std::string_view text, Properties* out) {
  const size_t eq = text.find('=');
  if (eq == 0 || eq == std::string_view::npos) return false;
  out->emplace_back(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  return true;
}

bool parse_mode(std::string_view text, Mode* out) {
  static const std::map<std::string_view, Mode> kModes = {
      {"produce", Mode::kProduce},
      {"consume", Mode::kConsume},
      {"e2e", Mode::kEndToEnd},
      {"create-topics", Mode::kCreateTopics},
  };
  const auto it = kModes.find(text);
  if (it == kModes.end()) return false;
  *out = it->second;
  return true;
}

bool one_of(std::string_view text, std::initializer_list<std::string_view> allowed) {
  for (std::string_view a : allowed) {
    if (text == a) return true;
  }
  return false;
}

// One setter per flag; each returns false when the value is out of range.
using Setter = std::function<bool(std::string_view, LoadgenOptions&)>;

const std::map<std::string_view, Setter>& setters() {
  static const std::map<std::string_view, Setter> kSetters = {
      {"--mode", [](auto v, auto& o) { return parse_mode(v, &o.mode); }},
      {"--bootstrap", [](auto v, auto& o) { o.bootstrap = v; return !v.empty(); }},
      {"--topic", [](auto v, auto& o) { o.topic = v; return !v.empty(); }},
      {"--topics", [](auto v, auto& o) { return parse_int(v, 1, kMaxTopics, &o.topics); }},
      {"--partitions", [](auto v, auto& o) { return parse_int(v, 1, kMaxPartitions, &o.partitions); }},
      {"--replication", [](auto v, auto& o) { return parse_int(v, 1, 16, &o.replication); }},
      {"--size", [](auto v, auto& o) {
         return parse_int(v, static_cast<int64_t>(kStampSize), kMaxMessageSize, &o.message_size);
       }},
      {"--count", [](auto v, auto& o) { return parse_number(v, &o.count) && o.count >= 0; }},
      {"--duration", [](auto v, auto& o) { return parse_number(v, &o.duration_s) && o.duration_s > 0; }},
      {"--rate", [](auto v, auto& o) { return parse_number(v, &o.rate) && o.rate >= 0; }},
      {"--acks", [](auto v, auto& o) { o.acks = v; return one_of(v, {"0", "1", "-1", "all"}); }},
      {"--compression", [](auto v, auto& o) {
         o.compression = v;
         return one_of(v, {"none", "gzip", "snappy", "lz4", "zstd"});
       }},
      {"--linger-ms", [](auto v, auto& o) { return parse_int(v, 0, 900'000, &o.linger_ms); }},
      {"--batch-size", [](auto v, auto& o) { return parse_int(v, 1, 2'147'483'647, &o.batch_size); }},
      {"--producers", [](auto v, auto& o) { return parse_int(v, 1, kMaxProducers, &o.producers); }},
      {"--run-length", [](auto v, auto& o) { return parse_int(v, 1, 1'000'000, &o.run_length); }},
      {"--group", [](auto v, auto& o) { o.group = v; return !v.empty(); }},
      {"--timeout", [](auto v, auto& o) { return parse_number(v, &o.timeout_s) && o.timeout_s > 0; }},
      {"--label", [](auto v, auto& o) { o.label = v; return true; }},
      {"--malloc", [](auto v, auto& o) { o.malloc_policy = v; return one_of(v, {"keep", "glibc"}); }},
      {"--set", [](auto v, auto& o) { return parse_property(v, &o.producer_props); }},
      {"--cset", [](auto v, auto& o) { return parse_property(v, &o.consumer_props); }},
  };
  return kSetters;
}

}  // namespace

ParseResult parse_args(int argc, char** argv) {
  ParseResult result;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "-h" || flag == "--help") {
      result.help = true;
      return result;
    }
    const auto it = setters().find(flag);
    if (it == setters().end()) {
      result.error = "unknown option " + std::string(flag);
      return result;
    }
    if (i + 1 >= argc) {
      result.error = std::string(flag) + " needs a value";
      return result;
    }
    const std::string_view value = argv[++i];
    if (!it->second(value, result.options)) {
      result.error = "bad value for " + std::string(flag) + ": " + std::string(value);
      return result;
    }
  }
  return result;
}

const char* usage() {
  return R"(usage: loadgen [--mode produce|consume|e2e|create-topics] [options]
Drives a Kafka broker through librdkafka and prints one JSON line with the run's figures.

  --bootstrap HOST:PORT   broker to use (127.0.0.1:9092)
  --topic NAME            topic, or the name prefix with --topics (bench)
  --topics N              use N topics NAME-0 .. NAME-(N-1) (1)
  --partitions N          create-topics: partitions per topic (1)
  --replication N         create-topics: replication factor (1)
  --size BYTES            message value size, >= 24 (1024)
  --count N               messages in all; 0 = run for --duration, or consume to the end (0)
  --duration SECONDS      produce for this long when --count is 0 (10)
  --rate MSGS_PER_S       open loop: a fixed send schedule over all producers, latency measured
                          from the scheduled time (free of coordinated omission); 0 = closed loop (0)
  --acks 0|1|all          producer acks (1)
  --compression C         none|gzip|snappy|lz4|zstd (none)
  --linger-ms MS          producer linger.ms (5)
  --batch-size BYTES      producer batch.size (1000000)
  --producers N           producer instances, one thread each (1)
  --run-length K          messages in a row to one partition before moving to the next (1: strict
                          round robin; larger K gives librdkafka fuller batches per partition) (1)
  --group ID              consume: join this group (subscribe) instead of assigning all partitions
  --timeout SECONDS       bound on draining, an idle consumer and admin requests (60)
  --label TEXT            copied into the JSON line
  --malloc keep|glibc     keep: memory librdkafka frees stays in the process for reuse (no heap
                          trimming; blocks up to 32 MiB from the heap); glibc: glibc's defaults,
                          which hand it back to the kernel (keep)
  --set KEY=VALUE         extra librdkafka producer property (repeatable; also the metadata
                          lookup's, outside consume)
  --cset KEY=VALUE        extra librdkafka consumer property (repeatable; also the metadata
                          lookup's, in consume)
)";
}

std::vector<std::string> topic_names(const LoadgenOptions& options) {
  if (options.topics == 1) return {options.topic};
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(options.topics));
  for (int i = 0; i < options.topics; ++i) names.push_back(options.topic + "-" + std::to_string(i));
  return names;
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kProduce: return "produce";
    case Mode::kConsume: return "consume";
    case Mode::kEndToEnd: return "e2e";
    case Mode::kCreateTopics: return "create-topics";
  }
  return "?";
}

}  // namespace rokka::bench
