#include <gtest/gtest.h>
#include <openssl/x509.h>

#include "security/kafka_principal.h"
#include "security/ssl_principal_mapper.h"
#include "security/x509_name.h"

namespace rokka::security {
namespace {

TEST(KafkaPrincipalTest, PrintsAndParsesTypeColonName) {
  EXPECT_EQ(KafkaPrincipal::user("alice").to_string(), "User:alice");
  EXPECT_EQ(KafkaPrincipal::anonymous().to_string(), "User:ANONYMOUS");
  auto p = KafkaPrincipal::parse("User:CN=a:b");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->type, "User");
  EXPECT_EQ(p->name, "CN=a:b");
  EXPECT_EQ(*p, KafkaPrincipal::user("CN=a:b"));
  EXPECT_FALSE(KafkaPrincipal::parse("alice").ok());
  EXPECT_FALSE(KafkaPrincipal::parse("").ok());
}

// The rules of Kafka's own documentation and tests.
constexpr std::string_view kRules =
    "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,"
    "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
    "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U,"
    "DEFAULT";

std::string mapped(std::string_view rules, std::string_view dn) {
  auto mapper = SslPrincipalMapper::parse(rules);
  if (!mapper.ok()) return "parse error: " + mapper.error().message();
  auto name = mapper->map(dn);
  return name.ok() ? *name : "map error: " + name.error().message();
}

TEST(SslPrincipalMapperTest, TheFirstMatchingRuleDecides) {
  EXPECT_EQ(mapped(kRules, "CN=Duke,OU=ServiceUsers,O=Org,C=US"), "Duke");
  EXPECT_EQ(mapped(kRules, "CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US"), "duke@sme");
  EXPECT_EQ(mapped(kRules, "cn=duke,ou=JavaSoft,o=Sun Microsystems"), "DUKE");
  EXPECT_EQ(mapped(kRules, "OU=JavaSoft,O=Sun Microsystems,C=US"), "OU=JavaSoft,O=Sun Microsystems,C=US");
  EXPECT_EQ(mapped("DEFAULT", "CN=alice,OU=eng,O=Example"), "CN=alice,OU=eng,O=Example");
  EXPECT_EQ(mapped("", "CN=x"), "map error: No rules apply to CN=x, rules []");
  EXPECT_EQ(mapped("RULE:^CN=(.*)$/$1/", "OU=x"), "map error: No rules apply to OU=x, rules [RULE:^CN=(.*)$/$1]");
}

TEST(SslPrincipalMapperTest, RulesAreSplitAtCommasOutsideTheirParts) {
  EXPECT_EQ(mapped("  RULE:^CN=(.*?),OU=x$/$1/U ,  DEFAULT  ", "CN=ab,OU=x"), "AB");
  EXPECT_EQ(mapped(",,DEFAULT,,", "CN=a"), "CN=a");
  EXPECT_EQ(mapped(R"(RULE:^CN=([^\/]*)\/(.*)$/$2\/$1/)", "CN=a/b"), "b/a");
}

TEST(SslPrincipalMapperTest, InvalidRulesGetKafkasMessage) {
  EXPECT_EQ(mapped("DEFAULT, DEFAUL", "x"), "parse error: Invalid rule: `DEFAUL`, unmatched substring: `DEFAUL`");
  EXPECT_EQ(mapped("DEFAULTX", "x"), "parse error: Invalid rule: `DEFAULTX`, unmatched substring: `X`");
  EXPECT_EQ(mapped("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/Lx", "x"),
            "parse error: Invalid rule: `RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/Lx`, unmatched substring: `x`");
  EXPECT_EQ(mapped("RULE:only-pattern/", "x"), "parse error: Invalid rule: `RULE:only-pattern/`, unmatched substring: `RULE:only-pattern/`");
  EXPECT_TRUE(mapped("RULE:(/x/", "x").starts_with("parse error: Invalid rule: `RULE:(/x/`: "));
}

TEST(SslPrincipalMapperTest, ReplacementsFollowJavasSyntax) {
  EXPECT_EQ(mapped("RULE:^CN=(?<user>[a-z]+),.*$/${user}!/", "CN=bob,O=x"), "bob!");
  EXPECT_EQ(mapped(R"(RULE:^CN=(.*)$/\$1 is $1/)", "CN=bob"), "$1 is bob");
  // A reference past the pattern's groups is literal; $12 with one group is $1 then '2'.
  EXPECT_EQ(mapped("RULE:^CN=(.*)$/$1@$3/", "CN=bob"), "bob@$3");
  EXPECT_EQ(mapped("RULE:^CN=(.*)$/$12/", "CN=bob"), "bob2");
  EXPECT_EQ(mapped("RULE:^CN=.*$/x$1/", "CN=bob"), "x$1");
  // String.replaceAll replaces every match, including the empty one at the end.
  EXPECT_EQ(mapped("RULE:(.*)/x$1/", "ab"), "xabx");
  EXPECT_EQ(mapped("RULE:^CN=(.*)$/${nope}/", "CN=a"), "map error: rule RULE:^CN=(.*)$/${nope}: No group with name {nope}");
}

TEST(SslPrincipalMapperTest, AnOverlongSubjectIsRefused) {
  EXPECT_TRUE(mapped("DEFAULT", std::string(kMaxDistinguishedNameBytes + 1, 'a')).starts_with("map error"));
}

struct NameFree {
  void operator()(X509_NAME* n) const { X509_NAME_free(n); }
};
using Name = std::unique_ptr<X509_NAME, NameFree>;

Name name(std::initializer_list<std::tuple<const char*, int, std::string, int>> entries) {
  Name n(X509_NAME_new());
  for (const auto& [field, type, value, set] : entries)
    X509_NAME_add_entry_by_txt(n.get(), field, type, reinterpret_cast<const unsigned char*>(value.data()),
                               static_cast<int>(value.size()), -1, set);
  return n;
}

TEST(X509NameTest, PrintsRdnsLastFirstWithRfc2253Keywords) {
  const Name n = name({{"C", MBSTRING_ASC, "US", 0}, {"ST", MBSTRING_ASC, "CA", 0}, {"L", MBSTRING_ASC, "SF", 0},
                       {"O", MBSTRING_ASC, "Example", 0}, {"OU", MBSTRING_ASC, "eng", 0}, {"CN", MBSTRING_UTF8, "alice", 0}});
  EXPECT_EQ(x509_name_rfc2253(n.get()), "CN=alice,OU=eng,O=Example,L=SF,ST=CA,C=US");
  const Name dc = name({{"DC", MBSTRING_ASC, "com", 0}, {"DC", MBSTRING_ASC, "example", 0}, {"UID", MBSTRING_ASC, "u1", 0},
                        {"street", MBSTRING_ASC, "Main St", 0}});
  EXPECT_EQ(x509_name_rfc2253(dc.get()), "STREET=Main St,UID=u1,DC=example,DC=com");
  EXPECT_EQ(x509_name_rfc2253(Name(X509_NAME_new()).get()), "");
}

TEST(X509NameTest, EscapesAsJavasGetName) {
  EXPECT_EQ(x509_name_rfc2253(name({{"CN", MBSTRING_UTF8, "a,b+c=d<e>f#g;h\"i\\j", 0}}).get()),
            R"(CN=a\,b\+c\=d\<e\>f\#g\;h\"i\\j)");
  EXPECT_EQ(x509_name_rfc2253(name({{"CN", MBSTRING_UTF8, " two  spaces ", 0}}).get()), R"(CN=\ two  spaces\ )");
  EXPECT_EQ(x509_name_rfc2253(name({{"CN", MBSTRING_UTF8, "#lead", 0}}).get()), R"(CN=\#lead)");
  EXPECT_EQ(x509_name_rfc2253(name({{"CN", MBSTRING_UTF8, std::string("nul\0x", 5), 0}}).get()), R"(CN=nul\00x)");
  EXPECT_EQ(x509_name_rfc2253(name({{"CN", MBSTRING_UTF8, "Jürgen @ x_y", 0}}).get()), "CN=Jürgen @ x_y");
}

TEST(X509NameTest, OtherAttributesAreOidsWithHexDer) {
  // emailAddress is IA5String 0x16, length 5, "a@b.c".
  EXPECT_EQ(x509_name_rfc2253(name({{"emailAddress", MBSTRING_ASC, "a@b.c", 0}, {"CN", MBSTRING_ASC, "x", 0}}).get()),
            "CN=x,1.2.840.113549.1.9.1=#16056140622e63");
  EXPECT_EQ(x509_name_rfc2253(name({{"serialNumber", MBSTRING_ASC, "42", 0}}).get()), "2.5.4.5=#13023432");
}

TEST(X509NameTest, MultiValuedRdnsJoinWithPlus) {
  const Name n = name({{"O", MBSTRING_ASC, "Example", 0}, {"OU", MBSTRING_ASC, "eng", 0}, {"CN", MBSTRING_ASC, "bob", -1}});
  EXPECT_EQ(x509_name_rfc2253(n.get()), "OU=eng+CN=bob,O=Example");
}

}  // namespace
}  // namespace rokka::security
