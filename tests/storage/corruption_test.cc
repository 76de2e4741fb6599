// Tail corruption: thousands of random mutations (truncate, bit flips, zero fill) of
// the CommitLog tail, the index files and the checkpoint of a stopped store, both
// after a clean close and after a crash. Every open must succeed, keep exactly the
// entries before the first damaged one (per partition, byte for byte, at dense
// offsets), serve no batch with a bad CRC, and give the next append the next offset.
// The expected cut comes from an oracle independent of recovery: the entries of the
// pristine log and a byte diff of the mutated file.
// ROKKA_CORRUPTION_CASES sets the cases per template (RELIABILITY.md: the long run),
// ROKKA_CORRUPTION_SEED the first seed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <random>

#include "storage/commit_log.h"
#include "tests/storage/store_fixture.h"
#include "tests/storage/store_model.h"
#include "tests/testutil/file_bytes.h"

namespace rokka::storage::test {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::byte>;
using testutil::file_bytes;
using testutil::TempDir;

int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

// A stopped store with several partitions over several segments, and what it holds.
struct Template {
  struct Element {  // a stretch of log bytes recovery must check: an entry or a blank header
    int64_t pos = 0, len = 0;
    PartitionId pid = 0;
    bool entry = true;
  };
  TempDir dir;
  StoreOptions options = small_options(dir.path());
  std::map<PartitionId, std::vector<Bytes>> batches;  // as stored, in offset order
  std::vector<Element> elements;                      // in log order
  fs::path last_segment;
  int64_t last_segment_start = 0;

  explicit Template(bool clean) {
    options.checkpoint_interval_bytes = 100 << 10;  // checkpoints along the way, not at the end
    options.retention_ms = -1;
    std::mt19937_64 rng(clean ? 11 : 12);
    {
      auto store = open_store(options);
      const auto pids = create(*store, 5);
      for (int i = 0; i < 120; ++i) {
        const PartitionId pid = pids[rng() % pids.size()];
        Bytes b = testutil::make_batch({.records = static_cast<int32_t>(1 + rng() % 4),
                                        .value_bytes = static_cast<int32_t>(100 + rng() % 6000),
                                        .fill = static_cast<uint8_t>(rng())});
        auto r = append(*store, pid, b);
        EXPECT_TRUE(r.ok());
        format::put_be(b.data(), static_cast<uint64_t>(r->base_offset), 8);
        batches[pid].push_back(std::move(b));
      }
      if (clean) {
        EXPECT_TRUE(store->close().ok());
      }
    }
    find_elements();
  }

  void find_elements() {
    auto log = CommitLog::open({dir.path() / "commitlog", options.segment_bytes, &FileSystem::real()});
    ASSERT_TRUE(log.ok());
    (*log)->scan({0}, [&](const CommitLog::ScannedEntry& e) {
      const int64_t seg_start = e.pos.value / options.segment_bytes * options.segment_bytes;
      if (!elements.empty() && elements.back().pos + elements.back().len < seg_start) {
        const int64_t blank = elements.back().pos + elements.back().len;  // the previous segment's padding
        if (seg_start - blank >= format::kBlankHeaderSize) elements.push_back({blank, format::kBlankHeaderSize, 0, false});
      }
      elements.push_back({e.pos.value, static_cast<int64_t>(e.header.length), e.header.partition, true});
      return true;
    });
    last_segment_start = elements.back().pos / options.segment_bytes * options.segment_bytes;
    last_segment = dir.path() / "commitlog" / format::segment_name(last_segment_start);
  }
};

class CorruptionTest : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() {
    clean_ = new Template(true);
    crashed_ = new Template(false);
  }
  static void TearDownTestSuite() {
    delete clean_;
    delete crashed_;
  }
  const Template& base() const { return GetParam() ? *clean_ : *crashed_; }

  // Damages one file of `dir` (a copy of the template); returns the log position of
  // the first damaged element, or INT64_MAX when the log is intact.
  int64_t mutate(const fs::path& dir, std::mt19937_64& rng, std::string& what) {
    const Template& t = base();
    const int target = static_cast<int>(rng() % 10);
    fs::path file;
    int64_t region = 0;  // mutations start below this offset
    if (target < 6) {
      file = dir / "commitlog" / t.last_segment.filename();
      region = t.elements.back().pos + t.elements.back().len - t.last_segment_start + 64;
    } else if (target < 8) {
      std::vector<fs::path> index;
      for (const auto& e : fs::directory_iterator(dir / "index")) index.push_back(e.path());
      file = index[rng() % index.size()];
      region = static_cast<int64_t>(fs::file_size(file));
    } else {
      file = dir / "checkpoint";
      region = static_cast<int64_t>(fs::file_size(file));
    }
    const Bytes before = file_bytes(file);
    Bytes after = before;
    const auto at = static_cast<size_t>(std::uniform_int_distribution<int64_t>(0, region - 1)(rng));
    switch (rng() % 3) {
      case 0:
        after.resize(std::min(after.size(), at));
        what = "truncate " + file.filename().string() + " at " + std::to_string(at);
        break;
      case 1:
        for (int n = 1 + static_cast<int>(rng() % 3); n > 0; --n) {
          const size_t i = std::min(after.size() - 1, at + rng() % 64);
          after[i] ^= static_cast<std::byte>(1u << (rng() % 8));
        }
        what = "flip bits in " + file.filename().string() + " near " + std::to_string(at);
        break;
      default: {
        const size_t end = std::min(after.size(), at + 1 + rng() % 2048);
        std::fill(after.begin() + static_cast<ptrdiff_t>(at), after.begin() + static_cast<ptrdiff_t>(end), std::byte{0});
        what = "zero " + file.filename().string() + " [" + std::to_string(at) + ", " + std::to_string(end) + ")";
      }
    }
    testutil::write_file_bytes(file, after);
    if (target >= 6) return INT64_MAX;
    // The first element of the last segment with a changed byte (a short file reads
    // as zeros: the store grows it back sparsely).
    auto byte_at = [](const Bytes& b, int64_t i) { return i < static_cast<int64_t>(b.size()) ? b[i] : std::byte{0}; };
    for (const auto& e : t.elements) {
      if (e.pos < t.last_segment_start) continue;
      for (int64_t i = e.pos - t.last_segment_start; i < e.pos - t.last_segment_start + e.len; ++i)
        if (byte_at(before, i) != byte_at(after, i)) return e.pos;
    }
    return INT64_MAX;
  }

  // The template's batches whose entries start before `cut`.
  std::map<PartitionId, size_t> expected_counts(int64_t cut) const {
    std::map<PartitionId, size_t> n;
    for (const auto& [pid, b] : base().batches) n[pid] = 0;
    for (const auto& e : base().elements)
      if (e.entry && e.pos < cut) ++n[e.pid];
    return n;
  }

  bool run_case(uint64_t seed) {
    std::mt19937_64 rng(seed);
    TempDir dir;
    fs::copy(base().dir.path(), dir.path(), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    std::string what;
    const int64_t cut = mutate(dir.path(), rng, what);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + what);
    StoreOptions o = base().options;
    o.dir = dir.path();
    auto store = open_store(o);
    if (!store) return false;
    for (const auto& [pid, want] : expected_counts(cut)) {
      const std::vector<Bytes> got = StoreModel::read_all(*store, pid);
      const auto& all = base().batches.at(pid);
      EXPECT_EQ(got.size(), want) << "partition " << pid << " (cut at log position " << cut << ")";
      for (size_t i = 0; i < std::min(got.size(), all.size()); ++i) EXPECT_EQ(got[i], all[i]) << "batch " << i;
      const auto next = store->offsets(pid)->next_offset;
      EXPECT_EQ(append(*store, pid, testutil::make_batch({}))->base_offset, next) << "partition " << pid;
    }
    return !::testing::Test::HasFailure();
  }

  static Template* clean_;
  static Template* crashed_;
};

Template* CorruptionTest::clean_ = nullptr;
Template* CorruptionTest::crashed_ = nullptr;

TEST_P(CorruptionTest, EveryOpenSucceedsAndKeepsExactlyTheValidPrefix) {
  const int64_t cases = env_int("ROKKA_CORRUPTION_CASES", 100);
  const auto first = static_cast<uint64_t>(env_int("ROKKA_CORRUPTION_SEED", 1));
  for (int64_t c = 0; c < cases; ++c) {
    if (!run_case(first + static_cast<uint64_t>(c))) break;
  }
}

INSTANTIATE_TEST_SUITE_P(StoppedStores, CorruptionTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "AfterCleanClose" : "AfterCrash"; });

}  // namespace
}  // namespace rokka::storage::test
