#include "security/oauth_bearer.h"

#include <gtest/gtest.h>

#include <fstream>

#include "security/base64.h"
#include "tests/security/jwt_test_signer.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::security {
namespace {

using testing::TestSigningKey;

constexpr int64_t kNowMs = 1'700'000'000'000;  // the validators' clock in these tests
constexpr int64_t kNowS = kNowMs / 1000;

std::string unsecured(const std::string& claims, const std::string& header = R"({"alg":"none"})") {
  return base64url_encode(header) + "." + base64url_encode(claims) + ".";
}

std::string claims(const std::string& extra = "", int64_t exp = kNowS + 3600, int64_t iat = kNowS - 10) {
  return R"({"sub":"alice","exp":)" + std::to_string(exp) + R"(,"iat":)" + std::to_string(iat) + extra + "}";
}

// The rejection's detail, or "accepted".
std::string rejection(const OAuthBearerValidation& v) {
  if (const auto* r = std::get_if<OAuthBearerRejection>(&v)) return r->detail;
  return "accepted";
}

const OAuthBearerToken* accepted(const OAuthBearerValidation& v) { return std::get_if<OAuthBearerToken>(&v); }

// ---- the client's initial response ---------------------------------------

TEST(OAuthBearerClientResponseTest, ParsesRfc7628WithAuthzidAndExtensions) {
  auto r = OAuthBearerClientResponse::parse("n,a=alice,\x01" "auth=Bearer abc.def.ghi\x01" "traceId=42\x01\x01");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->authzid, "alice");
  EXPECT_EQ(r->token, "abc.def.ghi");
  EXPECT_EQ(r->extensions.at("traceId"), "42");
  auto formatted = OAuthBearerClientResponse::parse(OAuthBearerClientResponse::format("t0k-_~+/.en=="));
  ASSERT_TRUE(formatted.ok());
  EXPECT_EQ(formatted->token, "t0k-_~+/.en==");
  EXPECT_EQ(OAuthBearerClientResponse::parse("n,,\x01" "auth=bEaReR   tok\x01\x01")->token, "tok");
}

TEST(OAuthBearerClientResponseTest, RefusesMalformedMessagesWithKafkasTexts) {
  const auto error = [](std::string_view m) {
    auto r = OAuthBearerClientResponse::parse(m);
    return r.ok() ? std::string("parsed") : r.error().message();
  };
  EXPECT_EQ(error("n,,\x01" "x=1\x01\x01"), "Invalid OAUTHBEARER client first message: 'auth' not specified");
  EXPECT_EQ(error("n,,\x01" "auth=Basic dXNlcg==\x01\x01"), "Invalid scheme in OAUTHBEARER client first message: Basic");
  EXPECT_EQ(error("n,,\x01" "auth=Bearer\x01\x01"), "Invalid OAUTHBEARER client first message: invalid 'auth' format");
  EXPECT_EQ(error("n,,\x01" "auth=Bearer a*b\x01\x01"), "Invalid OAUTHBEARER client first message: invalid 'auth' format");
  for (const char* bad : {"", "n,,", "y,,\x01" "auth=Bearer t\x01\x01", "n,,auth=Bearer t\x01\x01",
                          "n,,\x01" "auth=Bearer t\x01", "n,,\x01" "auth=Bearer t\x01" "k1=v\x01\x01",
                          "n,,\x01" "=v\x01" "auth=Bearer t\x01\x01", "n,b=x,\x01" "auth=Bearer t\x01\x01"})
    EXPECT_EQ(error(bad), "Invalid OAUTHBEARER client first message") << bad;
  EXPECT_EQ(error("n,,\x01" "auth=Bearer " + std::string(kMaxOAuthBearerMessageBytes, 'a') + "\x01\x01"),
            "Invalid OAUTHBEARER client first message");
}

// ---- Kafka's unsecured validator ------------------------------------------

UnsecuredOAuthBearerValidator unsecured_validator(const std::string& jaas_options = "") {
  auto jaas = parse_server_jaas_config(std::string(kOAuthBearerLoginModule) + " required " + jaas_options + ";");
  EXPECT_TRUE(jaas.ok());
  auto options = UnsecuredValidatorOptions::from_jaas(*jaas);
  EXPECT_TRUE(options.ok()) << options.error().message();
  return UnsecuredOAuthBearerValidator(std::move(options).value());
}

TEST(UnsecuredValidatorTest, AcceptsAnAlgNoneTokenAndReadsItsClaims) {
  const auto v = unsecured_validator().validate(unsecured(claims(R"(,"scope":["read"," write "])")), kNowMs);
  const OAuthBearerToken* t = accepted(v);
  ASSERT_NE(t, nullptr) << rejection(v);
  EXPECT_EQ(t->principal, "alice");
  EXPECT_EQ(t->lifetime_ms, (kNowS + 3600) * 1000);
  EXPECT_EQ(t->start_time_ms, (kNowS - 10) * 1000);
  EXPECT_EQ(t->scope, (std::set<std::string>{"read", "write"}));
}

TEST(UnsecuredValidatorTest, RefusesMalformedTokensWithKafkasReasons) {
  const auto v = unsecured_validator();
  const auto reason = [&](const std::string& token) { return rejection(v.validate(token, kNowMs)); };
  EXPECT_EQ(reason("a..b"), "Malformed compact serialization contains '..'");
  EXPECT_EQ(reason(base64url_encode("{}") + "." + base64url_encode(claims())),
            "Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values");
  EXPECT_EQ(reason(unsecured(claims()) + "x."), "Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values");
  EXPECT_EQ(reason("e30." + base64url_encode(claims()) + ".c2ln"), "JWS header must have an Algorithm value");
  EXPECT_EQ(reason(unsecured(claims()) + "c2ln"), "Unsecured JWS must not contain a digital signature");
  EXPECT_EQ(reason(unsecured(claims(), R"({"alg":"RS256"})")), "Unsecured JWS must have 'none' for an algorithm");
  EXPECT_EQ(reason("e30*." + base64url_encode(claims()) + "."), "malformed Base64 URL encoded value");
  EXPECT_EQ(reason(base64url_encode("{\"alg\":") + "." + base64url_encode(claims()) + "."), "malformed JSON");
  EXPECT_EQ(reason(unsecured(R"({"sub":"alice"})")), "No expiration time in JWT");
  EXPECT_EQ(reason(unsecured(R"({"sub":"alice","exp":"soon"})")), "The 'exp' claim was not of type Number: String");
  EXPECT_EQ(reason(unsecured(R"({"exp":9999999999})")), "No principal name in JWT claim: sub");
  EXPECT_EQ(reason(unsecured(R"({"sub":"  ","exp":9999999999})")), "No principal name in JWT claim: sub");
  EXPECT_EQ(reason(unsecured(R"({"sub":7,"exp":9999999999})")), "The 'sub' claim was not of type String: Integer");
  EXPECT_EQ(reason(unsecured(R"({"sub":"a","exp":9999999999,"scope":5})")), "The 'scope' claim was not of type List: Integer");
  EXPECT_TRUE(reason(unsecured(R"({"sub":"a","exp":1e300})")).starts_with("The 'exp' claim is out of range"));
}

TEST(UnsecuredValidatorTest, ChecksTimesWithTheAllowedSkew) {
  const auto strict = unsecured_validator();
  EXPECT_EQ(rejection(strict.validate(unsecured(claims("", kNowS, kNowS - 10)), kNowMs)),
            "The indicated time (1700000000000 ms) minus allowable clock skew (0 ms) was on or after the Expiration "
            "Time value (1700000000.000000 seconds)");
  EXPECT_EQ(rejection(strict.validate(unsecured(claims("", kNowS + 100, kNowS + 1)), kNowMs)),
            "The Issued At value (1700000001.000000 seconds) was after the indicated time (1700000000000 ms) plus "
            "allowable clock skew (0 ms)");
  const auto lenient = unsecured_validator(R"(unsecuredValidatorAllowableClockSkewMs="2000")");
  EXPECT_NE(accepted(lenient.validate(unsecured(claims("", kNowS + 100, kNowS + 1)), kNowMs)), nullptr);
  EXPECT_NE(accepted(lenient.validate(unsecured(claims("", kNowS + 1, kNowS - 10)), kNowMs)), nullptr);
  EXPECT_EQ(rejection(lenient.validate(unsecured(claims("", kNowS - 2, kNowS - 10)), kNowMs)).substr(0, 20),
            "The indicated time (");
  EXPECT_EQ(rejection(lenient.validate(unsecured(claims("", kNowS + 1, kNowS + 1)), kNowMs)),
            "The Expiration Time time (1700000001.000000 seconds) was not after the Issued At time "
            "(1700000001.000000 seconds)");
}

TEST(UnsecuredValidatorTest, RequiredScopeAndClaimNamesComeFromTheJaasOptions) {
  const auto v = unsecured_validator(
      R"(unsecuredValidatorPrincipalClaimName="user" unsecuredValidatorScopeClaimName="scp" )"
      R"(unsecuredValidatorRequiredScope="read write")");
  const auto ok = v.validate(unsecured(R"({"user":"bob","exp":9999999999,"scp":["write","read","x"]})"), kNowMs);
  ASSERT_NE(accepted(ok), nullptr) << rejection(ok);
  EXPECT_EQ(accepted(ok)->principal, "bob");
  const auto missing = v.validate(unsecured(R"({"user":"bob","exp":9999999999,"scp":"read"})"), kNowMs);
  const auto* r = std::get_if<OAuthBearerRejection>(&missing);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->json(), R"({"status":"insufficient_scope", "scope":"[read, write]"})");
  EXPECT_EQ(r->detail,
            "The provided scope ([read]) was missing a required scope (write).  All required scope elements: [read, write]");
}

TEST(UnsecuredValidatorTest, BadOptionsAreConfigErrors) {
  const auto error = [](const std::string& options) {
    auto jaas = parse_server_jaas_config("M required " + options + ";");
    auto o = UnsecuredValidatorOptions::from_jaas(*jaas);
    return o.ok() ? std::string("ok") : o.error().message();
  };
  EXPECT_EQ(error(R"(unsecuredValidatorAllowableClockSkewMs="-1")"), "Allowable clock skew millis must not be negative: -1");
  EXPECT_NE(error(R"(unsecuredValidatorAllowableClockSkewMs="soon")"), "ok");
  EXPECT_EQ(error(R"(unsecuredValidatorRequiredScope="ok bad\"scope")"), "Invalid scope value: bad\"scope");
}

// ---- signed tokens against a JWKS ------------------------------------------

class SignedValidatorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rsa_ = new TestSigningKey("RSA", "rsa-1");
    p256_ = new TestSigningKey("P-256", "ec-256");
    p384_ = new TestSigningKey("P-384", "ec-384");
    p521_ = new TestSigningKey("P-521", "ec-521");
    other_ = new TestSigningKey("P-256", "ec-256");  // same kid, not in the JWKS
  }
  static void TearDownTestSuite() {
    for (auto* k : {rsa_, p256_, p384_, p521_, other_}) delete k;
  }

  static SignedOAuthBearerValidator validator(SignedValidatorOptions options = {}) {
    auto keys = JsonWebKeySet::parse(testing::jwks_of({rsa_->jwk(), p256_->jwk(), p384_->jwk(), p521_->jwk(),
                                                       R"({"kty":"oct","k":"c2VjcmV0"})"}));
    EXPECT_TRUE(keys.ok()) << keys.error().message();
    EXPECT_EQ(keys->size(), 4u);  // the "oct" key is skipped
    return SignedOAuthBearerValidator(std::move(keys).value(), std::move(options));
  }
  static std::string reason(const std::string& token, SignedValidatorOptions options = {}) {
    return rejection(validator(std::move(options)).validate(token, kNowMs));
  }

  static inline TestSigningKey *rsa_, *p256_, *p384_, *p521_, *other_;
};

TEST_F(SignedValidatorTest, AcceptsEveryAlgorithmWithItsKey) {
  const auto v = validator();
  for (const auto& [key, alg] : std::vector<std::pair<TestSigningKey*, std::string>>{
           {rsa_, "RS256"}, {rsa_, "RS384"}, {rsa_, "RS512"}, {rsa_, "PS256"}, {rsa_, "PS384"}, {rsa_, "PS512"},
           {p256_, "ES256"}, {p384_, "ES384"}, {p521_, "ES512"}}) {
    const auto result = v.validate(key->sign(alg, claims(R"(,"scope":"kafka read")")), kNowMs);
    const OAuthBearerToken* t = accepted(result);
    ASSERT_NE(t, nullptr) << alg << ": " << rejection(result);
    EXPECT_EQ(t->principal, "alice");
    EXPECT_EQ(t->lifetime_ms, (kNowS + 3600) * 1000);
    EXPECT_EQ(t->scope, std::set<std::string>{"kafka read"});  // a string scope is one element, as in Kafka
  }
}

TEST_F(SignedValidatorTest, AKeyIsFoundWithoutAKidToo) {
  EXPECT_EQ(reason(p256_->sign("ES256", claims(), "", false)), "accepted");
}

TEST_F(SignedValidatorTest, RefusesForgedAndMismatchedSignatures) {
  EXPECT_NE(reason(other_->sign("ES256", claims())).find("does not verify"), std::string::npos);
  std::string token = rsa_->sign("RS256", claims());
  const size_t dot = token.find('.');
  const std::string forged = token.substr(0, dot + 1) + base64url_encode(claims(R"(,"admin":true)")) +
                             token.substr(token.rfind('.'));
  EXPECT_NE(reason(forged).find("does not verify"), std::string::npos);
  EXPECT_NE(reason(p256_->sign("ES384", claims())).find("no key in the JWKS fits alg ES384"), std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", claims(), R"(,"kid":"nope")", false)).find("kid 'nope'"), std::string::npos);
  std::string truncated = p256_->sign("ES256", claims());
  truncated.resize(truncated.size() - 4);
  EXPECT_NE(reason(truncated), "accepted");
}

TEST_F(SignedValidatorTest, RefusesAlgorithmsThatAreNotAllowed) {
  EXPECT_NE(reason(unsecured(claims()) + "e30").find("'none' is not allowed"), std::string::npos);
  const std::string hs = base64url_encode(R"({"alg":"HS256"})") + "." + base64url_encode(claims()) + ".c2ln";
  EXPECT_NE(reason(hs).find("'HS256' is not allowed"), std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", claims(), R"(,"crit":["exp"])")).find("crit"), std::string::npos);
}

TEST_F(SignedValidatorTest, RefusesMalformedJwts) {
  EXPECT_EQ(reason("  "), "Empty JWT provided; expected three sections (header, payload, and signature)");
  EXPECT_EQ(reason("a.b"), "Malformed JWT provided; expected three sections (header, payload, and signature), but 2 sections provided");
  EXPECT_EQ(reason("a.b.c.d"), "Malformed JWT provided; expected three sections (header, payload, and signature), but 4 sections provided");
  EXPECT_EQ(reason("a. .c"), "Malformed JWT provided; expected at least three sections (header, payload, and signature), but payload section missing");
  EXPECT_NE(reason("!!.e30.e30").find("header: malformed Base64"), std::string::npos);
  EXPECT_NE(reason(base64url_encode("[1]") + ".e30.e30").find("header: malformed JSON"), std::string::npos);
  std::string deep(200, '[');
  EXPECT_NE(reason(base64url_encode("{\"a\":" + deep + "}") + ".e30.e30").find("header: malformed JSON"), std::string::npos);
}

TEST_F(SignedValidatorTest, ChecksExpiryNotBeforeAndIssuedAtWithTheClockSkew) {
  EXPECT_NE(reason(rsa_->sign("RS256", claims("", kNowS - 31))).find("no longer valid"), std::string::npos);
  EXPECT_EQ(reason(rsa_->sign("RS256", claims("", kNowS - 29))), "accepted");  // within the default 30 s
  SignedValidatorOptions strict;
  strict.clock_skew_seconds = 0;
  EXPECT_NE(reason(rsa_->sign("RS256", claims("", kNowS)), strict).find("no longer valid"), std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", claims(",\"nbf\":" + std::to_string(kNowS + 60)))).find("not yet valid"),
            std::string::npos);
  EXPECT_EQ(reason(rsa_->sign("RS256", claims(",\"nbf\":" + std::to_string(kNowS + 20)))), "accepted");
  EXPECT_NE(reason(rsa_->sign("RS256", R"({"sub":"alice","iat":1})")).find("No Expiration Time"), std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", R"({"sub":"alice","exp":9999999999})")).find("No Issued At"), std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", R"({"sub":"alice","exp":"x","iat":1})")).find("'exp' claim"), std::string::npos);
  // A date past what milliseconds hold (found by fuzz_jwt: the conversion overflowed).
  EXPECT_NE(reason(rsa_->sign("RS256", R"({"sub":"alice","exp":1e300,"iat":1})")).find("'exp' claim"), std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", R"({"sub":"alice","exp":9999999999,"iat":-1e300})")).find("'iat' claim"), std::string::npos);
}

TEST_F(SignedValidatorTest, ChecksAudienceAndIssuer) {
  SignedValidatorOptions o;
  o.expected_audience = {"kafka", "other"};
  o.expected_issuer = "https://issuer.example";
  const std::string good = R"(,"aud":["x","kafka"],"iss":"https://issuer.example")";
  EXPECT_EQ(reason(rsa_->sign("RS256", claims(good)), o), "accepted");
  EXPECT_EQ(reason(rsa_->sign("RS256", claims(R"(,"aud":"other","iss":"https://issuer.example")")), o), "accepted");
  EXPECT_NE(reason(rsa_->sign("RS256", claims(R"(,"aud":"x","iss":"https://issuer.example")")), o)
                .find("doesn't contain an acceptable identifier"), std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", claims(R"(,"iss":"https://issuer.example")")), o).find("No Audience"),
            std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", claims(R"(,"aud":"kafka","iss":"https://evil.example")")), o)
                .find("doesn't match expected value"), std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", claims(R"(,"aud":"kafka")")), o).find("No Issuer"), std::string::npos);
  // jose4j's default, which Kafka keeps: with no expected audience configured, a token naming one is refused.
  EXPECT_NE(reason(rsa_->sign("RS256", claims(R"(,"aud":"kafka")"))).find("no expected audience"), std::string::npos);
}

TEST_F(SignedValidatorTest, SubjectAndScopeClaimsFollowTheConfiguredNames) {
  SignedValidatorOptions o;
  o.sub_claim = "client_id";
  o.scope_claim = "scp";
  const auto v = validator(o);
  const auto result = v.validate(rsa_->sign("RS256", R"({"client_id":" svc ","scp":["a","b"],"exp":)" +
                                                         std::to_string(kNowS + 60) + R"(,"iat":1})"),
                                 kNowMs);
  ASSERT_NE(accepted(result), nullptr) << rejection(result);
  EXPECT_EQ(accepted(result)->principal, "svc");
  EXPECT_EQ(accepted(result)->scope, (std::set<std::string>{"a", "b"}));
  EXPECT_NE(reason(rsa_->sign("RS256", claims()), o).find("client_id value must be non-null"), std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", claims(R"(,"client_id":7)")), o).find("Could not extract the 'client_id'"),
            std::string::npos);
  EXPECT_NE(reason(rsa_->sign("RS256", claims(R"(,"scope":["a","a"])"))).find("duplicates"), std::string::npos);
}

TEST(JsonWebKeySetTest, RefusesBrokenSetsAndSkipsKeysNotForSigning) {
  const TestSigningKey ec("P-256", "k");
  EXPECT_EQ(JsonWebKeySet::parse(testing::jwks_of({ec.jwk(R"(,"use":"enc")")}))->size(), 0u);
  EXPECT_EQ(JsonWebKeySet::parse(testing::jwks_of({ec.jwk(R"(,"use":"sig")")}))->size(), 1u);
  for (const std::string& bad : {std::string("[]"), std::string("{}"), std::string(R"({"keys":{}})"),
                                std::string(R"({"keys":[1]})"), std::string(R"({"keys":[{"n":"AQAB"}]})"),
                                std::string(R"({"keys":[{"kty":"RSA","e":"AQAB"}]})"),
                                std::string(R"({"keys":[{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}]})"),
                                std::string(R"({"keys":[{"kty":"EC","crv":"P-192","x":"AAAA","y":"AAAA"}]})")})
    EXPECT_FALSE(JsonWebKeySet::parse(bad).ok()) << bad;
  // A point that is not on the curve.
  std::string off_curve = ec.jwk();
  const size_t y = off_curve.find("\"y\":\"") + 5;
  off_curve[y + 3] = off_curve[y + 3] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(JsonWebKeySet::parse(testing::jwks_of({off_curve})).ok());
}

TEST(JsonWebKeySetTest, RsaKeysUnder2048BitsAreNeverUsed) {
  const TestSigningKey weak("RSA", "w", 1024);
  auto keys = JsonWebKeySet::parse(testing::jwks_of({weak.jwk()}));
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys->size(), 1u);
  const std::string input = "aGVhZGVy.cGF5bG9hZA";
  std::string why;
  EXPECT_FALSE(keys->verify(JwsAlgorithm::kRs256, std::string("w"), input, weak.signature("RS256", input), why));
  EXPECT_NE(why.find("no key in the JWKS fits"), std::string::npos);
}

TEST(JsonWebKeySetTest, LoadsOnlyLocalFileUrls) {
  testutil::TempDir dir;
  const TestSigningKey ec("P-256", "k");
  const std::string path = (dir / "jwks.json").string();
  std::ofstream(path) << testing::jwks_of({ec.jwk()});
  EXPECT_EQ(JsonWebKeySet::load_file_url("file:" + path)->size(), 1u);
  EXPECT_EQ(JsonWebKeySet::load_file_url("file://" + path)->size(), 1u);
  EXPECT_EQ(JsonWebKeySet::load_file_url("file://localhost" + path)->size(), 1u);
  EXPECT_FALSE(JsonWebKeySet::load_file_url("file://example.com" + path).ok());
  EXPECT_FALSE(JsonWebKeySet::load_file_url("https://example.com/jwks").ok());
  EXPECT_FALSE(JsonWebKeySet::load_file_url("file:relative.json").ok());
  EXPECT_FALSE(JsonWebKeySet::load_file_url("file:" + path + ".missing").ok());
}

// ---- the listener's settings -----------------------------------------------

TEST(OAuthBearerConfigTest, PicksTheValidatorKafkasSettingsName) {
  testutil::TempDir dir;
  const TestSigningKey ec("P-256", "k");
  const std::string path = (dir / "jwks.json").string();
  std::ofstream(path) << testing::jwks_of({ec.jwk()});
  const JaasModule jaas = parse_server_jaas_config(std::string(kOAuthBearerLoginModule) + " required;").value();
  const auto error = [&](const ConfigMap& c) {
    auto v = oauth_bearer_validator_from_config(c, jaas);
    return v.ok() ? std::string("ok") : v.error().message();
  };
  EXPECT_TRUE(error({}).starts_with("sasl.oauthbearer.jwks.endpoint.url: OAUTHBEARER needs"));
  EXPECT_EQ(error({{"sasl.oauthbearer.jwks.endpoint.url", "file:" + path}}), "ok");
  EXPECT_EQ(error({{"oauthbearer.sasl.oauthbearer.jwks.endpoint.url", "file://" + path}}), "ok");
  EXPECT_EQ(error({{"oauthbearer.sasl.server.callback.handler.class", std::string(kOAuthBearerUnsecuredValidatorClass)}}), "ok");
  EXPECT_TRUE(error({{"sasl.server.callback.handler.class", "com.example.Mine"}}).starts_with("sasl.server.callback.handler.class"));
  EXPECT_TRUE(error({{"sasl.oauthbearer.jwks.endpoint.url", "file:" + path}, {"sasl.oauthbearer.clock.skew.seconds", "-1"}})
                  .starts_with("sasl.oauthbearer.clock.skew.seconds"));
  EXPECT_TRUE(error({{"sasl.oauthbearer.jwks.endpoint.url", "file:" + path}, {"sasl.oauthbearer.sub.claim.name", " "}})
                  .starts_with("sasl.oauthbearer.sub.claim.name"));
  // Settings reach the validator: an expected audience refuses a token without one.
  auto v = oauth_bearer_validator_from_config(
      {{"sasl.oauthbearer.jwks.endpoint.url", "file:" + path}, {"sasl.oauthbearer.expected.audience", "kafka, x"}}, jaas);
  ASSERT_TRUE(v.ok());
  const int64_t now_s = OAuthBearerServer::system_now_ms() / 1000;
  EXPECT_NE(rejection((*v)->validate(ec.sign("ES256", claims("", now_s + 60, now_s - 10)), OAuthBearerServer::system_now_ms()))
                .find("No Audience"),
            std::string::npos);
  EXPECT_EQ(rejection((*v)->validate(ec.sign("ES256", claims(R"(,"aud":"x")", now_s + 60, now_s - 10)),
                                     OAuthBearerServer::system_now_ms())),
            "accepted");
}

// ---- the SASL exchange -----------------------------------------------------

std::shared_ptr<const OAuthBearerValidator> unsecured_shared() {
  return std::make_shared<UnsecuredOAuthBearerValidator>(UnsecuredValidatorOptions{});
}

OAuthBearerServer server() { return OAuthBearerServer(unsecured_shared(), [] { return kNowMs; }); }

TEST(OAuthBearerServerTest, AValidTokenAuthenticatesAndItsExpiryBoundsTheSession) {
  OAuthBearerServer s = server();
  const SaslStep step =
      s.evaluate("n,,\x01" "auth=Bearer " + unsecured(claims()) + "\x01" "traceId=7\x01\x01");
  ASSERT_EQ(step.kind, SaslStep::Kind::kComplete) << step.detail;
  EXPECT_TRUE(step.data.empty());
  EXPECT_EQ(s.authorization_id(), "alice");
  EXPECT_EQ(s.credential_expiry_ms(), (kNowS + 3600) * 1000);
  EXPECT_EQ(s.extensions().at("traceId"), "7");
  EXPECT_EQ(s.evaluate("\x01").kind, SaslStep::Kind::kFailed);
}

TEST(OAuthBearerServerTest, ABadTokenGetsTheJsonChallengeThenTheFailure) {
  OAuthBearerServer s = server();
  const SaslStep challenge = s.evaluate(OAuthBearerClientResponse::format(unsecured(claims("", kNowS - 5))));
  ASSERT_EQ(challenge.kind, SaslStep::Kind::kChallenge);
  EXPECT_EQ(challenge.data, R"({"status":"invalid_token"})");
  EXPECT_NE(challenge.detail.find("Expiration Time"), std::string::npos);
  const SaslStep failure = s.evaluate("\x01");
  ASSERT_EQ(failure.kind, SaslStep::Kind::kFailed);
  EXPECT_EQ(failure_message(failure, s.mechanism(), false), R"({"status":"invalid_token"})");
  // The broker logs the failure's detail (the client's JSON says nothing): it keeps the validator's reason.
  EXPECT_EQ(failure.detail, challenge.detail);
  EXPECT_FALSE(s.complete());
}

TEST(OAuthBearerServerTest, AClientMayRetryWithAnotherTokenAfterTheChallenge) {
  OAuthBearerServer s = server();
  ASSERT_EQ(s.evaluate(OAuthBearerClientResponse::format("x.y.z")).kind, SaslStep::Kind::kChallenge);
  EXPECT_EQ(s.evaluate(OAuthBearerClientResponse::format(unsecured(claims()))).kind, SaslStep::Kind::kComplete);
}

TEST(OAuthBearerServerTest, AnAuthzidOtherThanThePrincipalIsRefused) {
  OAuthBearerServer s = server();
  const SaslStep step = s.evaluate(OAuthBearerClientResponse::format(unsecured(claims()), "bob"));
  EXPECT_EQ(step.client_message, "Authentication failed: Client requested an authorization id (bob) that is "
                                 "different from the token's principal name (alice)");
  OAuthBearerServer same = server();
  EXPECT_EQ(same.evaluate(OAuthBearerClientResponse::format(unsecured(claims()), "alice")).kind, SaslStep::Kind::kComplete);
}

TEST(OAuthBearerServerTest, AMalformedMessageFailsWithTheGenericMessage) {
  OAuthBearerServer s = server();
  const SaslStep step = s.evaluate("\x01");  // %x01 before any error was sent
  EXPECT_EQ(step.kind, SaslStep::Kind::kFailed);
  EXPECT_FALSE(step.client_message);
}

}  // namespace
}  // namespace rokka::security
