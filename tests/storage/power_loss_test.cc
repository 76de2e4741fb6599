// Power loss: the store runs on PowerLossFileSystem, which cuts the power at a random
// file-system call (in the middle of a group commit, a segment roll, a checkpoint, a
// meta journal write or a recovery) and leaves only what a real disk could hold:
// durable bytes and names plus a random, possibly torn, subset of the rest. Every
// trial runs three rounds of work -> power cut -> reopen on the real file system.
//   sync mode:  every acknowledged append and meta write survives;
//   async mode: each partition is a clean prefix of what was appended (no holes);
//   both:       the reopen succeeds, offsets are dense, no corrupt byte is served.
// ROKKA_POWER_LOSS_TRIALS sets the trials per mode (CI: a few dozen; RELIABILITY.md
// documents the long run) and ROKKA_POWER_LOSS_SEED the first seed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "tests/storage/store_fixture.h"
#include "tests/storage/store_model.h"
#include "tests/testutil/power_loss_file_system.h"

namespace rokka::storage::test {
namespace {

using testutil::PowerLossFileSystem;
using testutil::TempDir;

int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

class PowerLossTest : public ::testing::TestWithParam<FlushMode> {
 protected:
  StoreOptions options(const std::filesystem::path& dir, FileSystem* fs, std::mt19937_64& rng) const {
    StoreOptions o = small_options(dir);  // 64 KiB segments, 4-unit index chunks
    o.fs = fs;
    o.flush_mode = GetParam();
    o.flush_interval_ms = 3600000;  // async: flushes come from the message count and checkpoints
    o.flush_interval_messages = std::uniform_int_distribution<int64_t>(1, 30)(rng);
    o.checkpoint_interval_bytes = std::uniform_int_distribution<int64_t>(4 << 10, 48 << 10)(rng);
    o.retention_ms = -1;
    return o;
  }

  static std::vector<std::byte> random_batch(std::mt19937_64& rng) {
    return testutil::make_batch({.records = std::uniform_int_distribution<int32_t>(1, 4)(rng),
                                 .value_bytes = std::uniform_int_distribution<int32_t>(1, 3000)(rng),
                                 .fill = static_cast<uint8_t>(rng())});
  }

  // Partitions whose creation is acknowledged join the model (the power may be cut first).
  static void create_partitions(Store& store, StoreModel& model, uint32_t n) {
    std::promise<Result<std::vector<PartitionId>>> created;
    store.create_partitions(n, [&](Result<std::vector<PartitionId>> r) { created.set_value(std::move(r)); });
    if (auto r = created.get_future().get(); r.ok())
      for (PartitionId pid : *r) model.add_partition(pid);
  }

  // Appends, meta writes and partition creations until the power is cut (or ~150 ops).
  void work(Store& store, StoreModel& model, PowerLossFileSystem& fs, std::mt19937_64& rng) {
    if (model.partitions().size() < 3) create_partitions(store, model, 3);
    for (int op = 0; op < 150 && !fs.cut(); ++op) {
      const int kind = std::uniform_int_distribution<int>(0, 19)(rng);
      const auto known = model.partitions();
      if (kind == 0) {
        model.meta_write(store, "o/" + std::to_string(rng()), std::to_string(op));
      } else if (kind == 1 || known.empty()) {
        create_partitions(store, model, 1);
      } else {
        std::vector<PartitionId> pids;
        std::vector<std::vector<std::byte>> batches;
        for (int n = std::uniform_int_distribution<int>(1, 3)(rng); n > 0; --n) {
          pids.push_back(known[std::uniform_int_distribution<size_t>(0, known.size() - 1)(rng)]);
          batches.push_back(random_batch(rng));
        }
        auto done = model.append(store, pids, std::move(batches));
        if (rng() % 3 == 0) done->get_future().wait();  // otherwise several calls share a group
      }
    }
  }

  // One trial: three rounds of work and power cut; false once a check failed.
  bool trial(uint64_t seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    TempDir dir;
    StoreModel model;
    for (int round = 0; round < 3; ++round) {
      PowerLossFileSystem fs(dir.path(), rng());
      fs.cut_after(std::uniform_int_distribution<int64_t>(1, 400)(rng));
      {
        auto store = Store::open(options(dir.path(), &fs, rng));  // the cut may come during recovery
        if (store.ok()) work(**store, model, fs, rng);
        fs.cut_now();
      }  // the store is dropped without close(): the machine is off
      fs.write_crash_image();
      auto store = open_store(options(dir.path(), nullptr, rng));
      if (store == nullptr) return false;
      model.check(*store, GetParam() == FlushMode::kSync);
      if (::testing::Test::HasFailure()) return false;
      if (round % 2 == 1) {
        EXPECT_TRUE(store->close().ok());  // else the next round starts from a crash
      }
    }
    return true;
  }
};

TEST_P(PowerLossTest, AcknowledgedDataSurvivesAndEachPartitionIsACleanPrefix) {
  const int64_t trials = env_int("ROKKA_POWER_LOSS_TRIALS", 10);
  const auto first = static_cast<uint64_t>(env_int("ROKKA_POWER_LOSS_SEED", 1));
  for (int64_t t = 0; t < trials; ++t) {
    if (!trial(first + static_cast<uint64_t>(t))) break;
  }
}

INSTANTIATE_TEST_SUITE_P(FlushModes, PowerLossTest, ::testing::Values(FlushMode::kSync, FlushMode::kAsync),
                         [](const auto& info) { return info.param == FlushMode::kSync ? "Sync" : "Async"; });

}  // namespace
}  // namespace rokka::storage::test
