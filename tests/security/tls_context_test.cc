#include "security/tls_context.h"

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <functional>
#include <optional>

#include "tests/security/test_pki.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::security {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using testing::TestCert;

struct Pki {
  TestCert ca = testing::make_cert({{"O", "Rokka Test"}, {"CN", "Test CA"}}, nullptr, true);
  TestCert other_ca = testing::make_cert({{"CN", "Other CA"}}, nullptr, true);
  TestCert server = testing::make_cert({{"O", "Example"}, {"CN", "localhost"}}, &ca, false);
  TestCert alice = testing::make_cert({{"O", "Example"}, {"OU", "eng"}, {"CN", "alice"}}, &ca, false);
  TestCert mallory = testing::make_cert({{"O", "Example"}, {"OU", "eng"}, {"CN", "mallory"}}, &other_ca, false);
  TestCert expired = testing::make_cert({{"O", "Example"}, {"OU", "eng"}, {"CN", "old"}}, &ca, false, -7200, -3600);
};

const Pki& pki() {
  static const Pki* p = new Pki;
  return *p;
}

// A client context trusting the test CA, presenting `cert` if given.
std::unique_ptr<asio::ssl::context> client_context(const TestCert* cert, const TestCert& trusted = pki().ca,
                                                   int max_version = 0) {
  auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
  SSL_CTX* native = ctx->native_handle();
  X509_STORE_add_cert(SSL_CTX_get_cert_store(native), trusted.cert.get());
  SSL_CTX_set_verify(native, SSL_VERIFY_PEER, nullptr);
  if (cert != nullptr) {
    SSL_CTX_use_certificate(native, cert->cert.get());
    SSL_CTX_use_PrivateKey(native, cert->key.get());
  }
  if (max_version != 0) SSL_CTX_set_max_proto_version(native, max_version);
  return ctx;
}

struct Handshake {
  boost::system::error_code server_error, client_error;
  std::optional<KafkaPrincipal> principal;
  std::string version, cipher;
  long verify_result = X509_V_OK;  // the server's verdict on the client's certificate
  bool client_got_reply = false;
};

// One loopback connection: the server handshakes, names the principal and
// writes "ok"; the client handshakes and reads it (under TLS 1.3 a refused
// client certificate shows on the client only at that read).
Handshake handshake(asio::ssl::context& server_ctx, asio::ssl::context& client_ctx,
                    const SslPrincipalMapper& mapper, bool client_speaks_tls = true,
                    const std::function<void(SSL*)>& before_client_handshake = {}) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  asio::ssl::stream<tcp::socket> server(io, server_ctx), client(io, client_ctx);
  tcp::socket plain(io);
  Handshake result;
  char reply[2];
  acceptor.async_accept(server.next_layer(), [&](boost::system::error_code ec) {
    if (ec) return void(result.server_error = ec);
    server.async_handshake(asio::ssl::stream_base::server, [&](boost::system::error_code ec) {
      result.server_error = ec;
      result.verify_result = SSL_get_verify_result(server.native_handle());
      if (ec) return server.next_layer().close();
      auto principal = tls_peer_principal(server.native_handle(), mapper);
      if (principal.ok()) result.principal = *principal;
      result.version = SSL_get_version(server.native_handle());
      result.cipher = SSL_get_cipher_name(server.native_handle());
      asio::async_write(server, asio::buffer("ok", 2), [](boost::system::error_code, size_t) {});
    });
  });
  const tcp::endpoint endpoint = acceptor.local_endpoint();
  if (client_speaks_tls) {
    client.next_layer().async_connect(endpoint, [&](boost::system::error_code ec) {
      if (ec) return void(result.client_error = ec);
      if (before_client_handshake) before_client_handshake(client.native_handle());
      client.async_handshake(asio::ssl::stream_base::client, [&](boost::system::error_code ec) {
        if (ec) return void(result.client_error = ec);
        asio::async_read(client, asio::buffer(reply), [&](boost::system::error_code ec, size_t) {
          result.client_error = ec;
          result.client_got_reply = !ec && std::string_view(reply, 2) == "ok";
        });
      });
    });
  } else {
    plain.async_connect(endpoint, [&](boost::system::error_code ec) {
      if (!ec) asio::async_write(plain, asio::buffer("GET / HTTP/1.0\r\n\r\n", 18), [](auto, auto) {});
    });
  }
  io.run_for(std::chrono::seconds(60));  // generous: the machine is shared
  return result;
}

SslPrincipalMapper mapper(std::string_view rules = "DEFAULT") { return SslPrincipalMapper::parse(rules).value(); }

class TlsContextTest : public ::testing::Test {
 protected:
  std::string file(const std::string& name, const std::string& data) {
    return testing::write_file((dir_ / name).string(), data);
  }
  // A PEM keystore file (key then chain) and a PEM truststore file with the test CA.
  ConfigMap pem_files() {
    return {{"ssl.keystore.type", "PEM"},
            {"ssl.keystore.location", file("server.pem", pki().server.key_pem() + pki().server.cert_pem() + pki().ca.cert_pem())},
            {"ssl.truststore.type", "PEM"},
            {"ssl.truststore.location", file("ca.pem", pki().ca.cert_pem())}};
  }
  std::shared_ptr<asio::ssl::context> build(const ConfigMap& config) {
    auto ctx = build_tls_server_context(config);
    EXPECT_TRUE(ctx.ok()) << ctx.error().message();
    return ctx.ok() ? *ctx : nullptr;
  }
  std::string error(const ConfigMap& config) {
    auto ctx = build_tls_server_context(config);
    return ctx.ok() ? "built" : ctx.error().message();
  }
  testutil::TempDir dir_;
};

TEST_F(TlsContextTest, PemFilesServeTls13ByDefault) {
  auto server = build(pem_files());
  ASSERT_TRUE(server);
  auto client = client_context(nullptr);
  const Handshake h = handshake(*server, *client, mapper());
  EXPECT_FALSE(h.server_error) << h.server_error.message();
  EXPECT_TRUE(h.client_got_reply) << h.client_error.message();
  EXPECT_EQ(h.version, "TLSv1.3");
  EXPECT_EQ(h.principal, KafkaPrincipal::anonymous());  // ssl.client.auth=none
}

TEST_F(TlsContextTest, MutualTlsMapsTheClientSubjectThroughTheRules) {
  ConfigMap config = pem_files();
  config["ssl.client.auth"] = "required";
  auto server = build(config);
  ASSERT_TRUE(server);
  auto client = client_context(&pki().alice);
  const Handshake h = handshake(*server, *client, mapper("RULE:^CN=(.*?),OU=(.*?),O=(.*?)$/$1/L,DEFAULT"));
  ASSERT_FALSE(h.server_error) << h.server_error.message();
  EXPECT_TRUE(h.client_got_reply);
  EXPECT_EQ(h.principal, KafkaPrincipal::user("alice"));
  const Handshake unmapped = handshake(*server, *client, mapper());
  EXPECT_EQ(unmapped.principal, KafkaPrincipal::user("CN=alice,OU=eng,O=Example"));
}

TEST_F(TlsContextTest, RequiredClientAuthRefusesMissingUntrustedAndExpiredCertificates) {
  ConfigMap config = pem_files();
  config["ssl.client.auth"] = "required";
  auto server = build(config);
  ASSERT_TRUE(server);
  for (const auto& [cert, verdict] : std::vector<std::pair<const TestCert*, long>>{
           {nullptr, X509_V_OK},  // nothing to verify: "peer did not return a certificate"
           {&pki().mallory, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY},
           {&pki().expired, X509_V_ERR_CERT_HAS_EXPIRED}}) {
    auto client = client_context(cert);
    const Handshake h = handshake(*server, *client, mapper());
    EXPECT_EQ(h.verify_result, verdict);
    EXPECT_TRUE(h.server_error) << "the server took the client's certificate";
    EXPECT_FALSE(h.client_got_reply);
    EXPECT_TRUE(h.client_error);
    EXPECT_FALSE(h.principal);
  }
}

TEST_F(TlsContextTest, RequestedClientAuthLetsAClientWithoutACertificateInAsAnonymous) {
  ConfigMap config = pem_files();
  config["ssl.client.auth"] = "requested";
  auto server = build(config);
  ASSERT_TRUE(server);
  auto anonymous = client_context(nullptr);
  EXPECT_EQ(handshake(*server, *anonymous, mapper()).principal, KafkaPrincipal::anonymous());
  auto alice = client_context(&pki().alice);
  EXPECT_EQ(handshake(*server, *alice, mapper()).principal, KafkaPrincipal::user("CN=alice,OU=eng,O=Example"));
  auto mallory = client_context(&pki().mallory);
  EXPECT_TRUE(handshake(*server, *mallory, mapper()).server_error);
}

TEST_F(TlsContextTest, InlinePemValuesWithTheirLineBreaksAsBlanksAndAnEncryptedKey) {
  const auto one_line = [](std::string pem) {
    for (char& c : pem)
      if (c == '\n') c = ' ';
    return pem;
  };
  ConfigMap config{{"ssl.keystore.type", "PEM"},
                   {"ssl.keystore.key", one_line(pki().server.key_pem("key-secret"))},
                   {"ssl.key.password", "key-secret"},
                   {"ssl.keystore.certificate.chain", one_line(pki().server.cert_pem())},
                   {"ssl.truststore.type", "PEM"},
                   {"ssl.truststore.certificates", one_line(pki().ca.cert_pem())},
                   {"ssl.client.auth", "required"}};
  auto server = build(config);
  ASSERT_TRUE(server);
  auto client = client_context(&pki().alice);
  EXPECT_EQ(handshake(*server, *client, mapper()).principal, KafkaPrincipal::user("CN=alice,OU=eng,O=Example"));
  config["ssl.key.password"] = "wrong";
  EXPECT_TRUE(error(config).starts_with("ssl.key.password: cannot decrypt the private key")) << error(config);
  config.erase("ssl.key.password");
  EXPECT_TRUE(error(config).starts_with("ssl.key.password: the private key is encrypted")) << error(config);
}

TEST_F(TlsContextTest, Pkcs12KeyAndTrustStores) {
  ConfigMap config{{"ssl.keystore.type", "PKCS12"},
                   {"ssl.keystore.location", file("server.p12", pki().server.pkcs12("store-secret", {&pki().ca}))},
                   {"ssl.keystore.password", "store-secret"},
                   {"ssl.truststore.type", "PKCS12"},
                   {"ssl.truststore.location", file("trust.p12", TestCert{nullptr, pki().ca.cert}.pkcs12("trust-secret"))},
                   {"ssl.truststore.password", "trust-secret"},
                   {"ssl.client.auth", "required"}};
  auto server = build(config);
  ASSERT_TRUE(server);
  auto client = client_context(&pki().alice);
  EXPECT_EQ(handshake(*server, *client, mapper()).principal, KafkaPrincipal::user("CN=alice,OU=eng,O=Example"));
  // Kafka's default type JKS reads a PKCS12 file, as Java's keystore compatibility mode does.
  config.erase("ssl.keystore.type");
  EXPECT_EQ(error(config), "built");
  config["ssl.keystore.password"] = "wrong";
  EXPECT_TRUE(error(config).starts_with("ssl.keystore.location: cannot read")) << error(config);
  config["ssl.keystore.password"] = "store-secret";
  config["ssl.keystore.location"] = file("real.jks", std::string("\xfe\xed\xfe\xed\x00\x00\x00\x02", 8));
  EXPECT_NE(error(config).find("is a JKS keystore"), std::string::npos);
}

TEST_F(TlsContextTest, EnabledProtocolsBoundTheVersion) {
  ConfigMap config = pem_files();
  config["ssl.enabled.protocols"] = "TLSv1.2";
  auto server = build(config);
  ASSERT_TRUE(server);
  auto client = client_context(nullptr);
  EXPECT_EQ(handshake(*server, *client, mapper()).version, "TLSv1.2");
  config["ssl.enabled.protocols"] = "TLSv1.3";
  auto tls13 = build(config);
  auto old_client = client_context(nullptr, pki().ca, TLS1_2_VERSION);
  const Handshake h = handshake(*tls13, *old_client, mapper());
  EXPECT_TRUE(h.server_error);
  EXPECT_FALSE(h.client_got_reply);
}

TEST_F(TlsContextTest, CipherSuitesTakeJavasNames) {
  ConfigMap config = pem_files();
  config["ssl.cipher.suites"] = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384";
  auto server = build(config);
  ASSERT_TRUE(server);
  auto client = client_context(nullptr);
  const Handshake h = handshake(*server, *client, mapper());
  EXPECT_EQ(h.version, "TLSv1.2");  // no TLS 1.3 suite named
  EXPECT_EQ(h.cipher, "ECDHE-ECDSA-AES256-GCM-SHA384");
  config["ssl.cipher.suites"] = "TLS_CHACHA20_POLY1305_SHA256";
  auto tls13 = build(config);
  ASSERT_TRUE(tls13);
  EXPECT_EQ(handshake(*tls13, *client, mapper()).cipher, "TLS_CHACHA20_POLY1305_SHA256");
}

TEST_F(TlsContextTest, PlaintextOnATlsPortFailsTheHandshakeCleanly) {
  auto server = build(pem_files());
  ASSERT_TRUE(server);
  auto client = client_context(nullptr);
  const Handshake h = handshake(*server, *client, mapper(), /*client_speaks_tls=*/false);
  EXPECT_TRUE(h.server_error);
  EXPECT_FALSE(h.principal);
}

TEST_F(TlsContextTest, ConfigErrorsNameTheKey) {
  const std::string key = pki().server.key_pem(), chain = pki().server.cert_pem();
  EXPECT_TRUE(error({}).starts_with("ssl.keystore.location: a TLS listener needs"));
  EXPECT_EQ(error({{"ssl.keystore.key", key}, {"ssl.keystore.certificate.chain", chain}}),
            "ssl.keystore.key: SSL private key can be specified only for PEM, but key store type is JKS.");
  EXPECT_EQ(error({{"ssl.keystore.type", "PEM"}, {"ssl.keystore.key", key}}),
            "ssl.keystore.certificate.chain: SSL private key is specified, but certificate chain is not specified.");
  EXPECT_EQ(error({{"ssl.keystore.type", "PEM"}, {"ssl.keystore.certificate.chain", chain}}),
            "ssl.keystore.key: SSL certificate chain is specified, but private key is not specified");
  EXPECT_TRUE(error({{"ssl.keystore.type", "PEM"}, {"ssl.keystore.key", key}, {"ssl.keystore.certificate.chain", chain},
                     {"ssl.keystore.password", "x"}})
                  .starts_with("ssl.keystore.password: SSL key store password cannot be specified with PEM format"));
  EXPECT_EQ(error({{"ssl.keystore.location", "/nonexistent.p12"}}),
            "ssl.keystore.password: SSL key store is specified, but key store password is not specified.");
  EXPECT_EQ(error({{"ssl.keystore.type", "PEM"}, {"ssl.keystore.location", "/nonexistent.pem"}}),
            "ssl.keystore.location: cannot open /nonexistent.pem");
  EXPECT_EQ(error({{"ssl.keystore.type", "BKS"}}), "ssl.keystore.type: 'BKS' is not PEM, PKCS12 or JKS");
  // A key that is not the certificate's.
  EXPECT_TRUE(error({{"ssl.keystore.type", "PEM"}, {"ssl.keystore.key", pki().alice.key_pem()},
                     {"ssl.keystore.certificate.chain", chain}})
                  .starts_with("ssl.keystore.key: the private key does not match the certificate"));
  EXPECT_EQ(error({{"ssl.keystore.type", "PEM"}, {"ssl.keystore.key", "not pem"}, {"ssl.keystore.certificate.chain", chain}}),
            "ssl.keystore.key: Private key not provided");
  ConfigMap base = pem_files();
  const auto with = [&](std::string k, std::string v) {
    ConfigMap c = base;
    c[k] = v;
    return error(c);
  };
  EXPECT_EQ(with("ssl.client.auth", "REQUIRED"), "ssl.client.auth: 'REQUIRED' is not one of required, requested, none");
  EXPECT_TRUE(with("ssl.enabled.protocols", "TLSv1.2,SSLv3").starts_with("ssl.enabled.protocols: 'SSLv3'"));
  EXPECT_EQ(with("ssl.cipher.suites", "TLS_NOT_A_SUITE"), "ssl.cipher.suites: 'TLS_NOT_A_SUITE' is not a cipher suite OpenSSL has");
  EXPECT_EQ(with("ssl.truststore.password", "x"), "ssl.truststore.password: SSL trust store password cannot be specified for PEM format.");
  EXPECT_EQ(with("ssl.truststore.certificates", pki().ca.cert_pem()),
            "ssl.truststore.location: Both SSL trust store location and separate trust certificates are specified.");
  EXPECT_EQ(with("ssl.truststore.location", file("empty.pem", "nothing")),
            "ssl.truststore.location: At least one certificate expected, but none found");
}

// A keystore replacing a listener's keeps its subject and alternative names
// (Kafka's reconfiguration check), unless the listener allows the change.
TEST_F(TlsContextTest, AReplacementKeystoreKeepsTheSubjectAndAltNamesUnlessAllowed) {
  const auto keystore = [&](const std::string& name, const TestCert& cert) {
    return build({{"ssl.keystore.type", "PEM"},
                  {"ssl.keystore.location", file(name, cert.key_pem() + cert.cert_pem() + pki().ca.cert_pem())}});
  };
  auto current = keystore("current.pem", pki().server);
  // A new key and certificate for the same subject and names: accepted.
  const TestCert renewed = testing::make_cert({{"O", "Example"}, {"CN", "localhost"}}, &pki().ca, false);
  const TestCert renamed = testing::make_cert({{"O", "Example"}, {"CN", "broker-2"}}, &pki().ca, false);
  const TestCert more_names = testing::make_cert({{"O", "Example"}, {"CN", "localhost"}}, &pki().ca, false, -3600,
                                                 86400, "DNS:localhost,IP:127.0.0.1,DNS:broker.example");
  auto same = keystore("renewed.pem", renewed), other_dn = keystore("renamed.pem", renamed),
       other_san = keystore("more.pem", more_names);
  ASSERT_TRUE(current && same && other_dn && other_san);
  const ConfigMap none;
  EXPECT_EQ(keystore_change_error(current->native_handle(), same->native_handle(), none), "");
  EXPECT_EQ(keystore_change_error(current->native_handle(), other_dn->native_handle(), none),
            "Keystore DistinguishedName does not match: existing={CN=localhost,O=Example}, new={CN=broker-2,O=Example} "
            "(set ssl.allow.dn.changes=true to allow it)");
  EXPECT_EQ(keystore_change_error(current->native_handle(), other_san->native_handle(), none),
            "Keystore SubjectAltNames do not match: existing=[DNS:localhost, IP Address:127.0.0.1], "
            "new=[DNS:broker.example, DNS:localhost, IP Address:127.0.0.1] (set ssl.allow.san.changes=true to allow it)");
  EXPECT_EQ(keystore_change_error(current->native_handle(), other_dn->native_handle(), {{"ssl.allow.dn.changes", "true"}}),
            "");
  EXPECT_EQ(
      keystore_change_error(current->native_handle(), other_san->native_handle(), {{"ssl.allow.san.changes", "TRUE"}}), "");
  // Allowing one does not allow the other.
  EXPECT_NE(keystore_change_error(current->native_handle(), other_san->native_handle(), {{"ssl.allow.dn.changes", "true"}}),
            "");
}

}  // namespace
}  // namespace rokka::security

namespace rokka::security {
namespace {

// The broker's own client context (inter-broker connections): the peer's certificate must chain
// to the listener's truststore and name the host dialled, unless ssl.endpoint.identification.algorithm
// is empty; the keystore is presented to a server that requires a client certificate.
TEST_F(TlsContextTest, TheBrokersClientChecksThePeersChainAndHostName) {
  auto server = build(pem_files());
  ASSERT_TRUE(server);
  const ConfigMap settings = pem_files();
  auto client = build_tls_client_context(settings);
  ASSERT_TRUE(client.ok()) << client.error().message();
  auto dialling = [&](const std::string& host, const ConfigMap& c) {
    return [&, host](SSL* ssl) { ASSERT_TRUE(expect_tls_peer(ssl, host, c).ok()); };
  };
  // The server's certificate names DNS:localhost and IP:127.0.0.1.
  for (const char* host : {"127.0.0.1", "localhost"}) {
    const Handshake h = handshake(*server, **client, mapper(), true, dialling(host, settings));
    EXPECT_FALSE(h.client_error) << host << ": " << h.client_error.message();
    EXPECT_TRUE(h.client_got_reply) << host;
  }
  for (const char* host : {"10.9.8.7", "broker.example"}) {
    const Handshake h = handshake(*server, **client, mapper(), true, dialling(host, settings));
    EXPECT_TRUE(h.client_error) << host << " is not in the certificate";
    EXPECT_FALSE(h.client_got_reply) << host;
  }
  ConfigMap unchecked = settings;
  unchecked["ssl.endpoint.identification.algorithm"] = "";
  EXPECT_TRUE(handshake(*server, **client, mapper(), true, dialling("10.9.8.7", unchecked)).client_got_reply)
      << "no host name check when the algorithm is empty";

  // A truststore without the server's CA: refused whatever the host.
  ConfigMap elsewhere = settings;
  elsewhere["ssl.truststore.location"] = file("other-ca.pem", pki().other_ca.cert_pem());
  auto distrustful = build_tls_client_context(elsewhere);
  ASSERT_TRUE(distrustful.ok());
  EXPECT_TRUE(handshake(*server, **distrustful, mapper(), true, dialling("127.0.0.1", elsewhere)).client_error);

  // A server requiring client certificates gets the keystore's, which the test CA signed.
  ConfigMap required = pem_files();
  required["ssl.client.auth"] = "required";
  auto strict = build(required);
  ASSERT_TRUE(strict);
  const Handshake h = handshake(*strict, **client, mapper(), true, dialling("127.0.0.1", settings));
  EXPECT_TRUE(h.client_got_reply) << h.client_error.message() << " / " << h.server_error.message();
  EXPECT_EQ(h.principal, KafkaPrincipal::user("CN=localhost,O=Example"));
}

}  // namespace
}  // namespace rokka::security
