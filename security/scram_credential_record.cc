#include "security/scram_credential_record.h"

#include <cstdint>

#include "wire/endian.h"

namespace rokka::security {
namespace {

constexpr uint8_t kVersion = 1;

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool take(size_t n, std::string_view& out) {
    if (b_.size() - pos_ < n) return false;
    out = b_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool u8(uint32_t& v) { return be(1, v); }
  bool u16(uint32_t& v) { return be(2, v); }
  bool u32(uint32_t& v) { return be(4, v); }
  bool at_end() const { return pos_ == b_.size(); }

 private:
  bool be(size_t n, uint32_t& v) {
    std::string_view s;
    if (!take(n, s)) return false;
    v = static_cast<uint32_t>(wire::get_be(reinterpret_cast<const std::byte*>(s.data()), static_cast<int>(n)));
    return true;
  }
  std::string_view b_;
  size_t pos_ = 0;
};

void put_be(std::string& out, uint32_t v, int bytes) {
  out.resize(out.size() + static_cast<size_t>(bytes));
  wire::put_be(reinterpret_cast<std::byte*>(out.data() + out.size() - static_cast<size_t>(bytes)), v, bytes);
}

Status check(const ScramCredentialRecord& r) {
  if (r.user.empty() || r.user.size() > kMaxScramUserBytes)
    return Error("scram credential record: user name of " + std::to_string(r.user.size()) + " bytes");
  if (Status s = validate_scram_iterations(r.credential.iterations); !s.ok())
    return Error("scram credential record: " + s.message());
  if (r.credential.salt.empty() || r.credential.salt.size() > kMaxScramSaltBytes)
    return Error("scram credential record: salt of " + std::to_string(r.credential.salt.size()) + " bytes");
  const size_t digest = scram_digest_size(scram_hash(r.mechanism));
  if (r.credential.stored_key.size() != digest || r.credential.server_key.size() != digest)
    return Error("scram credential record: keys must have " + std::to_string(digest) + " bytes");
  return {};
}

}  // namespace

Result<std::string> encode_scram_credential_record(const ScramCredentialRecord& r) {
  if (Status s = check(r); !s.ok()) return Error(s.message());
  std::string out;
  out.push_back(static_cast<char>(kVersion));
  out.push_back(static_cast<char>(r.mechanism));
  put_be(out, static_cast<uint32_t>(r.user.size()), 2);
  out += r.user;
  put_be(out, static_cast<uint32_t>(r.credential.iterations), 4);
  out.push_back(static_cast<char>(r.credential.salt.size()));
  out += r.credential.salt;
  out += r.credential.stored_key;
  out += r.credential.server_key;
  return out;
}

Result<ScramCredentialRecord> decode_scram_credential_record(std::string_view bytes) {
  Reader in(bytes);
  uint32_t version = 0, type = 0, user_size = 0, iterations = 0, salt_size = 0;
  if (!in.u8(version) || version != kVersion)
    return Error("scram credential record: unknown version " + std::to_string(version));
  if (!in.u8(type)) return Error("scram credential record: truncated");
  const auto mechanism = scram_mechanism_from_type(static_cast<int8_t>(type));
  if (!mechanism) return Error("scram credential record: unknown mechanism type " + std::to_string(type));
  ScramCredentialRecord r;
  r.mechanism = *mechanism;
  std::string_view user, salt, stored, server;
  if (!in.u16(user_size) || user_size == 0 || user_size > kMaxScramUserBytes || !in.take(user_size, user))
    return Error("scram credential record: bad user name");
  if (!in.u32(iterations) || iterations > static_cast<uint32_t>(kScramMaxIterations))
    return Error("scram credential record: bad iterations");
  const size_t digest = scram_digest_size(scram_hash(r.mechanism));
  if (!in.u8(salt_size) || salt_size == 0 || salt_size > kMaxScramSaltBytes || !in.take(salt_size, salt) ||
      !in.take(digest, stored) || !in.take(digest, server))
    return Error("scram credential record: truncated");
  if (!in.at_end()) return Error("scram credential record: trailing bytes");
  r.user = std::string(user);
  r.credential = {std::string(salt), std::string(stored), std::string(server), static_cast<int32_t>(iterations)};
  if (Status s = check(r); !s.ok()) return Error(s.message());
  return r;
}

}  // namespace rokka::security
