// loadgen: the end-to-end load generator of bench/run.sh. It drives any Kafka broker through
// librdkafka and prints exactly one JSON line per run on stdout (field list: bench/README.md).
// Exit status: 0 clean run, 1 run finished with errors, 2 bad command line, 3 could not start.
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "bench/loadgen/consumer_worker.h"
#include "bench/loadgen/json_figures.h"
#include "bench/loadgen/json_line.h"
#include "bench/loadgen/kafka.h"
#include "bench/loadgen/options.h"
#include "bench/loadgen/payload.h"
#include "bench/loadgen/producer_worker.h"
#include "bench/loadgen/topic_admin.h"

namespace rokka::bench {
namespace {

uint32_t new_run_id() {
  std::random_device random;
  uint32_t id = 0;
  while (id == 0) id = random();
  return id;
}


// glibc hands freed memory back to the kernel: a heap's free top once it passes the trim
// threshold, and every block above the mmap threshold as soon as it is freed. On a VM that
// returns free memory to its host (virtio-balloon free page reporting, as on the machine of
// bench/results), the next touch of such memory is a host fault per page. librdkafka copies
// every produced message into memory it frees after the delivery report, so with glibc's
// defaults the load generator spent up to twice the CPU per message, and more in some runs than
// in others, and both brokers' figures carried that noise (bench/README.md). "keep" reuses it.
void keep_freed_memory() {
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // never shrink a heap
  mallopt(M_TOP_PAD, 256 << 20);       // grow a heap 256 MiB at a time (address space; RSS as touched)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's maximum: up to 32 MiB from the heap, not mmap
}

void add_config(JsonLine& json, const LoadgenOptions& o, int64_t partitions) {
  json.add("tool", "loadgen")
      .add("librdkafka", rd_kafka_version_str())
      .add("mode", mode_name(o.mode))
      .add("label", o.label)
      .add("bootstrap", o.bootstrap)
      .add("topic", o.topic)
      .add("topics", o.topics)
      .add("partitions", partitions)
      .add("malloc", o.malloc_policy);
  if (o.mode == Mode::kCreateTopics || o.mode == Mode::kConsume) return;
  json.add("size", o.message_size)
      .add("acks", o.acks)
      .add("compression", o.compression)
      .add("linger_ms", o.linger_ms)
      .add("batch_size", o.batch_size)
      .add("producers", o.producers)
      .add("run_length", o.run_length)
      .add("rate_target", o.rate)
      .add("count_target", o.count)
      .add("duration_target_s", o.count > 0 ? 0.0 : o.duration_s);
}

// Prints the line with the errors and this process's CPU and peak RSS appended.
int finish(JsonLine& json, uint64_t errors, const std::string& first_error) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  json.add("errors", errors)
      .add("first_error", first_error)
      .add("client_cpu_s", cpu_s)
      .add("client_peak_rss_mb", static_cast<double>(usage.ru_maxrss) / 1024.0);
  std::puts(json.str().c_str());
  std::fflush(stdout);
  return errors == 0 ? 0 : 1;
}

int fail_setup(JsonLine& json, const std::string& error) {
  finish(json, 1, error);
  return 3;
}

// The metadata lookup connects as the run's clients do (e.g. security.protocol=ssl).
bool load_layout(const LoadgenOptions& o, TopicLayout* layout, std::string* error) {
  ConfPtr conf = make_conf(o.bootstrap, o.mode == Mode::kConsume ? o.consumer_props : o.producer_props, error);
  if (!conf) return false;
  ClientPtr client = make_client(RD_KAFKA_PRODUCER, std::move(conf), error);
  return client && fetch_layout(client.get(), topic_names(o), static_cast<int>(o.timeout_s * 1000), layout, error);
}

struct ProduceResult {
  RunStats stats;
  uint64_t unsent_due = 0;
  uint64_t index_end = 0;  // one past the highest global index sent
  uint64_t t0_ns = 0;
  std::string error;  // set when a producer could not start
};

// Connects every producer, then runs them all on one schedule from a common t0.
ProduceResult produce(const LoadgenOptions& o, const TopicLayout& layout, uint32_t run_id) {
  ProduceResult result;
  std::vector<std::unique_ptr<ProducerWorker>> workers;
  for (int k = 0; k < o.producers; ++k) {
    workers.push_back(std::make_unique<ProducerWorker>(o, layout, k, run_id));
    if (!workers.back()->connect(&result.error)) return result;
  }
  result.t0_ns = monotonic_ns();
  {
    std::vector<std::jthread> threads;
    for (auto& w : workers) threads.emplace_back([&w, t0 = result.t0_ns] { w->run(t0); });
  }
  for (const auto& w : workers) {
    result.stats.merge(w->stats());
    result.unsent_due += w->unsent_due();
    result.index_end = std::max(result.index_end, w->index_end());
  }
  return result;
}

// partitions_touched: how many partitions got at least one message (runs sent, capped).
void add_produce(JsonLine& json, const ProduceResult& r, const LoadgenOptions& o, const TopicLayout& layout) {
  add_throughput(json, r.stats, r.t0_ns);
  const uint64_t runs = (r.index_end + static_cast<uint64_t>(o.run_length) - 1) / static_cast<uint64_t>(o.run_length);
  json.add("unsent_due", r.unsent_due)
      .add("partitions_touched", std::min(runs, static_cast<uint64_t>(layout.total_partitions())));
  add_latency(json, "delivery", r.stats.latency);
}

// Produce, consume and e2e runs start alike: the topics' layout from the broker, then the
// configuration into the JSON line. A run returns loadgen's exit status.
using LayoutRun = int (*)(const LoadgenOptions&, const TopicLayout&, JsonLine&);

int run_with_layout(const LoadgenOptions& o, LayoutRun run) {
  JsonLine json;
  TopicLayout layout;
  std::string error;
  if (!load_layout(o, &layout, &error)) {
    add_config(json, o, 0);
    return fail_setup(json, error);
  }
  add_config(json, o, layout.total_partitions());
  return run(o, layout, json);
}

int run_produce(const LoadgenOptions& o, const TopicLayout& layout, JsonLine& json) {
  const ProduceResult r = produce(o, layout, new_run_id());
  if (!r.error.empty()) return fail_setup(json, r.error);
  add_produce(json, r, o, layout);
  return finish(json, r.stats.errors, r.stats.first_error);
}

int run_consume(const LoadgenOptions& o, const TopicLayout& layout, JsonLine& json) {
  std::string error;
  ConsumerWorker consumer(o, layout, /*run_id=*/0);
  if (!consumer.connect(ConsumerWorker::StartAt::kBeginning, &error)) return fail_setup(json, error);
  consumer.run();
  // The rate counts from the first message: connecting and the first offset lookup are
  // reported apart, as first_msg_ms.
  const RunStats& s = consumer.stats();
  add_throughput(json, s, s.first_ns);
  json.add("first_msg_ms", s.first_ns > 0 ? to_ms(s.first_ns - consumer.start_ns()) : 0.0);
  uint64_t errors = s.errors;
  std::string first_error = s.first_error;
  if (o.count > 0 && s.msgs < static_cast<uint64_t>(o.count) && errors == 0) {
    errors = 1;
    first_error = "reached the end of every partition after " + std::to_string(s.msgs) + " of " +
                  std::to_string(o.count) + " messages";
  }
  return finish(json, errors, first_error);
}

int run_end_to_end(const LoadgenOptions& o, const TopicLayout& layout, JsonLine& json) {
  std::string error;
  const uint32_t run_id = new_run_id();
  ConsumerWorker consumer(o, layout, run_id);
  if (!consumer.connect(ConsumerWorker::StartAt::kEnd, &error)) return fail_setup(json, error);
  std::jthread consuming([&consumer] { consumer.run(); });
  const ProduceResult r = produce(o, layout, run_id);
  consumer.set_target(r.stats.msgs);  // every delivered message must come back
  consuming.join();
  if (!r.error.empty()) return fail_setup(json, r.error);

  add_produce(json, r, o, layout);
  const RunStats& c = consumer.stats();
  json.add("consumed", c.msgs);
  // The rate messages came back at, first to last consumed: in a closed loop, the most this
  // produce-and-consume workload sustains (the producer alone may run ahead of its consumer).
  if (c.last_ns > c.first_ns) json.add("consumed_per_s", static_cast<double>(c.msgs) * 1e9 / (c.last_ns - c.first_ns));
  add_latency(json, "e2e", c.latency);
  RunStats all = r.stats;
  if (c.errors > 0) all.add_error("consumer: " + c.first_error, c.errors);
  return finish(json, all.errors, all.first_error);
}

int run_create_topics(const LoadgenOptions& o) {
  JsonLine json;
  add_config(json, o, static_cast<int64_t>(o.topics) * o.partitions);
  const CreateTopicsOutcome r = create_topics(o);
  json.add("created", r.created).add("existed", r.existed).add("request_s", r.request_s).add("visible_s", r.visible_s);
  if (!r.error.empty()) return fail_setup(json, r.error);
  return finish(json, 0, "");
}

}  // namespace
}  // namespace rokka::bench

int main(int argc, char** argv) {
  using namespace rokka::bench;
  const ParseResult parsed = parse_args(argc, argv);
  if (parsed.help) {
    std::fputs(usage(), stdout);
    return 0;
  }
  if (!parsed.error.empty()) {
    std::fprintf(stderr, "loadgen: %s\n%s", parsed.error.c_str(), usage());
    return 2;
  }
  if (parsed.options.malloc_policy == "keep") keep_freed_memory();
  switch (parsed.options.mode) {
    case Mode::kProduce: return run_with_layout(parsed.options, &run_produce);
    case Mode::kConsume: return run_with_layout(parsed.options, &run_consume);
    case Mode::kEndToEnd: return run_with_layout(parsed.options, &run_end_to_end);
    case Mode::kCreateTopics: return run_create_topics(parsed.options);
  }
  return 2;
}
