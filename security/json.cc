#include "security/json.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

namespace rokka::security {
namespace {

Result<JsonValue> convert(const rapidjson::Value& v, int depth) {
  if (depth > kMaxJsonDepth) return Error("JSON nested deeper than " + std::to_string(kMaxJsonDepth));
  JsonValue out;
  if (v.IsNull()) return out;
  if (v.IsBool()) {
    out.type = JsonValue::Type::kBool;
    out.boolean = v.GetBool();
  } else if (v.IsNumber()) {
    out.type = JsonValue::Type::kNumber;
    out.number = v.GetDouble();
    out.integral = v.IsInt64() || v.IsUint64();
    out.string = out.integral ? (v.IsInt64() ? std::to_string(v.GetInt64()) : std::to_string(v.GetUint64()))
                              : std::to_string(out.number);
  } else if (v.IsString()) {
    out.type = JsonValue::Type::kString;
    out.string.assign(v.GetString(), v.GetStringLength());
  } else if (v.IsArray()) {
    out.type = JsonValue::Type::kArray;
    for (const auto& item : v.GetArray()) {
      auto converted = convert(item, depth + 1);
      if (!converted.ok()) return converted.error();
      out.items.push_back(std::move(converted).value());
    }
  } else {
    out.type = JsonValue::Type::kObject;
    for (const auto& m : v.GetObject()) {
      auto converted = convert(m.value, depth + 1);
      if (!converted.ok()) return converted.error();
      out.members[std::string(m.name.GetString(), m.name.GetStringLength())] = std::move(converted).value();
    }
  }
  return out;
}

}  // namespace

const JsonValue* JsonValue::member(std::string_view name) const {
  const auto it = members.find(name);
  return it == members.end() ? nullptr : &it->second;
}

Result<JsonValue> parse_json_object(std::string_view text) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
  if (doc.HasParseError())
    return Error(std::string("malformed JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
                 std::to_string(doc.GetErrorOffset()));
  if (!doc.IsObject()) return Error("malformed JSON: not an object");
  return convert(doc, 0);
}

}  // namespace rokka::security
