// libFuzzer target: a request frame (header then body, no size prefix) of any API and
// version, through protocol::fuzz_decode_request (decode, re-encode, decode again).
#include <cstddef>
#include <cstdint>

#include "protocol/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rokka::protocol::fuzz_decode_request({reinterpret_cast<const std::byte*>(data), size});
  return 0;
}
