// Test-only (and fuzz_jwt): signing keys made at test time (EVP_PKEY_keygen), their public
// JWKS entries, and compact JWS tokens signed with them. No key is checked in.
#pragma once

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <memory>
#include <string>

#include "security/base64.h"

namespace rokka::security::testing {

class TestSigningKey {
 public:
  // "RSA" (of `rsa_bits`) or an EC curve: "P-256", "P-384", "P-521".
  explicit TestSigningKey(const std::string& kind, std::string kid, size_t rsa_bits = 2048) : kid_(std::move(kid)) {
    if (kind == "RSA") {
      key_.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", rsa_bits));
    } else {
      curve_ = kind;
      coordinate_ = kind == "P-256" ? 32 : kind == "P-384" ? 48 : 66;
      key_.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", kind.c_str()));
    }
  }

  const std::string& kid() const { return kid_; }

  // The public JWK, with `extra` JSON members (e.g. ",\"use\":\"enc\"") appended.
  std::string jwk(const std::string& extra = "") const {
    std::string out = "{\"kid\":\"" + kid_ + "\"";
    if (curve_.empty()) {
      out += ",\"kty\":\"RSA\",\"n\":\"" + bn_param(OSSL_PKEY_PARAM_RSA_N) + "\",\"e\":\"" +
             bn_param(OSSL_PKEY_PARAM_RSA_E) + "\"";
    } else {
      unsigned char point[200];
      size_t len = 0;
      EVP_PKEY_get_octet_string_param(key_.get(), OSSL_PKEY_PARAM_PUB_KEY, point, sizeof(point), &len);
      const std::string p(reinterpret_cast<char*>(point) + 1, len - 1);  // after the 0x04 prefix
      out += ",\"kty\":\"EC\",\"crv\":\"" + curve_ + "\",\"x\":\"" + base64url_encode(p.substr(0, coordinate_)) +
             "\",\"y\":\"" + base64url_encode(p.substr(coordinate_)) + "\"";
    }
    return out + extra + "}";
  }

  // header.payload.signature, signed with `alg` ("RS256", "PS384", "ES256", ...).
  std::string sign(const std::string& alg, const std::string& claims_json, const std::string& header_extra = "",
                   bool with_kid = true) const {
    const std::string header = "{\"alg\":\"" + alg + "\"" + (with_kid ? ",\"kid\":\"" + kid_ + "\"" : "") +
                               header_extra + ",\"typ\":\"JWT\"}";
    const std::string input = base64url_encode(header) + "." + base64url_encode(claims_json);
    return input + "." + base64url_encode(signature(alg, input));
  }

  std::string signature(const std::string& alg, const std::string& input) const {
    const EVP_MD* md = alg.ends_with("256") ? EVP_sha256() : alg.ends_with("384") ? EVP_sha384() : EVP_sha512();
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX* pctx = nullptr;
    EVP_DigestSignInit(ctx, &pctx, md, nullptr, key_.get());
    if (alg.starts_with("PS")) {
      EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
      EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
    }
    size_t len = 0;
    EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size());
    std::string sig(len, '\0');
    EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                   reinterpret_cast<const unsigned char*>(input.data()), input.size());
    sig.resize(len);
    EVP_MD_CTX_free(ctx);
    if (!alg.starts_with("ES")) return sig;
    // DER ECDSA-Sig-Value -> R || S, each left-padded to the coordinate size.
    const unsigned char* p = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
    std::string raw(2 * coordinate_, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(coordinate_));
    BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(raw.data()) + coordinate_,
                 static_cast<int>(coordinate_));
    ECDSA_SIG_free(es);
    return raw;
  }

 private:
  std::string bn_param(const char* name) const {
    BIGNUM* bn = nullptr;
    EVP_PKEY_get_bn_param(key_.get(), name, &bn);
    std::string bytes(static_cast<size_t>(BN_num_bytes(bn)), '\0');
    BN_bn2bin(bn, reinterpret_cast<unsigned char*>(bytes.data()));
    BN_free(bn);
    return base64url_encode(bytes);
  }
  struct Free {
    void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
  };
  std::unique_ptr<EVP_PKEY, Free> key_;
  std::string kid_, curve_;
  size_t coordinate_ = 0;
};

inline std::string jwks_of(std::initializer_list<std::string> jwks) {
  std::string out = "{\"keys\":[";
  bool first = true;
  for (const std::string& k : jwks) {
    out += (first ? "" : ",") + k;
    first = false;
  }
  return out + "]}";
}

}  // namespace rokka::security::testing
