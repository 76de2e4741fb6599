// Storage-only append benchmark (issue 2). Not a test: it measures and prints a
// markdown table; nothing is asserted.
//
//   storage_bench [--dir DIR] [--seconds S] [--max-gib G] [--partitions 1,64,...]
//                 [--batch BYTES] [--mode async|sync] [--checkpoint-mib M] [--reps N]
//                 [--recovery-gib G]
//
// For each batch size (1 KiB, 100 B), flush mode (async, sync) and partition count
// it runs, in the same process and on the same disk:
//   rokka     Store::append through the writer thread (one CommitLog + shared index files)
//   per-file  a file per partition plus its index file (Kafka's layout), written with
//             pwrite from the calling thread, index entry every 4 KiB, the same flush policy
// Each run first appends one batch to every partition (not timed), then appends
// round-robin over all partitions for --seconds or --max-gib, whichever ends first.
// and once, the machine's buffered sequential-write bandwidth (1 MiB pwrites to one
// file, fdatasync every 500 ms, like async mode). Data goes under DIR (default /tmp)
// and is deleted after each run.
#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "storage/store.h"
#include "tests/testutil/record_batch.h"

namespace {

using namespace rokka::storage;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

struct Config {
  fs::path dir = "/tmp";
  double seconds = 3.0;
  int64_t max_bytes = int64_t{1} << 30;
  std::vector<uint32_t> partitions = {1, 64, 1000, 10000, 100000};
  std::vector<int> batches = {1024, 100};
  std::vector<FlushMode> modes = {FlushMode::kAsync, FlushMode::kSync};
  int64_t checkpoint_bytes = StoreOptions{}.checkpoint_interval_bytes;
  int reps = 3;
  double recovery_gib = 4;  // 0: skip the recovery measurement
};

struct Row {
  std::string layout, mode;
  int batch_bytes = 0;
  uint32_t partitions = 0;
  double mb_s = 0, appends_s = 0;
  size_t files = 0, fds = 0;
  double rss_mb = 0;
  std::string note;
};

size_t count_fds() {
  size_t n = 0;
  for (auto& e : fs::directory_iterator("/proc/self/fd")) (void)e, ++n;
  return n;
}

size_t count_files(const fs::path& dir) {
  size_t n = 0;
  for (auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) ++n;
  return n;
}

double rss_mb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

double secs(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::vector<std::byte> batch_of(int bytes) {
  // value_bytes chosen so the whole RecordBatch is close to `bytes`.
  const int value = bytes - 61 - 8;
  return rokka::testutil::make_batch({.records = 1, .value_bytes = value});
}

// Keeps up to `window` append() calls in flight, `per_call` requests each
// (like many producer connections); returns when the budget is spent.
Row run_rokka(const Config& cfg, uint32_t partitions, int batch_bytes, FlushMode mode) {
  const fs::path dir = cfg.dir / "rokka-bench-store";
  fs::remove_all(dir);
  StoreOptions o;
  o.dir = dir;
  o.flush_mode = mode;
  o.checkpoint_interval_bytes = cfg.checkpoint_bytes;
  auto opened = Store::open(o);
  if (!opened.ok()) {
    std::fprintf(stderr, "open: %s\n", opened.status().to_string().c_str());
    std::exit(1);
  }
  auto store = std::move(*opened);
  std::vector<PartitionId> pids;
  {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    store->create_partitions(partitions, [&](Result<std::vector<PartitionId>> r) {
      std::lock_guard lock(mu);
      pids = std::move(*r);
      done = true;
      cv.notify_one();
    });
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return done; });
  }
  const auto batch = batch_of(batch_bytes);
  const int per_call = 16, window = 32;
  std::mutex mu;
  std::condition_variable cv;
  int inflight = 0;
  int64_t appended = 0, failed = 0;
  size_t next = 0;
  // Appends round-robin over the partitions until `count` appends or `deadline`.
  auto pump = [&](int64_t count, Clock::time_point deadline) {
    for (int64_t sent = 0; sent < count && Clock::now() < deadline; sent += per_call) {
      std::vector<AppendRequest> reqs;
      for (int i = 0; i < per_call; ++i) reqs.push_back({pids[next++ % pids.size()], batch});
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return inflight < window; });
      ++inflight;
      lock.unlock();
      store->append(std::move(reqs), [&](std::vector<Result<AppendInfo>> rs) {
        std::lock_guard l(mu);
        for (auto& r : rs) r.ok() ? ++appended : ++failed;
        --inflight;
        cv.notify_one();
      });
    }
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return inflight == 0; });
  };
  // Warm-up, not timed: one batch per partition (first touch of each index page).
  pump(partitions, Clock::time_point::max());
  appended = 0;
  const auto start = Clock::now();
  pump(cfg.max_bytes / static_cast<int64_t>(batch.size()),
       start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.seconds)));
  const double elapsed = secs(Clock::now() - start);
  Row row{"rokka", mode == FlushMode::kSync ? "sync" : "async", batch_bytes, partitions};
  row.appends_s = static_cast<double>(appended) / elapsed;
  row.mb_s = row.appends_s * static_cast<double>(batch.size()) / 1e6;
  row.files = count_files(dir);
  row.fds = count_fds();
  row.rss_mb = rss_mb();
  if (failed) row.note = std::to_string(failed) + " failed";
  if (!store->close().ok()) row.note += " close failed";
  store.reset();
  fs::remove_all(dir);
  return row;
}

// Kafka-like layout: <dir>/<p>.log + <p>.index, one pair per partition, kept open.
Row run_per_file(const Config& cfg, uint32_t partitions, int batch_bytes, FlushMode mode) {
  Row row{"per-file", mode == FlushMode::kSync ? "sync" : "async", batch_bytes, partitions};
  if (partitions * 2 + 64 > 20000) {
    row.note = "not runnable: needs " + std::to_string(partitions * 2) + " descriptors (limit 20,000)";
    return row;
  }
  const fs::path dir = cfg.dir / "rokka-bench-perfile";
  fs::remove_all(dir);
  fs::create_directories(dir);
  struct Part {
    int log = -1, index = -1;
    int64_t log_end = 0, index_end = 0, since_index = 0;
    bool dirty = false;
  };
  std::vector<Part> parts(partitions);
  for (uint32_t p = 0; p < partitions; ++p) {
    parts[p].log = ::open((dir / (std::to_string(p) + ".log")).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    parts[p].index = ::open((dir / (std::to_string(p) + ".index")).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (parts[p].log < 0 || parts[p].index < 0) {
      row.note = std::string("open failed: ") + std::strerror(errno);
      for (auto& x : parts) ::close(x.log), ::close(x.index);
      fs::remove_all(dir);
      return row;
    }
  }
  const auto batch = batch_of(batch_bytes);
  std::vector<uint32_t> dirty;
  auto flush = [&] {
    for (uint32_t p : dirty) {
      ::fdatasync(parts[p].log);
      ::fdatasync(parts[p].index);
      parts[p].dirty = false;
    }
    dirty.clear();
  };
  const int group = 16 * 32;  // what the rokka run keeps in flight
  int64_t appended = 0, bytes = 0;
  size_t next = 0;
  for (uint32_t p = 0; p < partitions; ++p) {  // warm-up, not timed: one batch per partition
    if (::pwrite(parts[p].log, batch.data(), batch.size(), 0) < 0) std::abort();
    parts[p].log_end = static_cast<int64_t>(batch.size());
  }
  const auto start = Clock::now();
  auto last_flush = start;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.seconds));
  while (Clock::now() < deadline && bytes < cfg.max_bytes) {
    for (int i = 0; i < group; ++i) {
      const uint32_t p = static_cast<uint32_t>(next++ % partitions);
      Part& x = parts[p];
      if (::pwrite(x.log, batch.data(), batch.size(), x.log_end) < 0) std::abort();
      x.since_index += static_cast<int64_t>(batch.size());
      if (x.since_index >= 4096) {  // log.index.interval.bytes
        const int64_t entry[2] = {appended, x.log_end};
        if (::pwrite(x.index, entry, sizeof entry, x.index_end) < 0) std::abort();
        x.index_end += sizeof entry;
        x.since_index = 0;
      }
      x.log_end += static_cast<int64_t>(batch.size());
      if (!x.dirty) {
        x.dirty = true;
        dirty.push_back(p);
      }
      ++appended;
      bytes += static_cast<int64_t>(batch.size());
    }
    const auto now = Clock::now();
    if (mode == FlushMode::kSync || now - last_flush >= std::chrono::milliseconds(500)) {
      flush();
      last_flush = now;
    }
  }
  flush();
  const double elapsed = secs(Clock::now() - start);
  row.appends_s = static_cast<double>(appended) / elapsed;
  row.mb_s = row.appends_s * static_cast<double>(batch.size()) / 1e6;
  row.files = count_files(dir);
  row.fds = count_fds();
  row.rss_mb = rss_mb();
  for (auto& x : parts) ::close(x.log), ::close(x.index);
  fs::remove_all(dir);
  return row;
}

// One file, 1 MiB buffered pwrites, fdatasync every 500 ms: the ceiling for async mode.
double sequential_write_mb_s(const Config& cfg) {
  const fs::path path = cfg.dir / "rokka-bench-seq";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  std::vector<char> buf(1 << 20, 'x');
  int64_t written = 0;
  const auto start = Clock::now();
  auto last_flush = start;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.seconds));
  while (Clock::now() < deadline && written < cfg.max_bytes) {
    if (::pwrite(fd, buf.data(), buf.size(), written) < 0) std::abort();
    written += static_cast<int64_t>(buf.size());
    if (Clock::now() - last_flush >= std::chrono::milliseconds(500)) {
      ::fdatasync(fd);
      last_flush = Clock::now();
    }
  }
  ::fdatasync(fd);
  const double mb_s = static_cast<double>(written) / 1e6 / secs(Clock::now() - start);
  ::close(fd);
  fs::remove(path);
  return mb_s;
}

// Heap bytes per idle partition: malloc'd bytes after creating 100,000 empty
// partitions in a fresh store, minus before, divided by 100,000.
double heap_per_idle_partition(const Config& cfg) {
  const fs::path dir = cfg.dir / "rokka-bench-idle";
  fs::remove_all(dir);
  StoreOptions o;
  o.dir = dir;
  auto store = std::move(Store::open(o).value());
  const size_t before = mallinfo2().uordblks;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  store->create_partitions(100000, [&](Result<std::vector<PartitionId>>) {
    std::lock_guard lock(mu);
    done = true;
    cv.notify_one();
  });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return done; });
  }
  const size_t after = mallinfo2().uordblks;
  (void)store->close();
  store.reset();
  fs::remove_all(dir);
  return static_cast<double>(after - before) / 100000.0;
}

// Waits for a Store callback (the bench's only synchronous helper).
template <typename T>
T wait_for(const std::function<void(std::function<void(T)>)>& start) {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<T> out;
  start([&](T v) {
    std::lock_guard lock(mu);
    out.emplace(std::move(v));
    cv.notify_one();
  });
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return out.has_value(); });
  return std::move(*out);
}

double time_open(const StoreOptions& o, std::unique_ptr<Store>& store) {
  const auto t0 = Clock::now();
  auto opened = Store::open(o);
  const double s = secs(Clock::now() - t0);
  if (!opened.ok()) std::exit(1);
  store = std::move(*opened);
  return s;
}

// Open times: after a crash (kill -9 equivalent: the store is abandoned without
// close(), the page cache survives) and after a clean close, for a log of `gib`
// GiB over 1,000 partitions; and loading 100,000 MetaStore keys.
void recovery_times(const Config& cfg, double gib) {
  const fs::path dir = cfg.dir / "rokka-bench-recovery";
  fs::remove_all(dir);
  StoreOptions o;
  o.dir = dir;
  std::unique_ptr<Store> store;
  time_open(o, store);
  const auto pids = wait_for<Result<std::vector<PartitionId>>>(
      [&](auto done) { store->create_partitions(1000, std::move(done)); }).value();
  for (int b = 0; b < 100; ++b) {
    std::vector<MetaStore::Mutation> batch;
    for (int i = 0; i < 1000; ++i)
      batch.push_back({"o/group-" + std::to_string(i % 50) + "/topic/" + std::to_string(b * 1000 + i), "0123456789abcdef"});
    (void)wait_for<Status>([&](auto done) { store->meta().write(std::move(batch), std::move(done)); });
  }
  const auto batch = batch_of(1024);
  const auto total = static_cast<int64_t>(gib * (1 << 30)) / static_cast<int64_t>(batch.size());
  for (int64_t n = 0; n < total; n += 256) {
    std::vector<AppendRequest> reqs;
    for (int i = 0; i < 256; ++i) reqs.push_back({pids[static_cast<size_t>(n + i) % pids.size()], batch});
    (void)wait_for<std::vector<Result<AppendInfo>>>([&](auto done) { store->append(std::move(reqs), std::move(done)); });
  }
  store.reset();  // crash
  const double crash = time_open(o, store);
  const size_t keys = store->meta().scan("o/").size();
  (void)store->close();
  store.reset();
  const double clean = time_open(o, store);
  (void)store->close();
  store.reset();
  std::printf("open after crash, %.1f GiB log, 1,000 partitions: %.2f s; after clean close: %.3f s "
              "(both include loading %zu MetaStore keys)\n", gib, crash, clean, keys);
  fs::remove_all(dir);
}

Config parse(int argc, char** argv) {
  Config c;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--dir") c.dir = v;
    else if (k == "--seconds") c.seconds = std::stod(v);
    else if (k == "--max-gib") c.max_bytes = static_cast<int64_t>(std::stod(v) * (1 << 30));
    else if (k == "--checkpoint-mib") c.checkpoint_bytes = std::stoll(v) << 20;
    else if (k == "--batch") c.batches = {std::stoi(v)};
    else if (k == "--reps") c.reps = std::max(1, std::stoi(v));
    else if (k == "--recovery-gib") c.recovery_gib = std::stod(v);
    else if (k == "--mode") c.modes = {v == "sync" ? FlushMode::kSync : FlushMode::kAsync};
    else if (k == "--partitions") {
      c.partitions.clear();
      for (size_t pos = 0; pos < v.size();) {
        const size_t comma = v.find(',', pos);
        c.partitions.push_back(static_cast<uint32_t>(std::stoul(v.substr(pos, comma - pos))));
        pos = comma == std::string::npos ? v.size() : comma + 1;
      }
    }
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const Config cfg = parse(argc, argv);
  spdlog::set_level(spdlog::level::warn);
  std::vector<double> seq;
  for (int i = 0; i < cfg.reps; ++i) seq.push_back(sequential_write_mb_s(cfg));
  std::sort(seq.begin(), seq.end());
  std::printf("buffered sequential write (1 MiB pwrite, fdatasync/500 ms), median of %d: %.0f MB/s (min %.0f, max %.0f)\n",
              cfg.reps, seq[seq.size() / 2], seq.front(), seq.back());
  if (cfg.recovery_gib > 0) recovery_times(cfg, cfg.recovery_gib);
  std::printf("heap per idle partition (100,000 created, none written): %.0f bytes\n\n",
              heap_per_idle_partition(cfg));
  std::printf("| layout | flush | batch | partitions | MB/s | appends/s | files | open fds | RSS MB | note |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);
  for (int batch : cfg.batches) {
    for (FlushMode mode : cfg.modes) {
      for (uint32_t p : cfg.partitions) {
        for (int layout = 0; layout < 2; ++layout) {
          // The disk is shared with other work: report the median of `reps` runs.
          std::vector<Row> runs;
          for (int i = 0; i < cfg.reps; ++i) {
            runs.push_back(layout == 0 ? run_rokka(cfg, p, batch, mode) : run_per_file(cfg, p, batch, mode));
            if (runs.back().appends_s == 0) break;  // not runnable
          }
          std::sort(runs.begin(), runs.end(), [](const Row& x, const Row& y) { return x.mb_s < y.mb_s; });
          Row r = runs[runs.size() / 2];
          if (runs.size() > 1) {
            std::string all = "runs MB/s:";
            for (const auto& x : runs) all += " " + std::to_string(static_cast<int>(x.mb_s + 0.5));
            r.note = r.note.empty() ? all : r.note + "; " + all;
          }
          std::printf("| %s | %s | %d B | %u | %.1f | %.0f | %zu | %zu | %.0f | %s |\n", r.layout.c_str(),
                      r.mode.c_str(), r.batch_bytes, r.partitions, r.mb_s, r.appends_s, r.files, r.fds, r.rss_mb,
                      r.note.c_str());
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
