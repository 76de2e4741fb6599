// DescribeUserScramCredentials (50) and AlterUserScramCredentials (51): the broker's
// SCRAM credentials (broker/meta/scram_credentials.h) over the wire, with the checks and
// messages of Kafka's ScramControlManager. Describing needs Cluster DESCRIBE, altering
// Cluster ALTER. An alteration is durable before its response leaves, and its valid
// changes are one atomic write.
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/net/async.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/meta/scram_credentials.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "security/scram_crypto.h"

namespace rokka::broker {
namespace {

using protocol::ErrorCode;
using security::ScramMechanism;

constexpr std::string_view kClusterAuthorizationFailed = "Cluster authorization failed.";
constexpr std::string_view kDescribeNotFound = "Attempt to describe a user credential that does not exist";
constexpr std::string_view kDescribeTwice = "Cannot describe SCRAM credentials for the same user twice in a single request";
constexpr std::string_view kDeleteNotFound = "Attempt to delete a user credential that does not exist";
constexpr std::string_view kAlterTwice = "A user credential cannot be altered twice in the same request";
constexpr std::string_view kEmptyUser = "Username must not be empty";
constexpr std::string_view kUnknownMechanism = "Unknown SCRAM mechanism";

std::string_view as_chars(protocol::Bytes b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// One user's outcome in an AlterUserScramCredentials request.
struct Outcome {
  ErrorCode error = ErrorCode::kNone;
  std::string message;
};

}  // namespace

boost::asio::awaitable<HandlerResult> handle_describe_user_scram_credentials(RequestContext& ctx, protocol::DescribeUserScramCredentialsRequest& req) {
  protocol::DescribeUserScramCredentialsResponse resp;
  if (!authorized_cluster(ctx, AclOperation::kDescribe)) {  // the request-level error, repeated per named user
    resp.error_code = ErrorCode::kClusterAuthorizationFailed;
    resp.error_message = std::string(kClusterAuthorizationFailed);
    if (req.users)
      for (const auto& u : *req.users)
        resp.results.push_back({std::string(u.name), resp.error_code, resp.error_message, {}});
    co_return make_response(resp, ctx.version());
  }
  const ScramCredentials& store = ctx.services->scram;
  auto add = [&](std::string user, const std::vector<ScramCredentials::Info>& infos) {
    auto& r = resp.results.emplace_back();
    r.user = std::move(user);
    for (const auto& info : infos) r.credential_infos.push_back({static_cast<int8_t>(info.mechanism), info.iterations});
  };
  if (!req.users || req.users->empty()) {  // every user with a credential
    for (auto& [user, infos] : store.describe_all()) add(user, infos);
    co_return make_response(resp, ctx.version());
  }
  std::map<std::string_view, int> times;
  for (const auto& u : *req.users) ++times[u.name];
  std::set<std::string_view> answered;
  for (const auto& u : *req.users) {
    if (!answered.insert(u.name).second) continue;  // one result per user
    if (times[u.name] > 1) {
      auto& r = resp.results.emplace_back();
      r.user = std::string(u.name);
      r.error_code = ErrorCode::kDuplicateResource;
      r.error_message = std::string(kDescribeTwice);
      continue;
    }
    const auto infos = store.describe(u.name);
    if (infos.empty()) {
      auto& r = resp.results.emplace_back();
      r.user = std::string(u.name);
      r.error_code = ErrorCode::kResourceNotFound;
      r.error_message = std::string(kDescribeNotFound);
      continue;
    }
    add(std::string(u.name), infos);
  }
  co_return make_response(resp, ctx.version());
}

// GCC 12 reports asio's coroutine frame allocation of this handler as mismatched
// new/delete (the false positive of handle_produce and handle_create_topics).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
boost::asio::awaitable<HandlerResult> handle_alter_user_scram_credentials(RequestContext& ctx, protocol::AlterUserScramCredentialsRequest& req) {
  protocol::AlterUserScramCredentialsResponse resp;

  // One result per user, in the order users first appear (deletions, then upsertions).
  std::vector<std::string_view> users;
  std::map<std::string_view, int> times;
  for (const auto& d : req.deletions)
    if (times[d.name]++ == 0) users.push_back(d.name);
  for (const auto& u : req.upsertions)
    if (times[u.name]++ == 0) users.push_back(u.name);

  if (!authorized_cluster(ctx, AclOperation::kAlter)) {
    for (std::string_view user : std::set<std::string_view>(users.begin(), users.end()))  // sorted, as Kafka's
      resp.results.push_back({std::string(user), ErrorCode::kClusterAuthorizationFailed,
                              std::string(kClusterAuthorizationFailed)});
    co_return make_response(resp, ctx.version());
  }

  ScramCredentials& store = ctx.services->scram;
  std::map<std::string_view, Outcome> outcome;
  auto fail = [&](std::string_view user, ErrorCode e, std::string message) {
    outcome[user] = Outcome{e, std::move(message)};
  };
  for (std::string_view user : users) {
    if (user.empty()) {
      fail(user, ErrorCode::kUnacceptableCredential, std::string(kEmptyUser));
    } else if (times[user] > 1) {
      fail(user, ErrorCode::kDuplicateResource, std::string(kAlterTwice));
    } else {
      outcome[user] = Outcome{};
    }
  }

  std::vector<ScramCredentials::Removal> removals;
  std::vector<security::ScramCredentialRecord> upserts;
  for (const auto& d : req.deletions) {
    if (outcome[d.name].error != ErrorCode::kNone) continue;
    const auto m = security::scram_mechanism_from_type(d.mechanism);
    if (!m) {
      fail(d.name, ErrorCode::kUnsupportedSaslMechanism, std::string(kUnknownMechanism));
    } else if (!store.contains(d.name, *m)) {
      fail(d.name, ErrorCode::kResourceNotFound, std::string(kDeleteNotFound));
    } else {
      removals.push_back({std::string(d.name), *m});
    }
  }
  for (const auto& u : req.upsertions) {
    if (outcome[u.name].error != ErrorCode::kNone) continue;
    const auto m = security::scram_mechanism_from_type(u.mechanism);
    if (!m) {
      fail(u.name, ErrorCode::kUnsupportedSaslMechanism, std::string(kUnknownMechanism));
      continue;
    }
    auto credential = security::scram_credential_from_salted_password(*m, as_chars(u.salt), as_chars(u.salted_password),
                                                                      u.iterations);
    if (!credential.ok()) {
      fail(u.name, ErrorCode::kUnacceptableCredential, credential.error().message());
      continue;
    }
    security::ScramCredentialRecord record{std::string(u.name), *m, std::move(credential).value()};
    if (auto encoded = security::encode_scram_credential_record(record); !encoded.ok()) {
      fail(u.name, ErrorCode::kUnacceptableCredential, encoded.error().message());
      continue;
    }
    upserts.push_back(std::move(record));
  }

  if (!removals.empty() || !upserts.empty()) {
    const storage::Status s = co_await await_callback<storage::Status>([&](std::function<void(storage::Status)> done) {
      store.alter(std::move(upserts), std::move(removals), std::move(done));
    });
    if (!s.ok()) {
      for (auto& [user, o] : outcome)
        if (o.error == ErrorCode::kNone) o = Outcome{to_kafka(s), s.message()};
    }
  }

  for (std::string_view user : users) {
    const Outcome& o = outcome[user];
    auto& r = resp.results.emplace_back();
    r.user = std::string(user);
    r.error_code = o.error;
    if (o.error != ErrorCode::kNone) r.error_message = o.message;
  }
  co_return make_response(resp, ctx.version());
}
#pragma GCC diagnostic pop

}  // namespace rokka::broker
