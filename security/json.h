// JSON objects as the JWT code reads them: parsed with rapidjson (iterative,
// so nesting cannot exhaust the stack; UTF-8 validated) into a small tree of
// our own, at most kMaxJsonDepth deep. Of duplicate members the last wins, as
// Jackson and jose4j keep them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "security/result.h"

namespace rokka::security {

inline constexpr int kMaxJsonDepth = 16;

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  bool integral = false;   // the number was written without fraction or exponent
  std::string string;      // kString; for kNumber, the number as written
  std::vector<JsonValue> items;                          // kArray
  std::map<std::string, JsonValue, std::less<>> members;  // kObject

  const JsonValue* member(std::string_view name) const;
};

// A JSON text whose root is an object.
Result<JsonValue> parse_json_object(std::string_view text);

}  // namespace rokka::security
