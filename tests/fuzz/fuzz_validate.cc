// libFuzzer target: RecordValidator under every codec through protocol::fuzz_record_validator
// (records compressed here or taken as a raw section; small chunks so records span them),
// checked against the whole-section RecordReader.
#include <cstddef>
#include <cstdint>

#include "protocol/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rokka::protocol::fuzz_record_validator({reinterpret_cast<const std::byte*>(data), size});
  return 0;
}
