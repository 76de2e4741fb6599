// Authorizer: Rokka's ACL store and the one place that decides whether a request may
// act on a resource (what Kafka's StandardAuthorizer/AclAuthorizer do).
//
// Bindings are persisted in the MetaStore, one key per binding under "a/" (the key
// encodes the whole binding, so creating an existing binding again is a no-op), and
// loaded at start. Lookups take a shared lock and may run on any thread; create() and
// remove() are durable before their callback runs (on the storage writer thread:
// hop back before touching asio state).
//
// Decision rules (Kafka's): super users are allowed everything; otherwise the bindings
// whose pattern covers the resource decide: no binding at all -> allow.everyone.if.no.
// acl.found; a matching DENY wins; else a matching ALLOW (ALL, the operation itself, or
// one implying it: see allow_grants). A binding matches a request when its principal is
// the request's or "User:*" and its host is the request's or "*".
#pragma once

#include <functional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "broker/meta/acl.h"
#include "broker/meta/denial_log.h"
#include "storage/meta_store.h"

namespace rokka::broker {

struct AuthorizerOptions {
  bool enabled = false;  // authorizer.class.name set
  bool allow_everyone_if_no_acl_found = false;
  std::vector<std::string> super_users;  // principals, "User:admin"
  DenialLog::Options denials;            // how refusals are logged (denial_log.h)
};

// Parses super.users: principals separated by ';' (blanks around them ignored).
std::vector<std::string> parse_super_users(std::string_view text);

class Authorizer {
 public:
  // The principal of a client that did not authenticate (PLAINTEXT, SSL without a client certificate).
  static constexpr std::string_view kAnonymous = "User:ANONYMOUS";

  Authorizer(storage::MetaStore& meta, AuthorizerOptions options);

  // Loads every binding from the MetaStore (start-up, before serving; in cluster mode again
  // after each change, broker/meta/shared_meta.h). `skip_bad`: a record that does not decode is
  // logged and skipped (etcd's can be written by hand) instead of failing the load.
  storage::Status load(bool skip_bad = false);

  bool enabled() const { return options_.enabled; }

  // Whether `principal` connecting from `host` may perform `op` on the resource.
  // Always true when the authorizer is disabled. A refusal is logged (rate-limited,
  // denial_log.h) unless `log_denial` is false: a caller only computing what is allowed
  // (authorized-operations fields) refuses nothing.
  bool check(std::string_view principal, std::string_view host, AclOperation op, ResourceType type,
             std::string_view name, bool log_denial = true) const;

  // Whether `op` is allowed on at least one resource of `type` (Kafka's
  // authorizeByResourceType, KIP-679): an idempotent producer needs WRITE on some topic.
  bool allowed_on_any(std::string_view principal, std::string_view host, AclOperation op, ResourceType type) const;

  // Bindings matching `filter`, in a stable order (resource, then entry).
  std::vector<AclBinding> describe(const AclFilter& filter) const;

  // Stores valid bindings (the caller validates with validate_binding()).
  void create(std::vector<AclBinding> bindings, std::function<void(storage::Status)> done);

  // Removes every binding matching any filter; reports, per filter, the bindings it
  // matched (a binding matched by two filters is reported under both, as Kafka does).
  using RemoveCallback = std::function<void(storage::Result<std::vector<std::vector<AclBinding>>>)>;
  void remove(std::vector<AclFilter> filters, RemoveCallback done);

  size_t size() const;

  // The MetaStore key of a binding, and back (exposed for tests).
  static std::string encode_key(const AclBinding& binding);
  static std::optional<AclBinding> decode_key(std::string_view key);

 private:
  // The bindings' verdict (check() without the super users and the log).
  bool decide(std::string_view principal, std::string_view host, AclOperation op, ResourceType type,
              std::string_view name) const;

  storage::MetaStore& meta_;
  const AuthorizerOptions options_;
  mutable std::shared_mutex mu_;
  std::set<AclBinding> bindings_;  // GUARDED_BY(mu_)
  mutable DenialLog denials_;
};

}  // namespace rokka::broker
