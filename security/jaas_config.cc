#include "security/jaas_config.h"

#include <cstdint>
#include <optional>

namespace rokka::security {
namespace {

// The token kinds StreamTokenizer returns (TT_WORD, TT_NUMBER, a quote char, an ordinary char, TT_EOF).
struct Token {
  enum class Kind { kEnd, kWord, kQuoted, kNumber, kChar } kind = Kind::kEnd;
  std::string text;  // the string of a word or quoted string; the character of kChar
  bool has_string() const { return kind == Kind::kWord || kind == Kind::kQuoted; }
  std::string describe() const {
    switch (kind) {
      case Kind::kEnd: return "end of input";
      case Kind::kNumber: return "a number";
      default: return text;
    }
  }
};

class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : s_(text) {}

  Token next() {
    for (;;) {
      skip_blanks();
      if (pos_ >= s_.size()) return {};
      const char c = s_[pos_];
      if (c == '/') {
        if (peek(1) == '*') {
          const size_t close = s_.find("*/", pos_ + 2);
          pos_ = close == std::string_view::npos ? s_.size() : close + 2;
          continue;
        }
        // "//" and a lone '/' (Java's default comment character) both end at the line's end.
        skip_line();
        continue;
      }
      if (is_number_start(c)) {
        if (c == '-' && !(peek(1) == '.' || is_digit(peek(1)))) {
          ++pos_;
          return {Token::Kind::kChar, "-"};
        }
        if (c == '-') ++pos_;
        bool seen_dot = false;
        while (pos_ < s_.size() && (is_digit(s_[pos_]) || (s_[pos_] == '.' && !seen_dot))) {
          seen_dot |= s_[pos_] == '.';
          ++pos_;
        }
        return {Token::Kind::kNumber, {}};
      }
      if (is_word_char(c)) {
        const size_t begin = pos_;
        while (pos_ < s_.size() && (is_word_char(s_[pos_]) || is_number_start(s_[pos_]))) ++pos_;
        return {Token::Kind::kWord, std::string(s_.substr(begin, pos_ - begin))};
      }
      if (c == '"' || c == '\'') return quoted(c);
      ++pos_;
      return {Token::Kind::kChar, std::string(1, c)};
    }
  }

 private:
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  static bool is_number_start(char c) { return is_digit(c) || c == '.' || c == '-'; }
  static bool is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || static_cast<uint8_t>(c) >= 0x80;
  }
  char peek(size_t ahead) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  void skip_blanks() {
    while (pos_ < s_.size() && static_cast<uint8_t>(s_[pos_]) <= ' ') ++pos_;
  }
  void skip_line() {
    while (pos_ < s_.size() && s_[pos_] != '\n' && s_[pos_] != '\r') ++pos_;
  }

  Token quoted(char quote) {
    ++pos_;
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != quote && s_[pos_] != '\n' && s_[pos_] != '\r') {
      char c = s_[pos_++];
      if (c == '\\' && pos_ < s_.size()) {
        c = s_[pos_++];
        if (c >= '0' && c <= '7') {
          const char first = c;
          int value = c - '0';
          if (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7') {
            value = value * 8 + (s_[pos_++] - '0');
            if (first <= '3' && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7')
              value = value * 8 + (s_[pos_++] - '0');
          }
          c = static_cast<char>(value);
        } else {
          switch (c) {
            case 'a': c = 0x07; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'v': c = 0x0b; break;
            default: break;
          }
        }
      } else if (c == '\\') {
        break;  // a backslash at the very end escapes nothing
      }
      out.push_back(c);
    }
    if (pos_ < s_.size() && s_[pos_] == quote) ++pos_;
    return {Token::Kind::kQuoted, std::move(out)};
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::optional<JaasControlFlag> control_flag(std::string_view word) {
  std::string upper(word);
  for (char& c : upper)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  if (upper == "REQUIRED") return JaasControlFlag::kRequired;
  if (upper == "REQUISITE") return JaasControlFlag::kRequisite;
  if (upper == "SUFFICIENT") return JaasControlFlag::kSufficient;
  if (upper == "OPTIONAL") return JaasControlFlag::kOptional;
  return std::nullopt;
}

// One entry; `first` is its login module token (already read, not the end).
Result<JaasModule> parse_entry(Tokenizer& tokens, const Token& first) {
  if (!first.has_string()) return Error("Login module not specified in JAAS config (found '" + first.describe() + "')");
  JaasModule module;
  module.login_module = first.text;
  const Token flag = tokens.next();
  if (flag.kind == Token::Kind::kEnd) return Error("Login module control flag not specified in JAAS config");
  if (!flag.has_string()) return Error("Login module control flag is not available in the JAAS config");
  const auto parsed_flag = control_flag(flag.text);
  if (!parsed_flag) return Error("Invalid login module control flag '" + flag.text + "' in JAAS config");
  module.control_flag = *parsed_flag;
  Token t = tokens.next();
  while (t.kind != Token::Kind::kEnd && !(t.kind == Token::Kind::kChar && t.text == ";")) {
    const std::string key = t.describe();
    const Token equals = tokens.next();
    const Token value = equals.kind == Token::Kind::kChar && equals.text == "=" ? tokens.next() : Token{};
    if (!t.has_string() || !value.has_string())
      return Error("Value not specified for key '" + key + "' in JAAS config");
    module.options[t.text] = value.text;
    t = tokens.next();
  }
  if (t.kind == Token::Kind::kEnd) return Error("JAAS config entry not terminated by semi-colon");
  return module;
}

}  // namespace

const std::string* JaasModule::option(std::string_view key) const {
  const auto it = options.find(key);
  return it == options.end() ? nullptr : &it->second;
}

Result<std::vector<JaasModule>> parse_jaas_config(std::string_view text) {
  Tokenizer tokens(text);
  std::vector<JaasModule> modules;
  for (Token t = tokens.next(); t.kind != Token::Kind::kEnd; t = tokens.next()) {
    auto module = parse_entry(tokens, t);
    if (!module.ok()) return module.error();
    modules.push_back(std::move(module).value());
  }
  if (modules.empty()) return Error("Login module not specified in JAAS config");
  return modules;
}

Result<JaasModule> parse_server_jaas_config(std::string_view text) {
  auto modules = parse_jaas_config(text);
  if (!modules.ok()) return modules.error();
  if (modules->size() != 1)
    return Error("JAAS config property contains " + std::to_string(modules->size()) +
                 " login modules, should be 1 module");
  JaasModule& module = modules->front();
  if (module.login_module == "com.sun.security.auth.module.JndiLoginModule")
    return Error(module.login_module + " is not allowed");
  return std::move(module);
}

}  // namespace rokka::security
