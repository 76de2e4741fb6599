#include "security/tls_context.h"

#include <openssl/err.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <cstdio>
#include <vector>

#include "security/base64.h"
#include "security/x509_name.h"

namespace rokka::security {
namespace {

constexpr size_t kMaxStoreFileBytes = 16 << 20;

template <typename T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Pkey = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Ctx = std::unique_ptr<SSL_CTX, Deleter<SSL_CTX, SSL_CTX_free>>;

struct KeyStore {
  Pkey key;
  std::vector<Cert> chain;  // leaf first
};

// The reason OpenSSL gave last, drained from its queue.
std::string openssl_reason() {
  std::string out;
  for (unsigned long e = ERR_get_error(); e != 0; e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    out = buf;  // the first error queued is usually the root cause, the last the clearest: keep the last
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

Error key_error(std::string_view key, const std::string& what) { return Error(std::string(key) + ": " + what); }

Result<std::string> read_file(std::string_view key, std::string_view path) {
  std::FILE* f = std::fopen(std::string(path).c_str(), "rb");
  if (f == nullptr) return key_error(key, "cannot open " + std::string(path));
  std::string data(kMaxStoreFileBytes + 1, '\0');
  data.resize(std::fread(data.data(), 1, data.size(), f));
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return key_error(key, "cannot read " + std::string(path));
  if (data.size() > kMaxStoreFileBytes) return key_error(key, std::string(path) + " is larger than 16 MiB");
  return data;
}

struct PemBlock {
  std::string label;
  std::string der;
};

// Every "-----BEGIN <label>----- <base64> -----END <label>-----" in `text`,
// with any blanks (or none) around and inside the base64.
Result<std::vector<PemBlock>> pem_blocks(std::string_view key, std::string_view text) {
  std::vector<PemBlock> blocks;
  size_t pos = 0;
  while ((pos = text.find("-----BEGIN", pos)) != std::string_view::npos) {
    const size_t label_start = pos + 10;
    const size_t label_end = text.find("-----", label_start);
    if (label_end == std::string_view::npos) return key_error(key, "unterminated PEM BEGIN line");
    PemBlock block{std::string(trim_blanks(text.substr(label_start, label_end - label_start))), {}};
    const size_t body_start = label_end + 5;
    const size_t end = text.find("-----END", body_start);
    if (end == std::string_view::npos) return key_error(key, "PEM " + block.label + " without its END line");
    const std::string_view body = text.substr(body_start, end - body_start);
    if (body.find(':') != std::string_view::npos)
      return key_error(key, "PEM " + block.label +
                                " with headers (legacy DEK-Info encryption) is not supported; use PKCS#8 "
                                "(openssl pkcs8 -topk8)");
    std::string b64;
    for (const char c : body)
      if (!(c == ' ' || c == '\t' || c == '\r' || c == '\n')) b64.push_back(c);
    auto der = base64_decode(b64, b64.size());
    if (!der) return key_error(key, "PEM " + block.label + " is not valid base64");
    block.der = std::move(*der);
    blocks.push_back(std::move(block));
    const size_t close = text.find("-----", end + 8);
    pos = close == std::string_view::npos ? text.size() : close + 5;
  }
  return blocks;
}

Result<std::vector<Cert>> pem_certificates(std::string_view key, const std::vector<PemBlock>& blocks) {
  std::vector<Cert> certs;
  for (const PemBlock& b : blocks) {
    if (b.label.find("CERTIFICATE") == std::string::npos) continue;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(b.der.data());
    Cert cert(d2i_X509(nullptr, &p, static_cast<long>(b.der.size())));
    if (!cert) return key_error(key, "invalid certificate: " + openssl_reason());
    certs.push_back(std::move(cert));
  }
  if (certs.empty()) return key_error(key, "At least one certificate expected, but none found");
  return certs;
}

Result<Pkey> pem_private_key(std::string_view key, const std::vector<PemBlock>& blocks,
                             std::optional<std::string_view> password) {
  const PemBlock* found = nullptr;
  size_t count = 0;
  for (const PemBlock& b : blocks)
    if (b.label.find("PRIVATE KEY") != std::string::npos) found = (++count == 1 ? &b : found);
  if (count == 0) return key_error(key, "Private key not provided");
  if (count != 1) return key_error(key, "Expected one private key, but found " + std::to_string(count));
  const unsigned char* p = reinterpret_cast<const unsigned char*>(found->der.data());
  const long len = static_cast<long>(found->der.size());
  if (found->label.starts_with("ENCRYPTED")) {
    if (!password) return Error("ssl.key.password: the private key is encrypted, but no key password is set");
    X509_SIG* sig = d2i_X509_SIG(nullptr, &p, len);
    PKCS8_PRIV_KEY_INFO* info =
        sig ? PKCS8_decrypt(sig, password->data(), static_cast<int>(password->size())) : nullptr;
    Pkey pkey(info ? EVP_PKCS82PKEY(info) : nullptr);
    PKCS8_PRIV_KEY_INFO_free(info);
    X509_SIG_free(sig);
    if (!pkey) return Error("ssl.key.password: cannot decrypt the private key (" + openssl_reason() + ")");
    return pkey;
  }
  Pkey pkey(d2i_AutoPrivateKey(nullptr, &p, len));
  if (!pkey) return key_error(key, "Private key could not be loaded: " + openssl_reason());
  return pkey;
}

Result<KeyStore> pem_key_store(std::string_view key_key, std::string_view key_text, std::string_view chain_key,
                               std::string_view chain_text, std::optional<std::string_view> password) {
  auto key_blocks = pem_blocks(key_key, key_text);
  if (!key_blocks.ok()) return key_blocks.error();
  auto chain_blocks = pem_blocks(chain_key, chain_text);
  if (!chain_blocks.ok()) return chain_blocks.error();
  auto pkey = pem_private_key(key_key, *key_blocks, password);
  if (!pkey.ok()) return pkey.error();
  auto chain = pem_certificates(chain_key, *chain_blocks);
  if (!chain.ok()) return chain.error();
  return KeyStore{std::move(pkey).value(), std::move(chain).value()};
}

struct Pkcs12Contents {
  Pkey key;
  std::vector<Cert> certs;  // with a key: the leaf first
};

Result<Pkcs12Contents> read_pkcs12(std::string_view key, std::string_view path, std::optional<std::string_view> password) {
  auto data = read_file(key, path);
  if (!data.ok()) return data.error();
  if (data->starts_with("\xfe\xed\xfe\xed"))
    return key_error(key, std::string(path) + " is a JKS keystore, which OpenSSL cannot read; convert it with "
                          "keytool -importkeystore -deststoretype PKCS12, or use PEM");
  const unsigned char* p = reinterpret_cast<const unsigned char*>(data->data());
  PKCS12* p12 = d2i_PKCS12(nullptr, &p, static_cast<long>(data->size()));
  if (p12 == nullptr) return key_error(key, std::string(path) + " is not a PKCS12 file (" + openssl_reason() + ")");
  EVP_PKEY* pkey = nullptr;
  X509* cert = nullptr;
  STACK_OF(X509)* ca = nullptr;
  const std::string pass(password.value_or(""));
  const int ok = PKCS12_parse(p12, password ? pass.c_str() : nullptr, &pkey, &cert, &ca);
  PKCS12_free(p12);
  if (ok != 1)
    return key_error(key, "cannot read " + std::string(path) + " (wrong password, or encryption OpenSSL 3 "
                          "treats as legacy: " + openssl_reason() + ")");
  Pkcs12Contents out;
  out.key.reset(pkey);
  if (cert != nullptr) out.certs.emplace_back(cert);
  for (int i = 0; ca != nullptr && i < sk_X509_num(ca); ++i) out.certs.emplace_back(sk_X509_value(ca, i));
  sk_X509_free(ca);  // the certificates now belong to out.certs
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

Result<std::optional<KeyStore>> load_key_store(const ConfigMap& c) {
  const std::string type = upper(config_value(c, "ssl.keystore.type").value_or("JKS"));
  const auto location = config_value(c, "ssl.keystore.location");
  const auto password = config_value(c, "ssl.keystore.password");
  const auto key_password = config_value(c, "ssl.key.password");
  const auto key = config_value(c, "ssl.keystore.key");
  const auto chain = config_value(c, "ssl.keystore.certificate.chain");
  if (type != "PEM" && type != "PKCS12" && type != "JKS")
    return Error("ssl.keystore.type: '" + type + "' is not PEM, PKCS12 or JKS");
  if (key) {
    if (type != "PEM")
      return Error("ssl.keystore.key: SSL private key can be specified only for PEM, but key store type is " + type + ".");
    if (!chain)
      return Error("ssl.keystore.certificate.chain: SSL private key is specified, but certificate chain is not specified.");
    if (location) return Error("ssl.keystore.location: Both SSL key store location and separate private key are specified.");
    if (password)
      return Error("ssl.keystore.password: SSL key store password cannot be specified with PEM format, only key "
                   "password may be specified.");
    auto store = pem_key_store("ssl.keystore.key", *key, "ssl.keystore.certificate.chain", *chain, key_password);
    if (!store.ok()) return store.error();
    return std::optional<KeyStore>(std::move(store).value());
  }
  if (chain) return Error("ssl.keystore.key: SSL certificate chain is specified, but private key is not specified");
  if (type == "PEM" && location) {
    if (password)
      return Error("ssl.keystore.password: SSL key store password cannot be specified with PEM format, only key "
                   "password may be specified");
    auto text = read_file("ssl.keystore.location", *location);
    if (!text.ok()) return text.error();
    auto store = pem_key_store("ssl.keystore.location", *text, "ssl.keystore.location", *text, key_password);
    if (!store.ok()) return store.error();
    return std::optional<KeyStore>(std::move(store).value());
  }
  if (!location && password)
    return Error("ssl.keystore.password: SSL key store is not specified, but key store password is specified.");
  if (location && !password)
    return Error("ssl.keystore.password: SSL key store is specified, but key store password is not specified.");
  if (!location) return std::optional<KeyStore>();
  auto p12 = read_pkcs12("ssl.keystore.location", *location, password);
  if (!p12.ok()) return p12.error();
  if (!p12->key || p12->certs.empty())
    return Error("ssl.keystore.location: " + std::string(*location) + " holds no private key with its certificate");
  return std::optional<KeyStore>(KeyStore{std::move(p12->key), std::move(p12->certs)});
}

// The trusted certificates, or nullopt for "none configured".
Result<std::optional<std::vector<Cert>>> load_trust_store(const ConfigMap& c) {
  const std::string type = upper(config_value(c, "ssl.truststore.type").value_or("JKS"));
  const auto location = config_value(c, "ssl.truststore.location");
  const auto password = config_value(c, "ssl.truststore.password");
  const auto certs = config_value(c, "ssl.truststore.certificates");
  using Out = std::optional<std::vector<Cert>>;
  if (type != "PEM" && type != "PKCS12" && type != "JKS")
    return Error("ssl.truststore.type: '" + type + "' is not PEM, PKCS12 or JKS");
  const auto pem = [](std::string_view key, std::string_view text) -> Result<Out> {
    auto blocks = pem_blocks(key, text);
    if (!blocks.ok()) return blocks.error();
    auto parsed = pem_certificates(key, *blocks);
    if (!parsed.ok()) return parsed.error();
    return Out(std::move(parsed).value());
  };
  if (certs) {
    if (type != "PEM")
      return Error("ssl.truststore.certificates: SSL trust store certs can be specified only for PEM, but trust store "
                   "type is " + type + ".");
    if (location)
      return Error("ssl.truststore.location: Both SSL trust store location and separate trust certificates are specified.");
    if (password) return Error("ssl.truststore.password: SSL trust store password cannot be specified for PEM format.");
    return pem("ssl.truststore.certificates", *certs);
  }
  if (type == "PEM" && location) {
    if (password) return Error("ssl.truststore.password: SSL trust store password cannot be specified for PEM format.");
    auto text = read_file("ssl.truststore.location", *location);
    if (!text.ok()) return text.error();
    return pem("ssl.truststore.location", *text);
  }
  if (!location && password)
    return Error("ssl.truststore.password: SSL trust store is not specified, but trust store password is specified.");
  if (!location) return Out();
  auto p12 = read_pkcs12("ssl.truststore.location", *location, password);
  if (!p12.ok()) return p12.error();
  if (p12->certs.empty()) return Error("ssl.truststore.location: " + std::string(*location) + " holds no certificate");
  return Out(std::move(p12->certs));
}

// The key store's certificate, chain and key into `ctx`; errors name the key they came from.
Status use_key_store(SSL_CTX* ctx, const KeyStore& ks, const ConfigMap& c) {
  const char* key_source = config_value(c, "ssl.keystore.key") ? "ssl.keystore.key" : "ssl.keystore.location";
  if (SSL_CTX_use_certificate(ctx, ks.chain.front().get()) != 1)
    return Error(std::string(key_source) + ": the certificate is not usable: " + openssl_reason());
  for (size_t i = 1; i < ks.chain.size(); ++i)
    if (SSL_CTX_add1_chain_cert(ctx, ks.chain[i].get()) != 1)
      return Error(std::string(key_source) + ": chain certificate " + std::to_string(i) + ": " + openssl_reason());
  if (SSL_CTX_use_PrivateKey(ctx, ks.key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1)
    return Error(std::string(key_source) + ": the private key does not match the certificate (" + openssl_reason() + ")");
  return {};
}

Status set_protocols(SSL_CTX* ctx, const ConfigMap& c) {
  const auto value = config_value(c, "ssl.enabled.protocols");
  std::vector<std::string> names = value ? config_list(*value) : std::vector<std::string>{"TLSv1.2", "TLSv1.3"};
  if (names.empty()) names = {"TLSv1.2", "TLSv1.3"};
  constexpr std::pair<std::string_view, int> kVersions[] = {
      {"TLSv1", TLS1_VERSION}, {"TLSv1.1", TLS1_1_VERSION}, {"TLSv1.2", TLS1_2_VERSION}, {"TLSv1.3", TLS1_3_VERSION}};
  constexpr uint64_t kNoFlags[] = {SSL_OP_NO_TLSv1, SSL_OP_NO_TLSv1_1, SSL_OP_NO_TLSv1_2, SSL_OP_NO_TLSv1_3};
  bool enabled[4] = {};
  for (const std::string& name : names) {
    bool known = false;
    for (size_t i = 0; i < 4; ++i)
      if (kVersions[i].first == name) enabled[i] = known = true;
    if (!known) return Error("ssl.enabled.protocols: '" + name + "' is not one of TLSv1, TLSv1.1, TLSv1.2, TLSv1.3");
  }
  int lo = 4, hi = -1;
  for (int i = 0; i < 4; ++i)
    if (enabled[i]) lo = std::min(lo, i), hi = std::max(hi, i);
  SSL_CTX_set_min_proto_version(ctx, kVersions[lo].second);
  SSL_CTX_set_max_proto_version(ctx, kVersions[hi].second);
  for (int i = lo; i <= hi; ++i)
    if (!enabled[i]) SSL_CTX_set_options(ctx, kNoFlags[i]);
  return {};
}

Status set_cipher_suites(SSL_CTX* ctx, const ConfigMap& c) {
  const auto value = config_value(c, "ssl.cipher.suites");
  if (!value) return {};
  const std::vector<std::string> suites = config_list(*value);
  if (suites.empty()) return {};
  constexpr std::string_view kTls13[] = {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                                         "TLS_CHACHA20_POLY1305_SHA256", "TLS_AES_128_CCM_SHA256",
                                         "TLS_AES_128_CCM_8_SHA256"};
  std::string tls12, tls13;
  for (const std::string& suite : suites) {
    bool is13 = false;
    for (const std::string_view s : kTls13) is13 |= s == suite;
    if (is13) {
      tls13 += (tls13.empty() ? "" : ":") + suite;
      continue;
    }
    std::string name = OPENSSL_cipher_name(suite.c_str());
    if (name == "(NONE)") name = suite;  // perhaps already an OpenSSL name
    Ctx probe(SSL_CTX_new(TLS_server_method()));
    if (SSL_CTX_set_cipher_list(probe.get(), name.c_str()) != 1 || suite.find(':') != std::string::npos) {
      ERR_clear_error();
      return Error("ssl.cipher.suites: '" + suite + "' is not a cipher suite OpenSSL has");
    }
    tls12 += (tls12.empty() ? "" : ":") + name;
  }
  if (SSL_CTX_set_ciphersuites(ctx, tls13.c_str()) != 1)
    return Error("ssl.cipher.suites: " + openssl_reason());
  if (tls13.empty()) SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
  if (tls12.empty()) {
    SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  } else if (SSL_CTX_set_cipher_list(ctx, tls12.c_str()) != 1) {
    return Error("ssl.cipher.suites: " + openssl_reason());
  }
  if (SSL_CTX_get_max_proto_version(ctx) != 0 && SSL_CTX_get_min_proto_version(ctx) > SSL_CTX_get_max_proto_version(ctx))
    return Error("ssl.cipher.suites: no suite is usable with ssl.enabled.protocols");
  return {};
}

}  // namespace

Result<SslClientAuth> parse_ssl_client_auth(std::string_view value) {
  if (value == "none") return SslClientAuth::kNone;
  if (value == "requested") return SslClientAuth::kRequested;
  if (value == "required") return SslClientAuth::kRequired;
  return Error("ssl.client.auth: '" + std::string(value) + "' is not one of required, requested, none");
}

Result<std::shared_ptr<boost::asio::ssl::context>> build_tls_server_context(const ConfigMap& c) {
  ERR_clear_error();
  Ctx ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return Error("SSL_CTX_new: " + openssl_reason());
  auto client_auth = parse_ssl_client_auth(config_value(c, "ssl.client.auth").value_or("none"));
  if (!client_auth.ok()) return client_auth.error();

  auto key_store = load_key_store(c);
  if (!key_store.ok()) return key_store.error();
  if (!*key_store)
    return Error("ssl.keystore.location: a TLS listener needs its key and certificate (ssl.keystore.location, or "
                 "ssl.keystore.certificate.chain and ssl.keystore.key)");
  if (Status s = use_key_store(ctx.get(), **key_store, c); !s.ok()) return Error(s.message());

  auto trust = load_trust_store(c);
  if (!trust.ok()) return trust.error();
  if (*trust) {
    X509_STORE* store = SSL_CTX_get_cert_store(ctx.get());
    for (const Cert& cert : **trust) {
      X509_STORE_add_cert(store, cert.get());
      SSL_CTX_add_client_CA(ctx.get(), cert.get());
    }
  } else if (SSL_CTX_set_default_verify_paths(ctx.get()) != 1) {
    ERR_clear_error();
  }
  switch (*client_auth) {
    case SslClientAuth::kNone: SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr); break;
    case SslClientAuth::kRequested: SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr); break;
    case SslClientAuth::kRequired:
      SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
  }
  if (Status s = set_protocols(ctx.get(), c); !s.ok()) return Error(s.message());
  if (Status s = set_cipher_suites(ctx.get(), c); !s.ok()) return Error(s.message());
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  static constexpr unsigned char kSessionContext[] = "rokka";
  SSL_CTX_set_session_id_context(ctx.get(), kSessionContext, sizeof(kSessionContext) - 1);
  return std::make_shared<boost::asio::ssl::context>(ctx.release());
}

Result<std::shared_ptr<boost::asio::ssl::context>> build_tls_client_context(const ConfigMap& c) {
  ERR_clear_error();
  Ctx ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return Error("SSL_CTX_new: " + openssl_reason());
  auto key_store = load_key_store(c);
  if (!key_store.ok()) return key_store.error();
  if (*key_store)  // presented when the peer asks (ssl.client.auth)
    if (Status s = use_key_store(ctx.get(), **key_store, c); !s.ok()) return Error(s.message());
  auto trust = load_trust_store(c);
  if (!trust.ok()) return trust.error();
  if (*trust) {
    X509_STORE* store = SSL_CTX_get_cert_store(ctx.get());
    for (const Cert& cert : **trust) X509_STORE_add_cert(store, cert.get());
  } else if (SSL_CTX_set_default_verify_paths(ctx.get()) != 1) {
    ERR_clear_error();
  }
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);  // the peer's certificate must chain to the trust
  if (Status s = set_protocols(ctx.get(), c); !s.ok()) return Error(s.message());
  if (Status s = set_cipher_suites(ctx.get(), c); !s.ok()) return Error(s.message());
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  return std::make_shared<boost::asio::ssl::context>(ctx.release());
}

Status expect_tls_peer(SSL* ssl, const std::string& host, const ConfigMap& c) {
  boost::system::error_code not_an_address;
  (void)boost::asio::ip::make_address(host, not_an_address);
  if (not_an_address) SSL_set_tlsext_host_name(ssl, host.c_str());  // SNI carries names only
  if (config_value(c, "ssl.endpoint.identification.algorithm").value_or("https").empty()) return {};
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  const int set = not_an_address ? X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size())
                                 : X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
  if (set != 1) return Error("cannot check the peer's certificate against host " + host);
  return {};
}

namespace {

// A certificate's subject alternative names as "<type>:<value>" (DNS, IP, URI,
// email; others as their OpenSSL text), sorted: Kafka compares them as a set.
std::vector<std::string> subject_alt_names(const X509* cert) {
  std::vector<std::string> out;
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    BIO* bio = BIO_new(BIO_s_mem());
    GENERAL_NAME_print(bio, const_cast<GENERAL_NAME*>(n));
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio, &data);
    out.emplace_back(data, static_cast<size_t>(len));
    BIO_free(bio);
  }
  GENERAL_NAMES_free(names);
  std::sort(out.begin(), out.end());
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

bool config_true(const ConfigMap& c, std::string_view key) {
  const auto v = config_value(c, key);
  return v && ascii_lower(trim_blanks(*v)) == "true";
}

}  // namespace

std::string keystore_change_error(const SSL_CTX* existing, const SSL_CTX* replacement, const ConfigMap& c) {
  const X509* old_cert = SSL_CTX_get0_certificate(existing);
  const X509* new_cert = SSL_CTX_get0_certificate(replacement);
  if (old_cert == nullptr || new_cert == nullptr) return {};
  if (!config_true(c, "ssl.allow.dn.changes") &&
      X509_NAME_cmp(X509_get_subject_name(old_cert), X509_get_subject_name(new_cert)) != 0)
    return "Keystore DistinguishedName does not match: existing={" + x509_name_rfc2253(X509_get_subject_name(old_cert)) +
           "}, new={" + x509_name_rfc2253(X509_get_subject_name(new_cert)) + "} (set ssl.allow.dn.changes=true to allow it)";
  if (!config_true(c, "ssl.allow.san.changes")) {
    const auto old_names = subject_alt_names(old_cert), new_names = subject_alt_names(new_cert);
    if (old_names != new_names)
      return "Keystore SubjectAltNames do not match: existing=" + joined(old_names) + ", new=" + joined(new_names) +
             " (set ssl.allow.san.changes=true to allow it)";
  }
  return {};
}

Result<KafkaPrincipal> tls_peer_principal(const SSL* ssl, const SslPrincipalMapper& mapper) {
  const X509* peer = SSL_get0_peer_certificate(ssl);
  if (peer == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) return KafkaPrincipal::anonymous();
  const std::string dn = x509_name_rfc2253(X509_get_subject_name(peer));
  auto name = mapper.map(dn);
  if (!name.ok())
    return Error("Failed to map name for '" + dn + "' based on SSL principal mapping rules: " + name.error().message());
  return KafkaPrincipal::user(std::move(name).value());
}

}  // namespace rokka::security
