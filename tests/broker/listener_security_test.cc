// build_listener_security on its own: which ssl.client.auth a listener takes (KIP-684:
// the bare key is for SSL listeners, a SASL_SSL listener asks for client certificates
// only under its own listener.name.<l>. prefix).
#include "broker/net/listener_security.h"

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include "tests/security/test_pki.h"
#include "tests/testutil/temp_dir.h"

namespace rokka::broker {
namespace {

using security::testing::make_cert;
using security::testing::TestCert;

class ListenerSecurityTest : public ::testing::Test {
 protected:
  ListenerSecurityTest() {
    const TestCert ca = make_cert({{"CN", "test-ca"}}, nullptr, true);
    const TestCert server = make_cert({{"CN", "localhost"}}, &ca, false);
    keystore_ = security::testing::write_file((dir_ / "broker.pem").string(),
                                               server.key_pem() + server.cert_pem() + ca.cert_pem());
  }
  // The verify mode the listener's TLS context asks of clients.
  int verify_mode(const std::string& name, const std::string& protocol, security::ConfigMap settings) {
    settings["ssl.keystore.type"] = "PEM";
    settings["ssl.keystore.location"] = keystore_;
    settings["sasl.enabled.mechanisms"] = "PLAIN";
    settings["plain.sasl.jaas.config"] =
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"secret\";";
    Listener l;
    l.name = name;
    l.security_protocol = protocol;
    auto built = build_listener_security(l, settings);
    EXPECT_TRUE(built.ok()) << built.status().to_string();
    return built.ok() ? SSL_CTX_get_verify_mode((*built)->tls->native_handle()) : -1;
  }
  testutil::TempDir dir_;
  std::string keystore_;
};

constexpr int kRequired = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;

TEST_F(ListenerSecurityTest, BareSslClientAuthIsForSslListenersOnly) {
  const security::ConfigMap bare{{"ssl.client.auth", "required"}};
  EXPECT_EQ(verify_mode("SSL", "SSL", bare), kRequired);
  EXPECT_EQ(verify_mode("SASL_SSL", "SASL_SSL", bare), SSL_VERIFY_NONE);
  // A listener named otherwise behaves by its protocol.
  EXPECT_EQ(verify_mode("EXTERNAL", "SASL_SSL", bare), SSL_VERIFY_NONE);
}

TEST_F(ListenerSecurityTest, ASaslSslListenerTakesItsOwnPrefixedSslClientAuth) {
  EXPECT_EQ(verify_mode("SASL_SSL", "SASL_SSL",
                        {{"ssl.client.auth", "none"}, {"listener.name.sasl_ssl.ssl.client.auth", "required"}}),
            kRequired);
  EXPECT_EQ(verify_mode("EXTERNAL", "SASL_SSL", {{"listener.name.external.ssl.client.auth", "requested"}}),
            SSL_VERIFY_PEER);
}

}  // namespace
}  // namespace rokka::broker
