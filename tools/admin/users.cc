// rokka-admin users: SCRAM credentials (what kafka-configs.sh --entity-type users
// --alter --add-config 'SCRAM-SHA-512=[password=...]' manages): describe, alter,
// delete. librdkafka 2.0.2's Admin API has no Describe/AlterUserScramCredentials, so
// these go through WireConnection (tools/admin/wire.h), with the same --command-config.
// The salted password is computed here, as Kafka's tools do: the password never
// reaches the broker.
#include <openssl/rand.h>

#include <array>

#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "security/scram_crypto.h"
#include "tools/admin/cli.h"
#include "tools/admin/commands.h"
#include "tools/admin/text.h"
#include "tools/admin/wire.h"

namespace rokka::admin {
namespace {

security::ScramMechanism mechanism(const Invocation& inv) {
  const std::string name = inv.get<std::string>("mechanism");
  const auto m = security::scram_mechanism_from_name(name);
  if (!m) throw UsageError("--mechanism: '" + name + "' is not SCRAM-SHA-256 or SCRAM-SHA-512");
  return *m;
}

Value error_cell(const std::string& user, protocol::ErrorCode code, const std::optional<std::string>& message) {
  return item_error("user " + user, static_cast<rd_kafka_resp_err_t>(protocol::to_int(code)), message ? message->c_str() : nullptr);
}

int run_describe(const Invocation& inv) {
  WireConnection wire(inv.client());
  protocol::DescribeUserScramCredentialsRequest req;
  if (!inv.words().empty()) {
    req.users.emplace();
    for (const std::string& u : inv.words()) req.users->push_back({u});
  }
  const auto resp = wire.call<protocol::DescribeUserScramCredentialsResponse>(req, 0);
  if (resp.error_code != protocol::ErrorCode::kNone)
    throw KafkaError(static_cast<rd_kafka_resp_err_t>(resp.error_code),
                     "DescribeUserScramCredentials" + (resp.error_message ? ": " + *resp.error_message : std::string()));
  Document doc;
  Table& t = doc.table("users", {"user", "mechanism", "iterations", "error"});
  bool failed = false;
  for (const auto& r : resp.results) {
    if (r.error_code != protocol::ErrorCode::kNone) {
      failed = true;
      t.add({r.user, nullptr, nullptr, error_cell(r.user, r.error_code, r.error_message)});
      continue;
    }
    for (const auto& c : r.credential_infos) {
      const auto m = security::scram_mechanism_from_type(c.mechanism);
      t.add({r.user, m ? Value(std::string(security::scram_mechanism_name(*m))) : Value(int64_t{c.mechanism}),
             c.iterations, nullptr});
    }
  }
  inv.print(doc);
  return exit_code(failed);
}

// AlterUserScramCredentials with `upserts` or `deletes` for every user named.
int alter(const Invocation& inv, bool upsert) {
  const security::ScramMechanism m = mechanism(inv);
  const int8_t type = static_cast<int8_t>(m);
  protocol::AlterUserScramCredentialsRequest req;
  std::vector<std::string> salts, salted;  // the request's views point into these
  salts.reserve(inv.words().size());
  salted.reserve(inv.words().size());
  if (upsert) {
    const int32_t iterations = inv.get<int32_t>("iterations");
    if (auto s = security::validate_scram_iterations(iterations); !s.ok()) throw UsageError("--iterations: " + s.message());
    const std::string password = inv.get<std::string>("password");
    for (const std::string& user : inv.words()) {
      std::array<unsigned char, 32> salt{};
      if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1)
        throw KafkaError(RD_KAFKA_RESP_ERR__FAIL, "no random bytes for the salt");
      salts.emplace_back(reinterpret_cast<const char*>(salt.data()), salt.size());
      salted.push_back(security::scram_salted_password(security::scram_hash(m), password, salts.back(), iterations));
      req.upsertions.push_back({user, type, iterations,
                                protocol::Bytes(reinterpret_cast<const std::byte*>(salts.back().data()), salts.back().size()),
                                protocol::Bytes(reinterpret_cast<const std::byte*>(salted.back().data()),
                                                salted.back().size())});
    }
  } else {
    for (const std::string& user : inv.words()) req.deletions.push_back({user, type});
  }
  WireConnection wire(inv.client());
  const auto resp = wire.call<protocol::AlterUserScramCredentialsResponse>(req, 0);
  Document doc;
  Table& t = doc.table("users", {"user", "mechanism", "error"});
  bool failed = false;
  for (const auto& r : resp.results) {
    failed |= r.error_code != protocol::ErrorCode::kNone;
    t.add({r.user, std::string(security::scram_mechanism_name(m)),
           r.error_code == protocol::ErrorCode::kNone ? Value(nullptr) : error_cell(r.user, r.error_code, r.error_message)});
  }
  inv.print(doc);
  return exit_code(failed);
}

void mechanism_option(po::options_description_easy_init& add) {
  add("mechanism", po::value<std::string>()->default_value("SCRAM-SHA-512")->value_name("M"),
      "SCRAM-SHA-256 or SCRAM-SHA-512");
}

}  // namespace

Command users_command() {
  Command describe{.name = "describe",
                   .summary = "SCRAM credentials: mechanisms and iterations (DescribeUserScramCredentials)",
                   .words = "[USER...]",
                   .description = "Without users: every user with a credential. A user without one is an error "
                                  "(RESOURCE_NOT_FOUND).",
                   .run = run_describe};
  Command alter_cmd{.name = "alter",
                    .summary = "create or replace users' SCRAM credential (AlterUserScramCredentials)",
                    .words = "USER...",
                    .min_words = 1,
                    .options =
                        [](po::options_description_easy_init& add) {
                          mechanism_option(add);
                          add("password", po::value<std::string>()->required()->value_name("PASSWORD"),
                              "the password (salted and iterated here; only the result is sent)");
                          add("iterations", po::value<int32_t>()->default_value(4096)->value_name("N"),
                              "SCRAM iterations, 4096 to 16384");
                        },
                    .description = "The credential works as soon as this returns.",
                    .run = [](const Invocation& inv) { return alter(inv, true); }};
  Command delete_cmd{.name = "delete",
                     .summary = "delete users' SCRAM credential of one mechanism (AlterUserScramCredentials)",
                     .words = "USER...",
                     .min_words = 1,
                     .options = mechanism_option,
                     .run = [](const Invocation& inv) { return alter(inv, false); }};
  return {.name = "users",
          .summary = "SCRAM users (Describe/AlterUserScramCredentials)",
          .subcommands = {describe, alter_cmd, delete_cmd}};
}

}  // namespace rokka::admin
