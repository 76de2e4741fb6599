// ScramCredentials: the broker's SCRAM credentials, one per (user, mechanism), what
// SaslAuthenticate's SCRAM exchanges look up and AlterUserScramCredentials /
// DescribeUserScramCredentials manage (Kafka's ScramControlManager, on one broker).
//
// Each credential is one MetaStore key under "u/" (meta_prefix::kScramCredentials):
// "u/" + the mechanism's type digit ('1' SHA-256, '2' SHA-512) + '/' + the user name,
// whose value is security::encode_scram_credential_record (user and mechanism again,
// salt, iterations, StoredKey, ServerKey; never the password). load() reads them all
// at start. Lookups take a shared lock and may run on any thread; alter() is durable
// before its callback runs (on the storage writer thread: hop back before touching
// asio state), and a lookup sees the change from then on.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "security/scram_credential_record.h"
#include "security/scram_crypto.h"
#include "security/scram_server.h"
#include "storage/meta_store.h"

namespace rokka::broker {

class ScramCredentials {
 public:
  explicit ScramCredentials(storage::MetaStore& meta);

  // Loads every credential from the MetaStore (start-up, before serving; in cluster mode
  // again after each change). `skip_bad`: a record that does not decode is logged and
  // skipped instead of failing the load.
  storage::Status load(bool skip_bad = false);

  std::optional<security::ScramCredential> lookup(std::string_view user, security::ScramMechanism m) const;
  // lookup() as a ScramServer takes it; this object must outlive the function.
  security::ScramCredentialLookup lookup_function() const;

  // What DescribeUserScramCredentials shows of one credential.
  struct Info {
    security::ScramMechanism mechanism = security::ScramMechanism::kSha256;
    int32_t iterations = 0;
    bool operator==(const Info&) const = default;
  };
  // The user's credentials by mechanism; empty if the user has none.
  std::vector<Info> describe(std::string_view user) const;
  // Every user with at least one credential, in name order.
  std::vector<std::pair<std::string, std::vector<Info>>> describe_all() const;
  bool contains(std::string_view user, security::ScramMechanism m) const;

  // Upserts and removals as one atomic MetaStore batch. A record whose encoding fails
  // (a bound of scram_credential_record.h broken) fails the whole batch with
  // kInvalidArgument before anything is written.
  struct Removal {
    std::string user;
    security::ScramMechanism mechanism = security::ScramMechanism::kSha256;
  };
  void alter(std::vector<security::ScramCredentialRecord> upserts, std::vector<Removal> removals,
             std::function<void(storage::Status)> done);
  void upsert(security::ScramCredentialRecord record, std::function<void(storage::Status)> done);
  void remove(std::string user, security::ScramMechanism m, std::function<void(storage::Status)> done);

  size_t size() const;

  // The MetaStore key of a credential (exposed for tests).
  static std::string encode_key(std::string_view user, security::ScramMechanism m);

 private:
  using ByMechanism = std::map<security::ScramMechanism, security::ScramCredential>;
  storage::MetaStore& meta_;
  mutable std::shared_mutex mu_;
  std::map<std::string, ByMechanism, std::less<>> users_;  // GUARDED_BY(mu_)
};

}  // namespace rokka::broker
