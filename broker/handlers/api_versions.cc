#include "protocol/messages/api_versions.h"

#include "broker/api_table.h"
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
    resp.error_code = protocol::to_int(ErrorCode::kUnsupportedVersion);
    version = 0;
  } else {
    protocol::ApiVersionsRequest req;
    if (!protocol::decode_request(req, ctx.body(), version)) co_return storage::Status::malformed("ApiVersionsRequest");
    if (version >= 3 &&
        (!valid_software_field(req.client_software_name) || !valid_software_field(req.client_software_version))) {
      resp.error_code = protocol::to_int(ErrorCode::kInvalidRequest);
    }
  }
  Response out;
  protocol::encode(resp, out.body, version);
  co_return out;
}

}  // namespace rokka::broker
