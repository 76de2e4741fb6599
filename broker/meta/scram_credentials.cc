#include "broker/meta/scram_credentials.h"

#include <mutex>

#include "broker/logging.h"
#include "storage/meta_keys.h"

namespace rokka::broker {
namespace {

using security::ScramCredentialRecord;
using security::ScramMechanism;

constexpr std::string_view kPrefix = storage::meta_prefix::kScramCredentials;

}  // namespace

ScramCredentials::ScramCredentials(storage::MetaStore& meta) : meta_(meta) {}

std::string ScramCredentials::encode_key(std::string_view user, ScramMechanism m) {
  std::string key(kPrefix);
  key += static_cast<char>('0' + static_cast<int>(m));
  key += '/';
  key.append(user);
  return key;
}

storage::Status ScramCredentials::load(bool skip_bad) {
  std::map<std::string, ByMechanism, std::less<>> loaded;
  for (auto& [key, value] : meta_.scan(kPrefix)) {
    auto record = security::decode_scram_credential_record(value);
    std::string bad;
    if (!record.ok())
      bad = "bad scram credential record in the meta journal: " + record.error().message();
    else if (encode_key(record->user, record->mechanism) != key)
      bad = "scram credential record under another user's key in the meta journal";
    if (!bad.empty() && skip_bad) {
      broker_log().warn("scram credential record skipped: key={} error={}", key, bad);
      continue;
    }
    if (!bad.empty()) return storage::Status::corruption(bad);
    loaded[record->user][record->mechanism] = std::move(record->credential);
  }
  std::unique_lock lock(mu_);
  users_ = std::move(loaded);
  return {};
}

std::optional<security::ScramCredential> ScramCredentials::lookup(std::string_view user, ScramMechanism m) const {
  std::shared_lock lock(mu_);
  auto u = users_.find(user);
  if (u == users_.end()) return std::nullopt;
  auto c = u->second.find(m);
  if (c == u->second.end()) return std::nullopt;
  return c->second;
}

security::ScramCredentialLookup ScramCredentials::lookup_function() const {
  return [this](std::string_view user, ScramMechanism m) { return lookup(user, m); };
}

std::vector<ScramCredentials::Info> ScramCredentials::describe(std::string_view user) const {
  std::shared_lock lock(mu_);
  std::vector<Info> out;
  if (auto u = users_.find(user); u != users_.end())
    for (const auto& [m, c] : u->second) out.push_back({m, c.iterations});
  return out;
}

std::vector<std::pair<std::string, std::vector<ScramCredentials::Info>>> ScramCredentials::describe_all() const {
  std::shared_lock lock(mu_);
  std::vector<std::pair<std::string, std::vector<Info>>> out;
  for (const auto& [user, by_mechanism] : users_) {
    auto& [name, infos] = out.emplace_back(user, std::vector<Info>{});
    for (const auto& [m, c] : by_mechanism) infos.push_back({m, c.iterations});
  }
  return out;
}

bool ScramCredentials::contains(std::string_view user, ScramMechanism m) const { return lookup(user, m).has_value(); }

size_t ScramCredentials::size() const {
  std::shared_lock lock(mu_);
  size_t n = 0;
  for (const auto& [user, by_mechanism] : users_) n += by_mechanism.size();
  return n;
}

void ScramCredentials::alter(std::vector<ScramCredentialRecord> upserts, std::vector<Removal> removals,
                             std::function<void(storage::Status)> done) {
  std::vector<storage::MetaStore::Mutation> batch;
  for (const Removal& r : removals) batch.push_back({encode_key(r.user, r.mechanism), "", true});
  for (const ScramCredentialRecord& record : upserts) {
    auto value = security::encode_scram_credential_record(record);
    if (!value.ok()) {
      done(storage::Status::invalid_argument(value.error().message()));
      return;
    }
    batch.push_back({encode_key(record.user, record.mechanism), std::move(value).value(), false});
  }
  meta_.write(std::move(batch), [this, upserts = std::move(upserts), removals = std::move(removals),
                                 done = std::move(done)](storage::Status s) mutable {
    if (s.ok()) {
      std::unique_lock lock(mu_);
      for (const Removal& r : removals) {
        auto u = users_.find(r.user);
        if (u == users_.end()) continue;
        u->second.erase(r.mechanism);
        if (u->second.empty()) users_.erase(u);
      }
      for (ScramCredentialRecord& record : upserts)
        users_[record.user][record.mechanism] = std::move(record.credential);
    }
    done(s);
  });
}

void ScramCredentials::upsert(ScramCredentialRecord record, std::function<void(storage::Status)> done) {
  std::vector<ScramCredentialRecord> upserts;
  upserts.push_back(std::move(record));
  alter(std::move(upserts), {}, std::move(done));
}

void ScramCredentials::remove(std::string user, ScramMechanism m, std::function<void(storage::Status)> done) {
  alter({}, {Removal{std::move(user), m}}, std::move(done));
}

}  // namespace rokka::broker
