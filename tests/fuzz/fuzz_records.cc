// libFuzzer target: a Produce `records` blob through protocol::fuzz_records (split into
// batches, validated, decompressed with bounds, every record iterated).
#include <cstddef>
#include <cstdint>

#include "protocol/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rokka::protocol::fuzz_records({reinterpret_cast<const std::byte*>(data), size});
  return 0;
}
