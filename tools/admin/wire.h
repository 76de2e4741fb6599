// A blocking connection that speaks Kafka's protocol itself, through protocol/'s
// codecs, for the requests librdkafka 2.0.2's Admin API lacks (Describe- and
// AlterUserScramCredentials). It takes the client properties librdkafka takes, from
// --command-config: security.protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL),
// ssl.ca.location, ssl.certificate.location + ssl.key.location (+ ssl.key.password),
// enable.ssl.certificate.verification, sasl.mechanism(s) (PLAIN, SCRAM-SHA-256,
// SCRAM-SHA-512), sasl.username, sasl.password. It talks to the first bootstrap
// server. Responses are decoded with the codec's bounds; a failure throws KafkaError.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/message.h"
#include "tools/admin/client.h"

namespace rokka::admin {

class WireConnection {
 public:
  // Connects, shakes hands (TLS) and authenticates (SASL) as the options say.
  explicit WireConnection(const ClientOptions& options);
  ~WireConnection();

  // Sends `req` at `version` and decodes the response.
  template <typename Resp, typename Req>
  Resp call(const Req& req, int16_t version) {
    const std::vector<std::byte> body = exchange(Req::kApiKey, version, protocol::encode_to_bytes(req, version));
    Resp resp;
    if (!protocol::decode(resp, protocol::Bytes(body).subspan(body_offset_), version))
      throw KafkaError(RD_KAFKA_RESP_ERR__BAD_MSG, std::string(protocol::api_name(Req::kApiKey)) + " response");
    return resp;
  }

 private:
  // One request out, its response frame back (checked correlation id); the body starts
  // at body_offset_ in the returned frame.
  std::vector<std::byte> exchange(protocol::ApiKey key, int16_t version, const std::vector<std::byte>& body);
  template <typename Start>
  boost::system::error_code run(Start start);
  void write_all(const std::vector<std::byte>& bytes);
  void read_exact(void* data, size_t size);
  void authenticate(const std::string& mechanism, const std::string& user, const std::string& password);
  // One SaslAuthenticate round: our bytes out, the broker's back (its error throws).
  std::string sasl_round(const std::string& bytes);

  boost::asio::io_context io_;
  std::unique_ptr<boost::asio::ssl::context> tls_ctx_;
  boost::asio::ip::tcp::socket socket_;
  std::unique_ptr<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>> tls_;
  int timeout_ms_;
  int32_t correlation_id_ = 0;
  size_t body_offset_ = 0;
};

}  // namespace rokka::admin
