// Placeholder until the storage engine lands: Store::open reports that it is missing.
#include "storage/store.h"

namespace rokka::storage {

Result<std::unique_ptr<Store>> Store::open(StoreOptions) {
  return Status::io_error("the storage engine is not built yet");
}

}  // namespace rokka::storage
