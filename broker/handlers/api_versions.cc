#include "protocol/messages/api_versions.h"

#include "broker/net/api_table.h"
#include "broker/handlers/handlers.h"
#include "protocol/error_code.h"

namespace rokka::broker {
namespace {

using protocol::ErrorCode;

// KIP-511: client software name and version must match [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?
bool valid_software_field(std::string_view s) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!alnum(c) && c != '-' && c != '.') return false;
  return true;
}

// The feature levels (KIP-584) that a Kafka 3.9 / 4.x broker reports in ApiVersions v3+,
// as far as Rokka honestly supports them. One broker, no KRaft log: each feature has
// exactly one level, supported and finalized. A level of 0 means the feature is off;
// Kafka lists such features as supported (v4) but never as finalized.
struct Feature {
  std::string_view name;
  int16_t level;
};
constexpr Feature kFeatures[] = {
    // The metadata format the broker behaves as: Kafka 3.9's (3.9-IV0). Rokka keeps no
    // metadata log to upgrade, so it reports that one level only.
    {"metadata.version", 21},
    // 0: a static controller quorum (level 1 is KIP-853's dynamic quorum).
    {"kraft.version", 0},
    // 1: KIP-848's consumer group protocol (ConsumerGroupHeartbeat) beside the classic one.
    {"group.version", 1},
    // 0: transactions as before KIP-890 part 2 (level 2 would let producers skip
    // AddPartitionsToTxn, which Rokka still needs; EndTxn is served up to v3).
    {"transaction.version", 0},
};
// The features never change while the broker runs: one epoch, valid (>= 0).
constexpr int64_t kFeaturesEpoch = 0;

void add_features(protocol::ApiVersionsResponse& resp, int16_t version) {
  if (version < 3) return;  // no tagged fields before v3
  for (const Feature& f : kFeatures) {
    // Before v4 a supported feature whose minimum is 0 is left out (KAFKA-17011:
    // older clients reject one).
    if (version >= 4 || f.level > 0) resp.supported_features.push_back({std::string(f.name), f.level, f.level});
    if (f.level > 0) resp.finalized_features.push_back({std::string(f.name), f.level, f.level});
  }
  resp.finalized_features_epoch = kFeaturesEpoch;
}

}  // namespace

boost::asio::awaitable<HandlerResult> handle_api_versions(RequestContext ctx) {
  const ApiEntry* self = find_api(static_cast<int16_t>(protocol::ApiKey::kApiVersions));
  protocol::ApiVersionsResponse resp;
  for (const ApiEntry& e : api_table())
    resp.api_keys.push_back({static_cast<int16_t>(e.key), e.min_version, e.max_version});

  int16_t version = ctx.version();
  if (version < self->min_version || version > self->max_version) {
    // A version we do not know: answer in v0, which every client can read, and
    // list what we support so the client can retry with one of them.
    resp.error_code = ErrorCode::kUnsupportedVersion;
    version = 0;
  } else {
    protocol::ApiVersionsRequest req;
    if (!protocol::decode_request(req, ctx.body(), version)) co_return storage::Status::malformed("ApiVersionsRequest");
    if (version >= 3 &&
        (!valid_software_field(req.client_software_name) || !valid_software_field(req.client_software_version))) {
      resp.error_code = ErrorCode::kInvalidRequest;
    }
  }
  add_features(resp, version);
  Response out;
  protocol::encode(resp, out.body, version);
  co_return out;
}

}  // namespace rokka::broker
