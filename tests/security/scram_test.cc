#include <gtest/gtest.h>

#include <map>

#include "security/base64.h"
#include "security/scram_credential_record.h"
#include "security/scram_server.h"
#include "tests/security/scram_test_client.h"

namespace rokka::security {
namespace {

std::string b64(std::string_view text) { return base64_decode(text, 1024).value(); }

// RFC 5802 section 5 (SCRAM-SHA-1) and RFC 7677 section 3 (SCRAM-SHA-256): user "user", password "pencil".
constexpr std::string_view kRfc7677ClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr std::string_view kRfc7677ServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr std::string_view kRfc7677ServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr std::string_view kRfc7677ClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr std::string_view kRfc7677ServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

ScramCredential credential(ScramMechanism m, std::string_view password, std::string_view salt, int32_t iterations) {
  const std::string salted = scram_salted_password(scram_hash(m), password, salt, iterations);
  return scram_credential_from_salted_password(m, salt, salted, iterations).value();
}

// A store of credentials the server looks into at client-first, as the broker's would.
struct Store {
  std::map<std::pair<std::string, ScramMechanism>, ScramCredential> creds;
  ScramCredentialLookup lookup() {
    return [this](std::string_view user, ScramMechanism m) -> std::optional<ScramCredential> {
      const auto it = creds.find({std::string(user), m});
      if (it == creds.end()) return std::nullopt;
      return it->second;
    };
  }
};

struct Rfc7677 : ::testing::Test {
  Store store;
  Rfc7677() {
    store.creds[{"user", ScramMechanism::kSha256}] =
        credential(ScramMechanism::kSha256, "pencil", b64("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
  }
  ScramServer server() {
    return ScramServer(ScramMechanism::kSha256, store.lookup(), [] { return std::string(kRfc7677ServerNonce); });
  }
  // A server past the RFC's first message.
  ScramServer started() {
    ScramServer s = server();
    EXPECT_EQ(s.evaluate(kRfc7677ClientFirst).kind, SaslStep::Kind::kChallenge);
    return s;
  }
};

TEST(ScramCryptoTest, Rfc5802Sha1ExampleProofAndSignature) {
  const ScramHash h = ScramHash::kSha1;
  const std::string salted = scram_salted_password(h, "pencil", b64("QSXCR+Q6sek8bf92"), 4096);
  const std::string auth = scram_auth_message(
      "n=user,r=fyko+d2lbbFgONRv9qkxdawL", "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
      "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j");
  const std::string client_key = scram_client_key(h, salted);
  const std::string proof = scram_xor(client_key, scram_hmac(h, scram_digest(h, client_key), auth));
  EXPECT_EQ(base64_encode(proof), "v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=");
  EXPECT_EQ(base64_encode(scram_hmac(h, scram_server_key(h, salted), auth)), "rmF9pqV8S7suAoZWja4dJRkFsKQ=");
}

TEST_F(Rfc7677, TheServerAnswersTheRfcExchangeByteForByte) {
  ScramServer s = server();
  const SaslStep first = s.evaluate(kRfc7677ClientFirst);
  ASSERT_EQ(first.kind, SaslStep::Kind::kChallenge) << first.detail;
  EXPECT_EQ(first.data, kRfc7677ServerFirst);
  const SaslStep final = s.evaluate(kRfc7677ClientFinal);
  ASSERT_EQ(final.kind, SaslStep::Kind::kComplete) << final.detail;
  EXPECT_EQ(final.data, kRfc7677ServerFinal);
  EXPECT_TRUE(s.complete());
  EXPECT_EQ(s.authorization_id(), "user");
  EXPECT_EQ(s.mechanism(), "SCRAM-SHA-256");
}

TEST(ScramServerTest, Sha512ExchangeMatchesAnIndependentComputation) {
  // Expected values computed with Python's hashlib/hmac (pbkdf2_hmac('sha512', ...)), which reproduces
  // the RFC 5802 and RFC 7677 vectors above; the RFCs give none for SHA-512.
  Store store;
  store.creds[{"user", ScramMechanism::kSha512}] =
      credential(ScramMechanism::kSha512, "pencil", b64("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
  EXPECT_EQ(base64_encode(store.creds.begin()->second.stored_key),
            "6AAub3065EYRmyFpM2RNwqK+eGnrkYuEWbXn19LsEmBqzu8QaCXNc1FwpnX9NhH2hK/60dzj9DoO5DvVkOHbvg==");
  ScramServer s(ScramMechanism::kSha512, store.lookup(), [] { return std::string(kRfc7677ServerNonce); });
  ASSERT_EQ(s.evaluate(kRfc7677ClientFirst).data, std::string(kRfc7677ServerFirst));
  const SaslStep final = s.evaluate(
      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=gMGXRcevScNtxZ6/8lQYpGtnsNAc3mGcmNomv+xnoOMw+"
      "3R2xNJdMNnzMlTN8PPC6wdp6dybEmDYXYTxwnYPJQ==");
  ASSERT_EQ(final.kind, SaslStep::Kind::kComplete) << final.detail;
  EXPECT_EQ(final.data,
            "v=ZQnYEgWQMFmmsM8aQMF0nDDCy/AgCzkwk8CmMZYcMg0vSVlKDanekLtifDSeVGT4+5ZxXnJq199RVG2rR7N7Zw==");
}

TEST(ScramServerTest, AGeneratedCredentialAuthenticatesWithRandomNonces) {
  for (const ScramMechanism m : {ScramMechanism::kSha256, ScramMechanism::kSha512}) {
    Store store;
    auto generated = generate_scram_credential(m, "alice-secret", 4096);
    ASSERT_TRUE(generated.ok());
    EXPECT_EQ(generated->salt.size(), 32u);
    store.creds[{"alice", m}] = *generated;
    ScramServer s(m, store.lookup());
    testing::ScramTestClient client(scram_hash(m), "alice", "alice-secret", "client-nonce-123");
    const SaslStep first = s.evaluate(client.first());
    ASSERT_EQ(first.kind, SaslStep::Kind::kChallenge);
    EXPECT_TRUE(first.data.starts_with("r=client-nonce-123"));
    EXPECT_GT(first.data.find(",s="), std::string("r=client-nonce-123").size());  // a server nonce follows
    const SaslStep final = s.evaluate(client.final(first.data));
    ASSERT_EQ(final.kind, SaslStep::Kind::kComplete) << final.detail;
    EXPECT_TRUE(client.verify(final.data));
  }
}

TEST(ScramServerTest, TwoSessionsGetDifferentServerNonces) {
  Store store;
  store.creds[{"u", ScramMechanism::kSha256}] = generate_scram_credential(ScramMechanism::kSha256, "p", 4096).value();
  ScramServer a(ScramMechanism::kSha256, store.lookup()), b(ScramMechanism::kSha256, store.lookup());
  EXPECT_NE(a.evaluate("n,,n=u,r=x").data, b.evaluate("n,,n=u,r=x").data);
}

TEST_F(Rfc7677, AWrongProofFailsWithTheGenericMessage) {
  ScramServer s = started();
  std::string bad(kRfc7677ClientFinal);
  bad[bad.size() - 5] = bad[bad.size() - 5] == 'A' ? 'B' : 'A';
  const SaslStep step = s.evaluate(bad);
  EXPECT_EQ(step.kind, SaslStep::Kind::kFailed);
  EXPECT_EQ(step.detail, "Invalid client credentials");
  EXPECT_FALSE(step.client_message);
  EXPECT_EQ(failure_message(step, s.mechanism(), false),
            "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256");
  EXPECT_FALSE(s.complete());
}

TEST_F(Rfc7677, AWrongPasswordFails) {
  ScramServer s = server();
  testing::ScramTestClient client(ScramHash::kSha256, "user", "pencil2", "rOprNGfwEbeRWgbNEkqO");
  const SaslStep first = s.evaluate(client.first());
  EXPECT_EQ(s.evaluate(client.final(first.data)).detail, "Invalid client credentials");
}

TEST_F(Rfc7677, AProofOfTheWrongSizeFails) {
  ScramServer s = started();
  const SaslStep step =
      s.evaluate("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9yg==");
  EXPECT_EQ(step.kind, SaslStep::Kind::kFailed);
  EXPECT_NE(step.detail.find("proof has 16 bytes"), std::string::npos);
}

TEST_F(Rfc7677, ABadNonceInTheFinalMessageFails) {
  for (const char* final : {
           // the client's nonce without ours
           "c=biws,r=rOprNGfwEbeRWgbNEkqO,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
           // ours with something after it
           "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0X,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
           // ours cut short
           "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
       }) {
    ScramServer s = started();
    EXPECT_EQ(s.evaluate(final).detail, "Invalid client nonce in the final client message.") << final;
  }
}

// librdkafka 2.0.2 (Debian 12's) sends its own nonce again in front of the combined one;
// Kafka accepts that (endsWith), and the proof covers the bytes as sent.
TEST_F(Rfc7677, AFinalNonceWithTheClientNonceRepeatedInFrontAuthenticates) {
  ScramServer s = server();
  testing::ScramTestClient client(ScramHash::kSha256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
  const SaslStep first = s.evaluate(client.first());
  const SaslStep last = s.evaluate(client.final(first.data, "rOprNGfwEbeRWgbNEkqO"));
  ASSERT_EQ(last.kind, SaslStep::Kind::kComplete) << last.detail;
  EXPECT_TRUE(client.verify(last.data));
}

TEST_F(Rfc7677, AChannelBindingThatDoesNotRepeatTheHeaderFails) {
  ScramServer s = started();
  // c=eSws is "y,,": the header the client sent was "n,,".
  const SaslStep step =
      s.evaluate("c=eSws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  EXPECT_EQ(step.detail, "Invalid channel binding in the final client message.");
}

TEST_F(Rfc7677, BadBase64FailsBeforeAnyCheck) {
  for (const char* final : {
           "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ",
           "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzb*apWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
           "c=bi,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
       }) {
    ScramServer s = started();
    const SaslStep step = s.evaluate(final);
    EXPECT_EQ(step.kind, SaslStep::Kind::kFailed);
    EXPECT_TRUE(step.detail.starts_with("Invalid SCRAM client final message format")) << step.detail;
  }
}

TEST_F(Rfc7677, AReplayedFinalMessageFails) {
  ScramServer s = started();
  ASSERT_EQ(s.evaluate(kRfc7677ClientFinal).kind, SaslStep::Kind::kComplete);
  // Again on the same session:
  EXPECT_EQ(s.evaluate(kRfc7677ClientFinal).kind, SaslStep::Kind::kFailed);
  // On a new session: its server nonce differs, so the recorded final names the old one.
  ScramServer fresh(ScramMechanism::kSha256, store.lookup());
  ASSERT_EQ(fresh.evaluate(kRfc7677ClientFirst).kind, SaslStep::Kind::kChallenge);
  EXPECT_EQ(fresh.evaluate(kRfc7677ClientFinal).detail, "Invalid client nonce in the final client message.");
}

TEST_F(Rfc7677, AMessageAfterAFailureFails) {
  ScramServer s = started();
  ASSERT_EQ(s.evaluate("garbage").kind, SaslStep::Kind::kFailed);
  EXPECT_EQ(s.evaluate(kRfc7677ClientFinal).detail, "Unexpected challenge in Sasl server state FAILED");
}

TEST_F(Rfc7677, AnUnknownUserFailsAtTheFirstMessage) {
  ScramServer s = server();
  const SaslStep step = s.evaluate("n,,n=mallory,r=abc");
  EXPECT_EQ(step.detail, "Authentication failed: Invalid user credentials");
  EXPECT_FALSE(step.client_message);
}

TEST_F(Rfc7677, AnotherMechanismsCredentialIsNotUsed) {
  ScramServer s(ScramMechanism::kSha512, store.lookup());
  EXPECT_EQ(s.evaluate(kRfc7677ClientFirst).kind, SaslStep::Kind::kFailed);
}

TEST_F(Rfc7677, AnAuthzidOtherThanTheUserIsRefusedWithKafkasMessage) {
  ScramServer s = server();
  const SaslStep step = s.evaluate("n,a=admin,n=user,r=abc");
  EXPECT_EQ(step.client_message, "Authentication failed: Client requested an authorization id that is different from username");
  ScramServer same = server();
  EXPECT_EQ(same.evaluate("n,a=user,n=user,r=abc").kind, SaslStep::Kind::kChallenge);
}

TEST_F(Rfc7677, TooFewStoredIterationsFail) {
  ScramCredential weak = store.creds.begin()->second;
  weak.iterations = 4095;
  store.creds.begin()->second = weak;
  const SaslStep step = server().evaluate(kRfc7677ClientFirst);
  EXPECT_EQ(step.detail, "Iterations 4095 is less than the minimum 4096 for SCRAM-SHA-256");
}

TEST_F(Rfc7677, DelegationTokensAreNotSupported) {
  const SaslStep step = server().evaluate("n,,n=user,r=abc,tokenauth=TRUE");
  EXPECT_EQ(step.detail, "Token Authentication failed: Invalid tokenId : user");
  ScramServer s = server();
  EXPECT_EQ(s.evaluate("n,,n=user,r=abc,tokenauth=false,other=x").kind, SaslStep::Kind::kChallenge);
  EXPECT_EQ(s.extensions().at("other"), "x");
}

TEST_F(Rfc7677, AnOversizedMessageIsRefused) {
  const std::string huge = "n,,n=user,r=" + std::string(kMaxScramMessageBytes, 'x');
  EXPECT_NE(server().evaluate(huge).detail.find("at most 8192"), std::string::npos);
}

TEST(ScramMessagesTest, ClientFirstGrammar) {
  auto m = ClientFirstMessage::parse("n,a=a=3Db,m=reserved,n=us=2Cer=3D,r=n0nce!~,ext=v=1");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->gs2_header, "n,a=a=3Db,");
  EXPECT_EQ(m->authzid, "a=b");
  EXPECT_EQ(m->username, "us,er=");
  EXPECT_EQ(m->nonce, "n0nce!~");
  EXPECT_EQ(m->extensions.at("ext"), "v=1");
  EXPECT_EQ(m->bare, "m=reserved,n=us=2Cer=3D,r=n0nce!~,ext=v=1");
  for (const char* bad : {"y,,n=user,r=abc",        // a channel-binding flag other than n
                          "p=tls-unique,,n=u,r=abc", "n,,n=,r=abc", "n,,n=us=er,r=abc", "n,,n=user,r=",
                          "n,,n=user,r=a b",         // nonce with a space
                          "n,,n=user", "n,,r=abc,n=user", "n,,n=user,r=abc,", "n,,n=user,r=abc,1x=2",
                          "n,,n=us\xc3\xa9r,r=abc",  // non-ASCII, as Kafka's pattern
                          "n,x=y,n=user,r=abc", "n,", ""})
    EXPECT_FALSE(ClientFirstMessage::parse(bad).ok()) << bad;
}

TEST(ScramMessagesTest, ServerFirstGrammarAndIterations) {
  auto m = ServerFirstMessage::parse(kRfc7677ServerFirst);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->iterations, 4096);
  EXPECT_EQ(m->salt, b64("W22ZaJ0SNY7soEsUEjb6gQ=="));
  EXPECT_EQ(ServerFirstMessage::format(m->nonce, m->salt, m->iterations), kRfc7677ServerFirst);
  for (const char* bad : {"r=abc,s=QSXCR+Q6sek8bf92,i=0", "r=abc,s=QSXCR+Q6sek8bf92,i=-1",
                          "r=abc,s=QSXCR+Q6sek8bf92,i=4096x", "r=abc,s=QSXCR+Q6sek8bf92,i=99999999999",
                          "r=abc,s=QSXCR+Q6sek8bf92,i=", "r=abc,s=QSXCR+Q6sek8bf9,i=4096", "r=abc,i=4096",
                          "s=QSXCR+Q6sek8bf92,i=4096"})
    EXPECT_FALSE(ServerFirstMessage::parse(bad).ok()) << bad;
}

TEST(ScramMessagesTest, ClientFinalKeepsTheBytesBeforeTheProof) {
  auto m = ClientFinalMessage::parse("c=biws,r=abc,x=1,p=AAAA");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->without_proof, "c=biws,r=abc,x=1");
  EXPECT_EQ(m->channel_binding, "n,,");
  EXPECT_EQ(m->proof, std::string(3, '\0'));
  for (const char* bad : {"c=biws,r=abc", "r=abc,c=biws,p=AAAA", "c=biws,p=AAAA", "c=biws,r=abc,p=AA,A"})
    EXPECT_FALSE(ClientFinalMessage::parse(bad).ok()) << bad;
}

TEST(ScramMessagesTest, ServerFinalSignatureOrError) {
  auto v = ServerFinalMessage::parse(kRfc7677ServerFinal);
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->error);
  EXPECT_EQ(base64_encode(v->signature), "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  auto e = ServerFinalMessage::parse(ServerFinalMessage::format_error("invalid-proof"));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->error, "invalid-proof");
  EXPECT_FALSE(ServerFinalMessage::parse("e=a=b").ok());
  EXPECT_FALSE(ServerFinalMessage::parse("v=*").ok());
  EXPECT_FALSE(ServerFinalMessage::parse("x=1").ok());
}

TEST(ScramMessagesTest, UserNamesRoundTripThroughSaslNames) {
  EXPECT_EQ(scram_sasl_name("a,b=c"), "a=2Cb=3Dc");
  EXPECT_EQ(scram_username("a=2Cb=3Dc").value(), "a,b=c");
  EXPECT_FALSE(scram_username("a=2").ok());
  EXPECT_FALSE(scram_username("a=41").ok());
}

TEST(ScramCredentialTest, IterationBoundsAreKafkas) {
  EXPECT_EQ(generate_scram_credential(ScramMechanism::kSha256, "p", 4095).error().message(), "Too few iterations");
  EXPECT_EQ(generate_scram_credential(ScramMechanism::kSha512, "p", 16385).error().message(), "Too many iterations");
  EXPECT_TRUE(generate_scram_credential(ScramMechanism::kSha512, "p", 16384).ok());
  EXPECT_FALSE(scram_credential_from_salted_password(ScramMechanism::kSha512, "salt", std::string(32, 'x'), 4096).ok());
  EXPECT_FALSE(scram_credential_from_salted_password(ScramMechanism::kSha256, "", std::string(32, 'x'), 4096).ok());
}

TEST(ScramCredentialTest, MechanismNamesAndTypes) {
  EXPECT_EQ(scram_mechanism_from_name("SCRAM-SHA-512"), ScramMechanism::kSha512);
  EXPECT_FALSE(scram_mechanism_from_name("SCRAM-SHA-1"));
  EXPECT_EQ(scram_mechanism_from_type(1), ScramMechanism::kSha256);
  EXPECT_FALSE(scram_mechanism_from_type(0));
}

ScramCredentialRecord sample_record() {
  return {"alice", ScramMechanism::kSha512,
          credential(ScramMechanism::kSha512, "alice-secret", std::string("\x01\x02\x03salt", 7), 8192)};
}

TEST(ScramCredentialRecordTest, RoundTripsWithTheDocumentedLayout) {
  const ScramCredentialRecord r = sample_record();
  const std::string bytes = encode_scram_credential_record(r).value();
  ASSERT_EQ(bytes.size(), 1u + 1 + 2 + 5 + 4 + 1 + 7 + 64 + 64);
  EXPECT_EQ(bytes.substr(0, 9), std::string("\x01\x02\x00\x05" "alice", 9));
  EXPECT_EQ(bytes.substr(9, 5), std::string("\x00\x00\x20\x00\x07", 5));  // 8192, salt length 7
  auto decoded = decode_scram_credential_record(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message();
  EXPECT_EQ(*decoded, r);
}

TEST(ScramCredentialRecordTest, EveryTruncationAndTrailingByteIsRefused) {
  const std::string bytes = encode_scram_credential_record(sample_record()).value();
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(decode_scram_credential_record(bytes.substr(0, n)).ok()) << n;
  EXPECT_EQ(decode_scram_credential_record(bytes + "x").error().message(), "scram credential record: trailing bytes");
}

TEST(ScramCredentialRecordTest, HostileFieldsAreRefused) {
  const std::string good = encode_scram_credential_record(sample_record()).value();
  auto with = [&](size_t at, std::string_view bytes) {
    std::string b = good;
    b.replace(at, bytes.size(), bytes);
    return decode_scram_credential_record(b);
  };
  EXPECT_FALSE(with(0, "\x02").ok());                          // version
  EXPECT_FALSE(with(1, "\x03").ok());                          // mechanism
  EXPECT_FALSE(with(1, "\x01").ok());                          // SHA-256: the keys are 64 bytes, not 32
  EXPECT_FALSE(with(2, std::string("\xff\xff", 2)).ok());      // user length past the end
  EXPECT_FALSE(with(2, std::string("\x00\x00", 2)).ok());      // empty user
  EXPECT_FALSE(with(9, std::string("\x00\x00\x0f\xff", 4)).ok());  // 4095 iterations
  EXPECT_FALSE(with(9, std::string("\x80\x00\x00\x00", 4)).ok());  // negative
  EXPECT_FALSE(with(13, std::string("\x00", 1)).ok());         // empty salt
  EXPECT_FALSE(with(13, std::string("\xff", 1)).ok());         // salt past the bound and the end
}

TEST(ScramCredentialRecordTest, EncodingRefusesWhatCouldNotBeDecoded) {
  ScramCredentialRecord r = sample_record();
  r.user.clear();
  EXPECT_FALSE(encode_scram_credential_record(r).ok());
  r = sample_record();
  r.credential.salt = std::string(kMaxScramSaltBytes + 1, 's');
  EXPECT_FALSE(encode_scram_credential_record(r).ok());
}

}  // namespace
}  // namespace rokka::security
