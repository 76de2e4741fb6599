#include "security/ssl_principal_mapper.h"

#include <boost/regex.hpp>

#include <optional>

namespace rokka::security {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Where "<blanks>(,<blanks>|end)" matches at `at`, the position after it; else nullopt.
std::optional<size_t> separator_end(std::string_view s, size_t at) {
  size_t i = at;
  while (i < s.size() && is_space(s[i])) ++i;
  if (i == s.size()) return i;
  if (s[i] != ',') return std::nullopt;
  ++i;
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

// A pattern or replacement: (\\.|[^\\/])* from `at`; the position of the '/' that ends it, or nullopt.
std::optional<size_t> rule_part_end(std::string_view s, size_t at) {
  while (at < s.size()) {
    if (s[at] == '/') return at;
    if (s[at] == '\\') {
      if (at + 1 >= s.size()) return std::nullopt;
      at += 2;
    } else {
      ++at;
    }
  }
  return std::nullopt;
}

// Kafka's rule splitter: each rule text without its surrounding blanks.
std::vector<std::string_view> split_rules(std::string_view s) {
  std::vector<std::string_view> rules;
  size_t pos = 0;
  while (pos < s.size()) {
    while (pos < s.size() && is_space(s[pos])) ++pos;
    size_t end = std::string_view::npos;
    if (s.substr(pos).starts_with("DEFAULT")) {
      if (const auto sep = separator_end(s, pos + 7)) {
        rules.push_back(s.substr(pos, 7));
        pos = *sep;
        continue;
      }
    }
    if (s.substr(pos).starts_with("RULE:")) {
      const auto pattern_end = rule_part_end(s, pos + 5);
      const auto replacement_end = pattern_end ? rule_part_end(s, *pattern_end + 1) : std::nullopt;
      if (replacement_end) end = *replacement_end + 1;
    }
    if (end == std::string_view::npos) end = pos;
    // The shortest stretch from `end` to where a separator matches.
    size_t stop = end;
    while (!separator_end(s, stop)) ++stop;
    rules.push_back(s.substr(pos, stop - pos));
    pos = *separator_end(s, stop);
    if (stop == s.size()) break;
  }
  return rules;
}

std::string ascii_case(std::string s, bool upper) {
  for (char& c : s) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

}  // namespace

struct SslPrincipalMapper::Rule {
  bool is_default = true;
  std::string pattern_text, replacement;
  boost::regex pattern;
  char case_flag = 0;  // 'L', 'U' or 0

  // Java's Matcher.appendReplacement for one match of the pattern.
  Result<std::string> expand(const boost::smatch& m) const {
    std::string out;
    const size_t groups = m.size() - 1;
    for (size_t i = 0; i < replacement.size(); ++i) {
      const char c = replacement[i];
      if (c == '\\') {
        if (++i == replacement.size()) return Error("character to be escaped is missing");
        out.push_back(replacement[i]);
      } else if (c == '$' && i + 1 < replacement.size() && replacement[i + 1] == '{') {
        const size_t close = replacement.find('}', i + 2);
        if (close == std::string::npos) return Error("named capturing group is missing trailing '}'");
        const std::string name = replacement.substr(i + 2, close - i - 2);
        const auto& group = m[name];
        if (!group.matched && m.named_subexpression_index(name.c_str(), name.c_str() + name.size()) < 0)
          return Error("No group with name {" + name + "}");
        out += group.str();
        i = close;
      } else if (c == '$' && i + 1 < replacement.size() && replacement[i + 1] >= '0' && replacement[i + 1] <= '9') {
        // The first digit always counts; more digits while the number stays a group of the pattern.
        size_t j = i + 1;
        size_t ref = static_cast<size_t>(replacement[j++] - '0');
        while (j < replacement.size() && replacement[j] >= '0' && replacement[j] <= '9' &&
               ref * 10 + static_cast<size_t>(replacement[j] - '0') <= groups)
          ref = ref * 10 + static_cast<size_t>(replacement[j++] - '0');
        if (ref > groups) {
          out.push_back('$');  // not a group of this pattern: literal
          continue;
        }
        out += m[static_cast<int>(ref)].str();
        i = j - 1;
      } else if (c == '$') {
        return Error("Illegal group reference");
      } else {
        out.push_back(c);
      }
    }
    return out;
  }

  // The mapped name, nullopt if the rule does not apply.
  Result<std::optional<std::string>> apply(const std::string& dn) const {
    if (is_default) return std::optional<std::string>(dn);
    try {
      if (!boost::regex_match(dn, pattern)) return std::optional<std::string>();
      // String.replaceAll: every match of the pattern in the subject, replaced.
      std::string out;
      auto last = dn.cbegin();
      for (boost::sregex_iterator it(dn.begin(), dn.end(), pattern), end; it != end; ++it) {
        out.append(last, (*it)[0].first);
        auto piece = expand(*it);
        if (!piece.ok()) return Error("rule " + to_string() + ": " + piece.error().message());
        out += *piece;
        last = (*it)[0].second;
      }
      out.append(last, dn.cend());
      if (case_flag) out = ascii_case(std::move(out), case_flag == 'U');
      return std::optional<std::string>(std::move(out));
    } catch (const std::exception& e) {  // boost::regex gives up on a pathological pattern
      return Error("rule " + to_string() + ": " + e.what());
    }
  }

  std::string to_string() const {
    if (is_default) return "DEFAULT";
    std::string out = "RULE:" + pattern_text + "/" + replacement;
    if (case_flag) out += std::string("/") + case_flag;
    return out;
  }
};

SslPrincipalMapper::SslPrincipalMapper() = default;
SslPrincipalMapper::~SslPrincipalMapper() = default;
SslPrincipalMapper::SslPrincipalMapper(SslPrincipalMapper&&) noexcept = default;
SslPrincipalMapper& SslPrincipalMapper::operator=(SslPrincipalMapper&&) noexcept = default;

Result<SslPrincipalMapper> SslPrincipalMapper::parse(std::string_view text) {
  SslPrincipalMapper mapper;
  size_t begin = 0, end = text.size();
  while (begin < end && is_space(text[begin])) ++begin;
  while (end > begin && is_space(text[end - 1])) --end;
  for (const std::string_view rule : split_rules(text.substr(begin, end - begin))) {
    if (rule.empty()) continue;  // empty rules are ignored
    const auto unmatched = [&](size_t consumed) {
      return Error("Invalid rule: `" + std::string(rule) + "`, unmatched substring: `" +
                   std::string(rule.substr(consumed)) + "`");
    };
    if (rule.starts_with("DEFAULT")) {
      if (rule.size() != 7) return unmatched(7);
      mapper.rules_.emplace_back();
      continue;
    }
    const auto pattern_end = rule.starts_with("RULE:") ? rule_part_end(rule, 5) : std::nullopt;
    const auto replacement_end = pattern_end ? rule_part_end(rule, *pattern_end + 1) : std::nullopt;
    if (!replacement_end) return unmatched(0);
    Rule r;
    r.is_default = false;
    r.pattern_text = std::string(rule.substr(5, *pattern_end - 5));
    r.replacement = std::string(rule.substr(*pattern_end + 1, *replacement_end - *pattern_end - 1));
    size_t consumed = *replacement_end + 1;
    if (consumed < rule.size() && (rule[consumed] == 'L' || rule[consumed] == 'U')) r.case_flag = rule[consumed++];
    if (consumed != rule.size()) return unmatched(consumed);
    try {
      r.pattern = boost::regex(r.pattern_text, boost::regex::perl);
    } catch (const std::exception& e) {
      return Error("Invalid rule: `" + std::string(rule) + "`: " + e.what());
    }
    mapper.rules_.push_back(std::move(r));
  }
  return mapper;
}

Result<std::string> SslPrincipalMapper::map(std::string_view distinguished_name) const {
  if (distinguished_name.size() > kMaxDistinguishedNameBytes)
    return Error("subject of " + std::to_string(distinguished_name.size()) + " bytes is too long to map");
  const std::string dn(distinguished_name);
  for (const Rule& rule : rules_) {
    auto name = rule.apply(dn);
    if (!name.ok()) return name.error();
    if (*name) return std::move(**name);
  }
  return Error("No rules apply to " + dn + ", rules " + to_string());
}

std::string SslPrincipalMapper::to_string() const {
  std::string out = "[";
  for (size_t i = 0; i < rules_.size(); ++i) out += (i ? ", " : "") + rules_[i].to_string();
  return out + "]";
}

}  // namespace rokka::security
