// MetaStore: the store's durable key/value journal for broker state (topics, the
// partition table, producer ids, committed offsets, group and transaction metadata).
// Implemented by the Store (Store::meta()) over storage/meta_journal.h; tests use
// tests/testutil/fake_meta_store.h. Every key starts with its owner's prefix from
// storage/meta_keys.h.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/meta_keys.h"
#include "storage/types.h"

namespace rokka::storage {

// A write is a batch of puts/erases applied atomically; the callback reports once it
// is durable under the store's flush mode (sync: fsync'd; async: written to the file).
// The Store runs the callback on its writer thread: hand the result over, never block.
class MetaStore {
 public:
  struct Mutation {
    std::string key;
    std::string value;
    bool erase = false;
  };
  virtual ~MetaStore() = default;
  virtual void write(std::vector<Mutation> batch, StatusCallback done) = 0;
  // Snapshot of every live key with `prefix` (startup loading; not for hot paths).
  virtual std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const = 0;
};

}  // namespace rokka::storage
