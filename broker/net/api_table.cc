#include "broker/net/api_table.h"

#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "protocol/api_codecs.h"
#include "protocol/api_keys.h"

namespace rokka::broker {
namespace {

using protocol::ApiKey;

// The Handler a typed handler is served through: the body decoded by its codec (a body
// that does not decode closes the connection as malformed, as Kafka does), then the handler.
template <typename Req, TypedHandler<Req> Fn>
HandlerCoroutine decoded(RequestContext ctx) {
  Req req;
  if (!decode_request(ctx, req))
    co_return storage::Status::malformed(std::string(protocol::api_name(Req::kApiKey)) + "Request");
  co_return co_await Fn(ctx, req);
}

template <typename F>
struct RequestOf;
template <typename Req>
struct RequestOf<HandlerCoroutine (*)(RequestContext&, Req&)> {
  using type = Req;
};

// An API served over all the versions its codec covers; the API is the handler's
// request's (a compile error if protocol/ has no codec for it).
template <auto Fn>
constexpr ApiEntry served(Dispatch dispatch = Dispatch::kOnCompletion) {
  using Req = typename RequestOf<decltype(Fn)>::type;
  const std::optional<protocol::VersionRange> v = protocol::codec_versions(Req::kApiKey);
  if (!v) throw "no codec for this API in protocol/api_codecs.h";  // not a constant: does not compile
  return {Req::kApiKey, v->min, v->max, &decoded<Req, Fn>, dispatch};
}
// An API served over fewer versions than its codec covers (checked at compile time).
template <auto Fn>
[[maybe_unused]] constexpr ApiEntry served_narrower(int16_t min, int16_t max, Dispatch dispatch = Dispatch::kOnCompletion) {
  ApiEntry e = served<Fn>(dispatch);
  if (min < e.min_version || max > e.max_version || min > max) throw "outside the codec's versions";
  e.min_version = min;
  e.max_version = max;
  return e;
}
// ApiVersions: served undecoded, over its codec's versions.
constexpr ApiEntry served_raw(ApiKey key, Handler handle) {
  const std::optional<protocol::VersionRange> v = protocol::codec_versions(key);
  if (!v) throw "no codec for this API in protocol/api_codecs.h";
  return {key, v->min, v->max, handle, Dispatch::kOnCompletion};
}

// Ordered by api key. Each API is served over the versions protocol/'s codec covers
// (protocol/api_codecs.h), end to end; an API without a codec does not compile, and a
// narrower range would be stated here with served_narrower(). ApiVersions is built from
// this table alone.
constexpr ApiEntry kApis[] = {
    served<&handle_produce>(Dispatch::kByHandler),
    served<&handle_fetch>(Dispatch::kImmediately),
    served<&handle_list_offsets>(),
    served<&handle_metadata>(),
    served<&handle_offset_commit>(),
    served<&handle_offset_fetch>(),
    served<&handle_find_coordinator>(),
    served<&handle_join_group>(Dispatch::kImmediately),
    served<&handle_heartbeat>(),
    served<&handle_leave_group>(),
    served<&handle_sync_group>(Dispatch::kImmediately),
    served<&handle_describe_groups>(),
    served<&handle_list_groups>(),
    // v0 is listed, as Kafka does (librdkafka will not authenticate otherwise), but its
    // exchange of raw tokens is not served: a v0 handshake gets UNSUPPORTED_SASL_MECHANISM.
    served<&handle_sasl_handshake>(),
    served_raw(ApiKey::kApiVersions, &handle_api_versions),
    served<&handle_create_topics>(),
    served<&handle_delete_topics>(),
    served<&handle_delete_records>(),
    served<&handle_init_producer_id>(),
    served<&handle_offset_for_leader_epoch>(),
    served<&handle_add_partitions_to_txn>(),
    served<&handle_add_offsets_to_txn>(),
    served<&handle_end_txn>(),
    served<&handle_write_txn_markers>(),  // broker to broker (cluster mode)
    served<&handle_txn_offset_commit>(),
    served<&handle_describe_acls>(),
    served<&handle_create_acls>(),
    served<&handle_delete_acls>(),
    served<&handle_describe_configs>(),
    served<&handle_sasl_authenticate>(),
    served<&handle_alter_configs>(),
    served<&handle_describe_log_dirs>(),
    served<&handle_create_partitions>(),
    served<&handle_incremental_alter_configs>(),
    served<&handle_delete_groups>(),
    served<&handle_elect_leaders>(),
    served<&handle_alter_partition_reassignments>(),
    served<&handle_list_partition_reassignments>(),
    served<&handle_offset_delete>(),
    served<&handle_describe_user_scram_credentials>(),
    served<&handle_alter_user_scram_credentials>(),
    served<&handle_describe_client_quotas>(),
    served<&handle_alter_client_quotas>(),
    served<&handle_describe_cluster>(),
    served<&handle_describe_producers>(),
    served<&handle_describe_transactions>(),
    served<&handle_list_transactions>(),
    served<&handle_consumer_group_heartbeat>(),
    served<&handle_consumer_group_describe>(),
    served<&handle_describe_topic_partitions>(),
};

}  // namespace

std::span<const ApiEntry> api_table() { return kApis; }

const ApiEntry* find_api(int16_t api_key) {
  for (const ApiEntry& e : kApis)
    if (static_cast<int16_t>(e.key) == api_key) return &e;
  return nullptr;
}

}  // namespace rokka::broker
