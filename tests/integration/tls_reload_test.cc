// A listener's certificate replaced through AlterConfigs while clients are
// connected, as Kafka's dynamic SSL reconfiguration does it: new connections
// get the new certificate, live ones keep theirs and keep working; a keystore
// with another subject, or one that does not load, is refused with
// INVALID_REQUEST and changes nothing; the stored value is the one served after
// a restart. Against build/rokka, certificates made at test time.
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <array>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <filesystem>
#include <string>
#include <thread>

#include "protocol/messages/alter_configs.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "tests/security/test_pki.h"
#include "tests/testutil/kafka_admin.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"
#include "tests/testutil/wire_client.h"

using rokka::protocol::ErrorCode;

namespace rokka {
namespace {

namespace asio = boost::asio;
using security::testing::make_cert;
using security::testing::TestCert;
using security::testing::write_file;
using testutil::RokkaProcess;
using testutil::TempDir;

constexpr int16_t kInvalidRequest = 42;
constexpr const char* kKeystoreKey = "listener.name.ssl.ssl.keystore.location";

// One TLS connection to the broker, trusting only the test CA: which certificate
// it was served, and whether the broker still answers on it.
class TlsClient {
 public:
  TlsClient(uint16_t port, const TestCert& ca) : tls_ctx_(asio::ssl::context::tls_client), stream_(io_, tls_ctx_) {
    X509_STORE_add_cert(SSL_CTX_get_cert_store(tls_ctx_.native_handle()), ca.cert.get());
    tls_ctx_.set_verify_mode(asio::ssl::verify_peer);
    stream_.lowest_layer().connect({asio::ip::make_address("127.0.0.1"), port});
    stream_.handshake(asio::ssl::stream_base::client);
  }
  // Whether the broker presented `cert` on this connection.
  bool served(const TestCert& cert) {
    const X509* peer = SSL_get0_peer_certificate(stream_.native_handle());
    return peer != nullptr && X509_cmp(peer, cert.cert.get()) == 0;
  }
  // An ApiVersions request answered with its correlation id.
  bool answers() {
    const int32_t id = ++calls_;
    boost::system::error_code ec;
    asio::write(stream_, asio::buffer(testutil::WireClient::frame(protocol::ApiKey::kApiVersions, 0, id, {})), ec);
    if (ec) return false;
    std::array<unsigned char, 8> head{};  // size, correlation id
    asio::read(stream_, asio::buffer(head), ec);
    if (ec) return false;
    const uint32_t size = uint32_t{head[0]} << 24 | uint32_t{head[1]} << 16 | uint32_t{head[2]} << 8 | head[3];
    const int32_t cid = static_cast<int32_t>(uint32_t{head[4]} << 24 | uint32_t{head[5]} << 16 |
                                             uint32_t{head[6]} << 8 | head[7]);
    if (size < 4 || size > (1u << 20)) return false;
    std::string rest(size - 4, '\0');
    asio::read(stream_, asio::buffer(rest), ec);
    return !ec && cid == id;
  }

 private:
  asio::io_context io_;
  asio::ssl::context tls_ctx_;
  asio::ssl::stream<asio::ip::tcp::socket> stream_;
  int32_t calls_ = 0;
};

class TlsReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "data");
    first_file_ = keystore("first.pem", first_);
    broker_ = std::make_unique<RokkaProcess>(
        dir_ / "data", RokkaProcess::Overrides{
                           {"listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0"},
                           {"ssl.keystore.type", "PEM"},
                           {kKeystoreKey, first_file_},
                           {"num.partitions", "1"},
                       });
    broker_->start();
    ASSERT_NE(broker_->port("SSL"), 0);
  }

  // A PEM keystore file: the key, the certificate, the CA.
  std::string keystore(const std::string& name, const TestCert& cert) const {
    return write_file((dir_ / name).string(), cert.key_pem() + cert.cert_pem() + ca_.cert_pem());
  }

  // IncrementalAlterConfigs SET of `key` on broker 0 over PLAINTEXT: the error code and message.
  std::pair<int16_t, std::string> set_broker_config(const std::string& key, const std::string& value,
                                                    bool validate_only = false) {
    protocol::IncrementalAlterConfigsRequest req;
    req.resources.push_back({4, "0", {{key, 0, value}}});  // resource type 4: BROKER
    req.validate_only = validate_only;
    testutil::WireClient c(broker_->port());
    auto resp = c.call<protocol::IncrementalAlterConfigsResponse>(req, 1);
    if (!resp || resp->responses.size() != 1) return {-1, "no response"};
    return {rokka::protocol::to_int(resp->responses[0].error_code), resp->responses[0].error_message.value_or("")};
  }

  std::unique_ptr<TlsClient> connect() { return std::make_unique<TlsClient>(broker_->port("SSL"), ca_); }

  TempDir dir_;
  const TestCert ca_ = make_cert({{"O", "rokka-test"}, {"CN", "test-ca"}}, nullptr, true);
  const TestCert first_ = make_cert({{"O", "rokka-test"}, {"CN", "localhost"}}, &ca_, false);
  std::string first_file_;
  std::unique_ptr<RokkaProcess> broker_;
};

TEST_F(TlsReloadTest, ANewKeystoreServesNewConnectionsWhileLiveOnesKeepWorking) {
  auto live = connect();
  ASSERT_TRUE(live->served(first_));
  ASSERT_TRUE(live->answers());

  // The same subject and names with a new key: what a certificate renewal is.
  const TestCert second = make_cert({{"O", "rokka-test"}, {"CN", "localhost"}}, &ca_, false);
  const auto [err, message] = set_broker_config(kKeystoreKey, keystore("second.pem", second));
  ASSERT_EQ(err, 0) << message;

  auto fresh = connect();
  EXPECT_TRUE(fresh->served(second));
  EXPECT_TRUE(fresh->answers());
  // The connection made before the change was not dropped, and still answers.
  EXPECT_TRUE(live->answers());
  EXPECT_TRUE(live->served(first_));

  // A real client over SSL after the change: what it produces comes back.
  testutil::KafkaAdmin admin(broker_->bootstrap());
  ASSERT_EQ(admin.create_topic("renewed", 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  const std::string ssl_bootstrap = "127.0.0.1:" + std::to_string(broker_->port("SSL"));
  const std::map<std::string, std::string> tls = {{"security.protocol", "SSL"},
                                                  {"ssl.ca.location", write_file((dir_ / "ca.pem").string(), ca_.cert_pem())},
                                                  {"message.timeout.ms", "15000"}};
  {
    testutil::TestProducer p(ssl_bootstrap, tls);
    ASSERT_EQ(p.produce("renewed", 0, std::nullopt, "after the renewal"), RdKafka::ERR_NO_ERROR);
    const auto delivered = p.flush(std::chrono::seconds(60));
    ASSERT_EQ(delivered.size(), 1u);
    EXPECT_EQ(delivered[0].error, RdKafka::ERR_NO_ERROR);
  }
  auto consumer_settings = tls;
  consumer_settings.erase("message.timeout.ms");
  const auto got =
      testutil::consume_assigned(ssl_bootstrap, "renewed", {0}, 0, 1, std::chrono::seconds(60), consumer_settings);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].value, "after the renewal");
}

TEST_F(TlsReloadTest, AKeystoreFileRewrittenInPlaceIsReadAgainOnAlterConfigs) {
  const TestCert renewed = make_cert({{"O", "rokka-test"}, {"CN", "localhost"}}, &ca_, false);
  // Rewritten with the same path, as cert-manager or a cron job renews it; a
  // second may pass for a file system whose times are coarse.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  keystore("first.pem", renewed);
  EXPECT_TRUE(connect()->served(first_));  // nothing reads the file until asked to
  // A change that names no key of the listener leaves it alone.
  auto [err, message] = set_broker_config("max.connections", "1000");
  ASSERT_EQ(err, 0) << message;
  EXPECT_TRUE(connect()->served(first_));
  std::tie(err, message) = set_broker_config(kKeystoreKey, first_file_);
  ASSERT_EQ(err, 0) << message;
  EXPECT_TRUE(connect()->served(renewed));
}

TEST_F(TlsReloadTest, AlterConfigsLeavingTheKeyOutGoesBackToServerProperties) {
  const TestCert second = make_cert({{"O", "rokka-test"}, {"CN", "localhost"}}, &ca_, false);
  auto [err, message] = set_broker_config(kKeystoreKey, keystore("second.pem", second));
  ASSERT_EQ(err, 0) << message;
  ASSERT_TRUE(connect()->served(second));
  // AlterConfigs (not incremental) replaces this broker's dynamic configs: without the
  // keystore key the listener is back on server.properties' keystore.
  protocol::AlterConfigsRequest req;
  req.resources.push_back({4, "0", {{"max.connections", std::string_view("1000")}}});
  testutil::WireClient c(broker_->port());
  auto resp = c.call<protocol::AlterConfigsResponse>(req, 1);
  ASSERT_TRUE(resp && resp->responses.size() == 1);
  ASSERT_EQ(resp->responses[0].error_code, ErrorCode::kNone) << resp->responses[0].error_message.value_or("");
  EXPECT_TRUE(connect()->served(first_));
}

TEST_F(TlsReloadTest, AnIncompatibleOrBrokenKeystoreIsRefusedAndChangesNothing) {
  const TestCert renamed = make_cert({{"O", "rokka-test"}, {"CN", "another-host"}}, &ca_, false);
  const std::string renamed_file = keystore("renamed.pem", renamed);

  auto [err, message] = set_broker_config(kKeystoreKey, renamed_file);
  EXPECT_EQ(err, kInvalidRequest);
  EXPECT_NE(message.find("Keystore DistinguishedName does not match: existing={CN=localhost,O=rokka-test}, "
                         "new={CN=another-host,O=rokka-test}"),
            std::string::npos)
      << message;
  EXPECT_TRUE(connect()->served(first_));

  std::tie(err, message) = set_broker_config(kKeystoreKey, (dir_ / "missing.pem").string());
  EXPECT_EQ(err, kInvalidRequest);
  EXPECT_NE(message.find("ssl.keystore.location: cannot open"), std::string::npos) << message;

  // validate_only checks the same and stores nothing, even when the change is valid.
  std::tie(err, message) = set_broker_config(kKeystoreKey, renamed_file, /*validate_only=*/true);
  EXPECT_EQ(err, kInvalidRequest);
  const TestCert renewed = make_cert({{"O", "rokka-test"}, {"CN", "localhost"}}, &ca_, false);
  std::tie(err, message) = set_broker_config(kKeystoreKey, keystore("renewed.pem", renewed), /*validate_only=*/true);
  EXPECT_EQ(err, 0) << message;
  EXPECT_TRUE(connect()->served(first_));

  // With the listener allowing a new subject (KIP-978), the renamed keystore is taken.
  std::tie(err, message) = set_broker_config("listener.name.ssl.ssl.allow.dn.changes", "true");
  ASSERT_EQ(err, 0) << message;
  std::tie(err, message) = set_broker_config(kKeystoreKey, renamed_file);
  ASSERT_EQ(err, 0) << message;
  EXPECT_TRUE(connect()->served(renamed));
}

TEST_F(TlsReloadTest, TheStoredKeystoreIsTheOneServedAfterARestart) {
  const TestCert second = make_cert({{"O", "rokka-test"}, {"CN", "localhost"}}, &ca_, false);
  const auto [err, message] = set_broker_config(kKeystoreKey, keystore("second.pem", second));
  ASSERT_EQ(err, 0) << message;
  ASSERT_EQ(broker_->stop(), 0);
  broker_->start();
  EXPECT_TRUE(connect()->served(second));
}

}  // namespace
}  // namespace rokka
