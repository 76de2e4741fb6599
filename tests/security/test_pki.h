// Test-only certificates made at test time with OpenSSL: a CA, certificates it
// signs (any subject, any validity window), their PEM and PKCS12 forms.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace rokka::security::testing {

struct TestCert {
  std::shared_ptr<EVP_PKEY> key;
  std::shared_ptr<X509> cert;

  std::string cert_pem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, cert.get());
    return drain(bio);
  }
  // PKCS#8, encrypted with AES-256-CBC when `password` is not empty.
  std::string key_pem(const std::string& password = "") const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PKCS8PrivateKey(bio, key.get(), password.empty() ? nullptr : EVP_aes_256_cbc(),
                                  password.empty() ? nullptr : password.data(), static_cast<int>(password.size()),
                                  nullptr, nullptr);
    return drain(bio);
  }
  std::string pkcs12(const std::string& password, const std::vector<const TestCert*>& chain = {}) const {
    STACK_OF(X509)* ca = sk_X509_new_null();
    for (const TestCert* c : chain) sk_X509_push(ca, c->cert.get());
    PKCS12* p12 = PKCS12_create(password.c_str(), "kafka", key ? key.get() : nullptr, cert.get(), ca, 0, 0, 0, 0, 0);
    sk_X509_free(ca);
    unsigned char* der = nullptr;
    const int len = i2d_PKCS12(p12, &der);
    std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(len));
    OPENSSL_free(der);
    PKCS12_free(p12);
    return out;
  }

  static std::string drain(BIO* bio) {
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<size_t>(len));
    BIO_free(bio);
    return out;
  }
};

inline std::shared_ptr<EVP_PKEY> make_ec_key() {
  return {EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"), EVP_PKEY_free};
}

// `subject`: {{"CN","alice"},{"O","Example"}} in DER order; `issuer` null = self-signed;
// a CA has no subject alternative names, any other certificate `subject_alt_names`.
inline TestCert make_cert(const std::vector<std::pair<std::string, std::string>>& subject, const TestCert* issuer,
                          bool is_ca, long not_before_s = -3600, long not_after_s = 86400,
                          const char* subject_alt_names = "DNS:localhost,IP:127.0.0.1") {
  TestCert c{make_ec_key(), std::shared_ptr<X509>(X509_new(), X509_free)};
  X509* x = c.cert.get();
  X509_set_version(x, 2);
  static long serial = 1;
  ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
  X509_gmtime_adj(X509_getm_notBefore(x), not_before_s);
  X509_gmtime_adj(X509_getm_notAfter(x), not_after_s);
  X509_NAME* name = X509_get_subject_name(x);
  for (const auto& [field, value] : subject)
    X509_NAME_add_entry_by_txt(name, field.c_str(), MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1, 0);
  X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer->cert.get()) : name);
  X509_set_pubkey(x, c.key.get());
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer ? issuer->cert.get() : x, x, nullptr, nullptr, 0);
  const auto add = [&](int nid, const char* value) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  };
  add(NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "CA:FALSE");
  add(NID_key_usage, is_ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature,keyEncipherment");
  add(NID_subject_key_identifier, "hash");
  if (!is_ca) add(NID_subject_alt_name, subject_alt_names);
  X509_sign(x, issuer ? issuer->key.get() : c.key.get(), EVP_sha256());
  return c;
}

inline std::string write_file(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
  return path;
}

}  // namespace rokka::security::testing
