#include "cluster/json_util.h"

#include <string>

namespace rokka::cluster {
namespace {

// Rejects nesting deeper than kMaxJsonNesting before the parser allocates a level for each.
bool nesting_ok(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonNesting) return false;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

}  // namespace

storage::Result<rapidjson::Document> parse_json_object(std::string_view text, std::string_view what) {
  const std::string where(what);
  if (!nesting_ok(text)) return storage::Status::malformed(where + ": nested too deeply");
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
  if (d.HasParseError()) return storage::Status::malformed(where + ": not JSON");
  if (!d.IsObject()) return storage::Status::malformed(where + ": not a JSON object");
  return d;
}

}  // namespace rokka::cluster
