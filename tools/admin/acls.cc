// rokka-admin acls: list, create, delete (DescribeAcls, CreateAcls, DeleteAcls).
#include <algorithm>
#include <array>

#include "tools/admin/cli.h"
#include "tools/admin/commands.h"
#include "tools/admin/text.h"

namespace rokka::admin {

namespace {

using AclBinding = Owned<rd_kafka_AclBinding_t, rd_kafka_AclBinding_destroy>;

// Kafka's resource type names by code; librdkafka 2.0.2 calls 4 BROKER and handles
// ACLs only up to it (topic, group, cluster).
constexpr std::array<const char*, 8> kResourceTypes = {
    "UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"};

std::string resource_type_name(rd_kafka_ResourceType_t t) {
  const auto i = static_cast<size_t>(t);
  return i < kResourceTypes.size() ? kResourceTypes[i] : std::to_string(i);
}

rd_kafka_ResourceType_t parse_resource_type(const std::string& text) {
  const std::string want = normalized_name(text);
  for (size_t i = 1; i < kResourceTypes.size(); ++i) {
    if (normalized_name(kResourceTypes[i]) != want && !(i == RD_KAFKA_RESOURCE_BROKER && want == "BROKER")) continue;
    if (i >= RD_KAFKA_RESOURCE__CNT)
      throw UsageError("--resource-type " + text + ": librdkafka 2.0.2 handles ACLs on topic, group and cluster only");
    return static_cast<rd_kafka_ResourceType_t>(i);
  }
  throw UsageError("--resource-type: unknown '" + text + "' (any, topic, group, cluster)");
}

// One of librdkafka's ACL enums by its name (case, '-' and '_' ignored); UNKNOWN is never valid.
template <typename Enum>
Enum parse_enum(const std::string& text, int count, const char* (*name)(Enum), const char* option) {
  std::string known;
  for (int i = 1; i < count; ++i) {
    const auto e = static_cast<Enum>(i);
    if (normalized_name(name(e)) == normalized_name(text)) return e;
    known += (known.empty() ? "" : ", ") + std::string(name(e));
  }
  throw UsageError(std::string(option) + ": unknown '" + text + "' (" + known + ")");
}

rd_kafka_ResourcePatternType_t parse_pattern(const std::string& text) {
  return parse_enum(text, RD_KAFKA_RESOURCE_PATTERN_TYPE__CNT, rd_kafka_ResourcePatternType_name, "--pattern-type");
}
rd_kafka_AclOperation_t parse_operation(const std::string& text) {
  return parse_enum(text, RD_KAFKA_ACL_OPERATION__CNT, rd_kafka_AclOperation_name, "--operation");
}
rd_kafka_AclPermissionType_t parse_permission(const std::string& text) {
  return parse_enum(text, RD_KAFKA_ACL_PERMISSION_TYPE__CNT, rd_kafka_AclPermissionType_name, "--permission");
}

const std::vector<std::string> kColumns = {"principal",    "host",      "resource_type", "resource_name",
                                           "pattern_type", "operation", "permission"};

std::vector<Value> binding_row(const rd_kafka_AclBinding_t* acl) {
  return {rd_kafka_AclBinding_principal(acl),
          rd_kafka_AclBinding_host(acl),
          resource_type_name(rd_kafka_AclBinding_restype(acl)),
          rd_kafka_AclBinding_name(acl),
          rd_kafka_ResourcePatternType_name(rd_kafka_AclBinding_resource_pattern_type(acl)),
          rd_kafka_AclOperation_name(rd_kafka_AclBinding_operation(acl)),
          rd_kafka_AclPermissionType_name(rd_kafka_AclBinding_permission_type(acl))};
}

void add_sorted(Table& table, std::vector<std::vector<Value>> rows) {
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    for (size_t i = 0; i < a.size(); ++i)
      if (const std::string x = to_text(a[i]), y = to_text(b[i]); x != y) return x < y;
    return false;
  });
  for (auto& row : rows) table.add(std::move(row));
}

// An optional string option as the C API wants it: nullptr when not given (matches any).
const char* optional_string(const Invocation& inv, const char* name, std::string& storage) {
  if (!inv.has(name)) return nullptr;
  storage = inv.get<std::string>(name);
  return storage.c_str();
}

// The filter of `acls list` and `acls delete`; `pattern_default` differs as in kafka-acls.
AclBinding filter_from(const Invocation& inv, const std::string& pattern_default) {
  std::string name, principal, host;
  const auto type = parse_resource_type(inv.get<std::string>("resource-type"));
  const auto pattern = parse_pattern(inv.has("pattern-type") ? inv.get<std::string>("pattern-type") : pattern_default);
  char err[512];
  AclBinding filter(rd_kafka_AclBindingFilter_new(
      type, optional_string(inv, "resource-name", name), pattern, optional_string(inv, "principal", principal),
      optional_string(inv, "host", host), parse_operation(inv.get<std::string>("operation")),
      parse_permission(inv.get<std::string>("permission")), err, sizeof(err)));
  if (!filter) throw UsageError(err);
  return filter;
}

// `type_required`: delete wants the resource type said, even if it is "any".
void filter_options(po::options_description_easy_init& add, bool type_required, const char* pattern_help) {
  if (type_required) {
    add("resource-type", po::value<std::string>()->required()->value_name("TYPE"), "any, topic, group or cluster");
  } else {
    add("resource-type", po::value<std::string>()->default_value("any")->value_name("TYPE"),
        "any, topic, group or cluster");
  }
  add("resource-name", po::value<std::string>()->value_name("NAME"), "the resource's name (default: any)");
  add("pattern-type", po::value<std::string>()->value_name("TYPE"), pattern_help);
  add("principal", po::value<std::string>()->value_name("TYPE:NAME"), "e.g. User:alice (default: any)");
  add("host", po::value<std::string>()->value_name("HOST"), "the client host (default: any)");
  add("operation", po::value<std::string>()->default_value("any")->value_name("OP"),
      "any, all, read, write, create, delete, alter, describe, cluster-action, describe-configs, "
      "alter-configs, idempotent-write");
  add("permission", po::value<std::string>()->default_value("any")->value_name("TYPE"), "any, allow or deny");
}

int run_list(const Invocation& inv) {
  Client client(inv.client());
  AclBinding filter = filter_from(inv, "any");
  rd_kafka_DescribeAcls(client.handle(), filter.get(), client.admin_options(RD_KAFKA_ADMIN_OP_DESCRIBEACLS).get(),
                        client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_DESCRIBEACLS_RESULT, "DescribeAcls");
  size_t n = 0;
  const rd_kafka_AclBinding_t** acls =
      rd_kafka_DescribeAcls_result_acls(rd_kafka_event_DescribeAcls_result(ev.get()), &n);
  std::vector<std::vector<Value>> rows;
  for (size_t i = 0; i < n; ++i) rows.push_back(binding_row(acls[i]));
  Document doc;
  add_sorted(doc.table("acls", kColumns), std::move(rows));
  inv.print(doc);
  return kExitOk;
}

int run_create(const Invocation& inv) {
  const auto type = parse_resource_type(inv.get<std::string>("resource-type"));
  if (type == RD_KAFKA_RESOURCE_ANY) throw UsageError("--resource-type: an ACL names one type (topic, group, cluster)");
  const std::string name = inv.get<std::string>("resource-name");
  const std::string principal = inv.get<std::string>("principal");
  const std::string host = inv.get<std::string>("host");
  const auto pattern = parse_pattern(inv.get<std::string>("pattern-type"));
  const auto permission = parse_permission(inv.get<std::string>("permission"));
  std::vector<AclBinding> bindings;
  std::vector<rd_kafka_AclBinding_t*> raw;
  for (const std::string& op : inv.list("operation")) {
    char err[512];
    bindings.emplace_back(rd_kafka_AclBinding_new(type, name.c_str(), pattern, principal.c_str(), host.c_str(),
                                                  parse_operation(op), permission, err, sizeof(err)));
    if (!bindings.back()) throw UsageError(err);
    raw.push_back(bindings.back().get());
  }
  Client client(inv.client());
  rd_kafka_CreateAcls(client.handle(), raw.data(), raw.size(), client.admin_options(RD_KAFKA_ADMIN_OP_CREATEACLS).get(),
                      client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_CREATEACLS_RESULT, "CreateAcls");
  size_t n = 0;
  const rd_kafka_acl_result_t** results =
      rd_kafka_CreateAcls_result_acls(rd_kafka_event_CreateAcls_result(ev.get()), &n);
  std::vector<std::string> columns = kColumns;
  columns.push_back("error");
  Document doc;
  Table& t = doc.table("acls", columns);
  bool failed = false;
  for (size_t i = 0; i < n && i < raw.size(); ++i) {  // results come in request order
    std::vector<Value> row = binding_row(raw[i]);
    const rd_kafka_error_t* e = rd_kafka_acl_result_error(results[i]);
    failed |= e != nullptr;
    row.push_back(e ? item_error("acl", rd_kafka_error_code(e), rd_kafka_error_string(e)) : Value(nullptr));
    t.add(std::move(row));
  }
  inv.print(doc);
  return exit_code(failed);
}

int run_delete(const Invocation& inv) {
  Client client(inv.client());
  AclBinding filter = filter_from(inv, "literal");
  rd_kafka_AclBinding_t* raw[] = {filter.get()};
  rd_kafka_DeleteAcls(client.handle(), raw, 1, client.admin_options(RD_KAFKA_ADMIN_OP_DELETEACLS).get(),
                      client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_DELETEACLS_RESULT, "DeleteAcls");
  size_t n = 0;
  const rd_kafka_DeleteAcls_result_response_t** responses =
      rd_kafka_DeleteAcls_result_responses(rd_kafka_event_DeleteAcls_result(ev.get()), &n);
  std::vector<std::vector<Value>> rows;
  bool failed = false;
  for (size_t i = 0; i < n; ++i) {
    if (const rd_kafka_error_t* e = rd_kafka_DeleteAcls_result_response_error(responses[i])) {
      failed = true;
      item_error("acl filter", rd_kafka_error_code(e), rd_kafka_error_string(e));
      continue;
    }
    size_t m = 0;
    const rd_kafka_AclBinding_t** matching = rd_kafka_DeleteAcls_result_response_matching_acls(responses[i], &m);
    for (size_t j = 0; j < m; ++j) rows.push_back(binding_row(matching[j]));
  }
  Document doc;
  add_sorted(doc.table("deleted", kColumns), std::move(rows));
  inv.print(doc);
  return exit_code(failed);
}

}  // namespace

Command acls_command() {
  Command list{.name = "list",
               .summary = "list the ACLs matching a filter (DescribeAcls)",
               .options =
                   [](po::options_description_easy_init& add) {
                     filter_options(add, false, "any, match, literal or prefixed (default: any)");
                   },
               .run = run_list};
  Command create{
      .name = "create",
      .summary = "create ACLs, one per --operation (CreateAcls)",
      .options =
          [](po::options_description_easy_init& add) {
            add("resource-type", po::value<std::string>()->required()->value_name("TYPE"), "topic, group or cluster");
            add("resource-name", po::value<std::string>()->required()->value_name("NAME"),
                "the resource's name (kafka-cluster for the cluster; * for all)");
            add("pattern-type", po::value<std::string>()->default_value("literal")->value_name("TYPE"),
                "literal or prefixed");
            add("principal", po::value<std::string>()->required()->value_name("TYPE:NAME"), "e.g. User:alice");
            add("host", po::value<std::string>()->default_value("*")->value_name("HOST"), "the client host");
            add("operation", po::value<std::vector<std::string>>()->required()->composing()->value_name("OP"),
                "read, write, create, delete, alter, describe, cluster-action, describe-configs, alter-configs, "
                "idempotent-write or all (repeatable)");
            add("permission", po::value<std::string>()->default_value("allow")->value_name("TYPE"), "allow or deny");
          },
      .run = run_create};
  Command del{.name = "delete",
              .summary = "delete the ACLs matching a filter and list them (DeleteAcls)",
              .options =
                  [](po::options_description_easy_init& add) {
                    filter_options(add, true, "any, match, literal or prefixed (default: literal, as kafka-acls)");
                  },
              .run = run_delete};
  return {.name = "acls",
          .summary = "list, create and delete ACLs",
          .description = "The broker serves PLAINTEXT only so far: every client is User:ANONYMOUS.",
          .subcommands = {list, create, del}};
}

}  // namespace rokka::admin
