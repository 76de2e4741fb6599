#include "broker/meta/authorizer.h"

#include <algorithm>
#include <mutex>

#include "broker/logging.h"
#include "coordinator/byte_codec.h"
#include "storage/meta_keys.h"

namespace rokka::broker {
namespace {

constexpr std::string_view kPrefix = storage::meta_prefix::kAcls;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool entry_applies(const AclBinding& b, std::string_view principal, std::string_view host) {
  return (b.principal == principal || b.principal == kWildcardPrincipal) && (b.host == host || b.host == kWildcard);
}

}  // namespace

std::vector<std::string> parse_super_users(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t semi = text.find(';');
    const std::string_view one = trim(text.substr(0, semi));
    if (!one.empty()) out.emplace_back(one);
    if (semi == std::string_view::npos) break;
    text.remove_prefix(semi + 1);
  }
  return out;
}

Authorizer::Authorizer(storage::MetaStore& meta, AuthorizerOptions options)
    : meta_(meta), options_(std::move(options)), denials_(options_.denials) {}

// Key layout after "a/" (big-endian, coordinator/byte_codec.h): i8 resource type,
// str16 name, i8 pattern type, str16 principal, str16 host, i8 operation, i8 permission.
std::string Authorizer::encode_key(const AclBinding& b) {
  coordinator::ByteWriter w;
  w.raw(kPrefix);
  w.i8(static_cast<int8_t>(b.resource_type));
  w.str16(b.resource_name);
  w.i8(static_cast<int8_t>(b.pattern_type));
  w.str16(b.principal);
  w.str16(b.host);
  w.i8(static_cast<int8_t>(b.operation));
  w.i8(static_cast<int8_t>(b.permission));
  return std::move(w).take();
}

std::optional<AclBinding> Authorizer::decode_key(std::string_view key) {
  if (!key.starts_with(kPrefix)) return std::nullopt;
  coordinator::ByteReader r(key.substr(kPrefix.size()));
  AclBinding b;
  b.resource_type = to_resource_type(r.i8());
  b.resource_name = std::string(r.str16());
  b.pattern_type = to_pattern_type(r.i8());
  b.principal = std::string(r.str16());
  b.host = std::string(r.str16());
  b.operation = to_acl_operation(r.i8());
  b.permission = to_acl_permission(r.i8());
  if (!r.at_end() || validate_binding(b)) return std::nullopt;
  return b;
}

storage::Status Authorizer::load(bool skip_bad) {
  std::set<AclBinding> loaded;
  for (auto& [key, value] : meta_.scan(kPrefix)) {
    auto b = decode_key(key);
    if (!b && skip_bad) {
      broker_log().warn("acl binding record does not decode, skipped: key_bytes={}", key.size());
      continue;
    }
    if (!b) return storage::Status::corruption("bad acl binding record in the meta journal");
    loaded.insert(std::move(*b));
  }
  std::unique_lock lock(mu_);
  bindings_ = std::move(loaded);
  return {};
}

size_t Authorizer::size() const {
  std::shared_lock lock(mu_);
  return bindings_.size();
}

bool Authorizer::check(std::string_view principal, std::string_view host, AclOperation op, ResourceType type,
                       std::string_view name, bool log_denial) const {
  if (!options_.enabled) return true;
  if (std::find(options_.super_users.begin(), options_.super_users.end(), principal) != options_.super_users.end())
    return true;
  const bool allowed = decide(principal, host, op, type, name);
  if (!allowed && log_denial) denials_.denied(principal, host, op, type, name);
  return allowed;
}

bool Authorizer::decide(std::string_view principal, std::string_view host, AclOperation op, ResourceType type,
                        std::string_view name) const {
  std::shared_lock lock(mu_);
  bool any_binding = false;
  bool allowed = false;
  // The set is ordered by resource type first: visit only this type's bindings.
  AclBinding first;
  first.resource_type = type;
  first.pattern_type = PatternType::kUnknown;
  for (auto it = bindings_.lower_bound(first); it != bindings_.end() && it->resource_type == type; ++it) {
    const AclBinding& b = *it;
    if (!pattern_covers(b, type, name)) continue;
    any_binding = true;
    if (!entry_applies(b, principal, host)) continue;
    if (b.permission == AclPermission::kDeny && (b.operation == op || b.operation == AclOperation::kAll)) return false;
    if (b.permission == AclPermission::kAllow && allow_grants(b.operation, op)) allowed = true;
  }
  return any_binding ? allowed : options_.allow_everyone_if_no_acl_found;
}

bool Authorizer::allowed_on_any(std::string_view principal, std::string_view host, AclOperation op,
                                ResourceType type) const {
  // A resource no binding names stands for "everything else": allowed by a super user,
  // a wildcard ALLOW or allow.everyone.if.no.acl.found.
  if (check(principal, host, op, type, "\x01no-such-resource")) return true;
  std::shared_lock lock(mu_);
  std::vector<const AclBinding*> denies;
  std::vector<const AclBinding*> allows;
  for (const AclBinding& b : bindings_) {
    if (b.resource_type != type || !entry_applies(b, principal, host)) continue;
    if (b.permission == AclPermission::kDeny && (b.operation == op || b.operation == AclOperation::kAll)) {
      if (b.pattern_type == PatternType::kLiteral && b.resource_name == kWildcard) return false;
      denies.push_back(&b);
    } else if (b.permission == AclPermission::kAllow && allow_grants(b.operation, op)) {
      allows.push_back(&b);
    }
  }
  // An ALLOW counts unless a DENY covers everything it names.
  for (const AclBinding* a : allows) {
    const bool covered = std::any_of(denies.begin(), denies.end(), [&](const AclBinding* d) {
      if (d->pattern_type == PatternType::kPrefixed) return a->resource_name.starts_with(d->resource_name);
      return a->pattern_type == PatternType::kLiteral && a->resource_name == d->resource_name;
    });
    if (!covered) return true;
  }
  return false;
}

std::vector<AclBinding> Authorizer::describe(const AclFilter& filter) const {
  std::shared_lock lock(mu_);
  std::vector<AclBinding> out;
  for (const AclBinding& b : bindings_)
    if (filter_matches(filter, b)) out.push_back(b);
  return out;
}

void Authorizer::create(std::vector<AclBinding> bindings, std::function<void(storage::Status)> done) {
  std::vector<storage::MetaStore::Mutation> batch;
  for (const AclBinding& b : bindings) batch.push_back({encode_key(b), "", false});
  meta_.write(std::move(batch), [this, bindings = std::move(bindings), done = std::move(done)](storage::Status s) {
    if (s.ok()) {
      std::unique_lock lock(mu_);
      bindings_.insert(bindings.begin(), bindings.end());
    }
    done(s);
  });
}

void Authorizer::remove(std::vector<AclFilter> filters, RemoveCallback done) {
  std::vector<std::vector<AclBinding>> matched;
  std::set<AclBinding> doomed;
  for (const AclFilter& f : filters) {
    matched.push_back(describe(f));
    doomed.insert(matched.back().begin(), matched.back().end());
  }
  if (doomed.empty()) return done(std::move(matched));
  std::vector<storage::MetaStore::Mutation> batch;
  for (const AclBinding& b : doomed) batch.push_back({encode_key(b), "", true});
  meta_.write(std::move(batch), [this, doomed = std::move(doomed), matched = std::move(matched),
                                 done = std::move(done)](storage::Status s) mutable {
    if (!s.ok()) return done(s);
    {
      std::unique_lock lock(mu_);
      for (const AclBinding& b : doomed) bindings_.erase(b);
    }
    done(std::move(matched));
  });
}

}  // namespace rokka::broker
