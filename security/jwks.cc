#include "security/jwks.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include <cstdio>
#include <cstdlib>

#include "security/base64.h"
#include "security/json.h"

namespace rokka::security {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

struct AlgInfo {
  JwsAlgorithm alg;
  std::string_view name;
  const EVP_MD* (*md)();
  enum class Kind { kRsa, kPss, kEc } kind;
  std::string_view curve;  // JWK "crv" for EC
  size_t coordinate_bytes;
};

constexpr AlgInfo kAlgs[] = {
    {JwsAlgorithm::kRs256, "RS256", EVP_sha256, AlgInfo::Kind::kRsa, "", 0},
    {JwsAlgorithm::kRs384, "RS384", EVP_sha384, AlgInfo::Kind::kRsa, "", 0},
    {JwsAlgorithm::kRs512, "RS512", EVP_sha512, AlgInfo::Kind::kRsa, "", 0},
    {JwsAlgorithm::kPs256, "PS256", EVP_sha256, AlgInfo::Kind::kPss, "", 0},
    {JwsAlgorithm::kPs384, "PS384", EVP_sha384, AlgInfo::Kind::kPss, "", 0},
    {JwsAlgorithm::kPs512, "PS512", EVP_sha512, AlgInfo::Kind::kPss, "", 0},
    {JwsAlgorithm::kEs256, "ES256", EVP_sha256, AlgInfo::Kind::kEc, "P-256", 32},
    {JwsAlgorithm::kEs384, "ES384", EVP_sha384, AlgInfo::Kind::kEc, "P-384", 48},
    {JwsAlgorithm::kEs512, "ES512", EVP_sha512, AlgInfo::Kind::kEc, "P-521", 66},
};

const AlgInfo& info(JwsAlgorithm alg) {
  for (const AlgInfo& a : kAlgs)
    if (a.alg == alg) return a;
  std::abort();
}

const unsigned char* u8(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

std::optional<std::string> string_member(const JsonValue& key, std::string_view name) {
  const JsonValue* v = key.member(name);
  if (v == nullptr || v->type != JsonValue::Type::kString) return std::nullopt;
  return v->string;
}

Result<Pkey> from_params(const char* type, OSSL_PARAM_BLD* bld) {
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
  EVP_PKEY* raw = nullptr;
  const bool built = params != nullptr && ctx != nullptr && EVP_PKEY_fromdata_init(ctx) == 1 &&
                     EVP_PKEY_fromdata(ctx, &raw, EVP_PKEY_PUBLIC_KEY, params) == 1;
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  Pkey key(raw);
  if (!built) return Error(std::string("invalid ") + type + " key");
  EVP_PKEY_CTX* check = EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr);
  const bool valid = check != nullptr && EVP_PKEY_public_check(check) == 1;
  EVP_PKEY_CTX_free(check);
  if (!valid) return Error(std::string("invalid ") + type + " public key");
  return key;
}

Result<Pkey> rsa_key(const JsonValue& jwk) {
  const auto n = string_member(jwk, "n"), e = string_member(jwk, "e");
  const auto n_bytes = n ? base64url_decode(*n, 2048) : std::nullopt;  // up to 16384 bits
  const auto e_bytes = e ? base64url_decode(*e, 16) : std::nullopt;
  if (!n_bytes || !e_bytes || n_bytes->empty() || e_bytes->empty()) return Error("RSA key without valid n and e");
  BIGNUM* bn_n = BN_bin2bn(u8(*n_bytes), static_cast<int>(n_bytes->size()), nullptr);
  BIGNUM* bn_e = BN_bin2bn(u8(*e_bytes), static_cast<int>(e_bytes->size()), nullptr);
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n);
  OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e);
  auto key = from_params("RSA", bld);
  OSSL_PARAM_BLD_free(bld);
  BN_free(bn_n);
  BN_free(bn_e);
  return key;
}

Result<Pkey> ec_key(const JsonValue& jwk, std::string_view crv) {
  size_t size = 0;
  const char* group = nullptr;
  for (const AlgInfo& a : kAlgs)
    if (a.curve == crv && !crv.empty()) size = a.coordinate_bytes;
  if (crv == "P-256") group = "prime256v1";
  if (crv == "P-384") group = "secp384r1";
  if (crv == "P-521") group = "secp521r1";
  if (group == nullptr) return Error("EC key on unsupported curve '" + std::string(crv) + "'");
  const auto x = string_member(jwk, "x"), y = string_member(jwk, "y");
  const auto xb = x ? base64url_decode(*x, size) : std::nullopt;
  const auto yb = y ? base64url_decode(*y, size) : std::nullopt;
  if (!xb || !yb || xb->size() != size || yb->size() != size) return Error("EC key without valid x and y");
  const std::string point = "\x04" + *xb + *yb;
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group, 0);
  OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size());
  auto key = from_params("EC", bld);
  OSSL_PARAM_BLD_free(bld);
  return key;
}

// JWS ES* signatures are R || S of fixed size; OpenSSL verifies DER.
std::optional<std::string> ecdsa_der(std::string_view raw, size_t coordinate_bytes) {
  if (raw.size() != 2 * coordinate_bytes) return std::nullopt;
  ECDSA_SIG* sig = ECDSA_SIG_new();
  BIGNUM* r = BN_bin2bn(u8(raw), static_cast<int>(coordinate_bytes), nullptr);
  BIGNUM* s = BN_bin2bn(u8(raw.substr(coordinate_bytes)), static_cast<int>(coordinate_bytes), nullptr);
  ECDSA_SIG_set0(sig, r, s);
  unsigned char* der = nullptr;
  const int len = i2d_ECDSA_SIG(sig, &der);
  ECDSA_SIG_free(sig);
  if (len <= 0) return std::nullopt;
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return out;
}

bool verify_with(EVP_PKEY* key, const AlgInfo& a, std::string_view input, std::string_view signature) {
  std::string der;
  if (a.kind == AlgInfo::Kind::kEc) {
    auto converted = ecdsa_der(signature, a.coordinate_bytes);
    if (!converted) return false;
    der = std::move(*converted);
    signature = der;
  }
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = nullptr;
  bool ok = EVP_DigestVerifyInit(ctx, &pctx, a.md(), nullptr, key) == 1;
  if (ok && a.kind == AlgInfo::Kind::kPss)
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1 &&
         EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, a.md()) == 1;
  ok = ok && EVP_DigestVerify(ctx, u8(signature), signature.size(), u8(input), input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

}  // namespace

struct JsonWebKeySet::Key {
  std::optional<std::string> kid;
  std::optional<std::string> alg;
  std::string kty;  // "RSA" or "EC"
  std::string crv;
  int bits = 0;
  Pkey pkey;
};

JsonWebKeySet::JsonWebKeySet() = default;
JsonWebKeySet::~JsonWebKeySet() = default;
JsonWebKeySet::JsonWebKeySet(JsonWebKeySet&&) noexcept = default;
JsonWebKeySet& JsonWebKeySet::operator=(JsonWebKeySet&&) noexcept = default;
size_t JsonWebKeySet::size() const { return keys_.size(); }

std::optional<JwsAlgorithm> jws_algorithm_from_name(std::string_view name) {
  for (const AlgInfo& a : kAlgs)
    if (a.name == name) return a.alg;
  return std::nullopt;
}

std::string_view jws_algorithm_name(JwsAlgorithm alg) { return info(alg).name; }

Result<JsonWebKeySet> JsonWebKeySet::parse(std::string_view json) {
  if (json.size() > kMaxJwksBytes) return Error("JWKS larger than " + std::to_string(kMaxJwksBytes) + " bytes");
  auto doc = parse_json_object(json);
  if (!doc.ok()) return Error("JWKS: " + doc.error().message());
  const JsonValue* keys = doc->member("keys");
  if (keys == nullptr || keys->type != JsonValue::Type::kArray) return Error("JWKS: no \"keys\" array");
  if (keys->items.size() > kMaxJwksKeys) return Error("JWKS: more than " + std::to_string(kMaxJwksKeys) + " keys");
  JsonWebKeySet set;
  for (size_t i = 0; i < keys->items.size(); ++i) {
    const JsonValue& jwk = keys->items[i];
    if (jwk.type != JsonValue::Type::kObject) return Error("JWKS: key " + std::to_string(i) + " is not an object");
    const auto kty = string_member(jwk, "kty");
    const auto use = string_member(jwk, "use");
    if (!kty) return Error("JWKS: key " + std::to_string(i) + " has no \"kty\"");
    if ((*kty != "RSA" && *kty != "EC") || (use && *use != "sig")) continue;
    Key key;
    key.kty = *kty;
    key.kid = string_member(jwk, "kid");
    key.alg = string_member(jwk, "alg");
    if (*kty == "EC") key.crv = string_member(jwk, "crv").value_or("");
    auto pkey = *kty == "RSA" ? rsa_key(jwk) : ec_key(jwk, key.crv);
    if (!pkey.ok()) return Error("JWKS: key " + std::to_string(i) + ": " + pkey.error().message());
    key.pkey = std::move(pkey).value();
    key.bits = EVP_PKEY_get_bits(key.pkey.get());
    set.keys_.push_back(std::move(key));
  }
  return set;
}

Result<JsonWebKeySet> JsonWebKeySet::load_file_url(std::string_view url) {
  if (!url.starts_with("file:")) return Error("only file: URLs are supported, not '" + std::string(url) + "'");
  std::string_view path = url.substr(5);
  if (path.starts_with("//")) {
    path.remove_prefix(2);
    const size_t slash = path.find('/');
    const std::string_view host = path.substr(0, slash);
    if (slash == std::string_view::npos || (!host.empty() && host != "localhost"))
      return Error("a file: URL names a local path, not host '" + std::string(host) + "'");
    path.remove_prefix(slash);
  }
  if (!path.starts_with("/")) return Error("the file: URL '" + std::string(url) + "' has no absolute path");
  std::FILE* f = std::fopen(std::string(path).c_str(), "rb");
  if (f == nullptr) return Error("cannot open " + std::string(path));
  std::string text(kMaxJwksBytes + 1, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Error("cannot read " + std::string(path));
  auto set = parse(text);
  if (!set.ok()) return Error(std::string(path) + ": " + set.error().message());
  return set;
}

bool JsonWebKeySet::verify(JwsAlgorithm alg, const std::optional<std::string>& kid, std::string_view signing_input,
                           std::string_view signature, std::string& why) const {
  const AlgInfo& a = info(alg);
  size_t candidates = 0;
  for (const Key& key : keys_) {
    if (kid && key.kid != kid) continue;
    if (key.alg && *key.alg != a.name) continue;
    if ((a.kind == AlgInfo::Kind::kEc) != (key.kty == "EC")) continue;
    if (a.kind == AlgInfo::Kind::kEc && key.crv != a.curve) continue;
    if (a.kind != AlgInfo::Kind::kEc && key.bits < 2048) continue;
    ++candidates;
    if (verify_with(key.pkey.get(), a, signing_input, signature)) return true;
  }
  why = candidates == 0 ? "no key in the JWKS fits alg " + std::string(a.name) + (kid ? " and kid '" + *kid + "'" : "")
                        : "the signature does not verify with " + std::to_string(candidates) + " fitting key(s)";
  return false;
}

}  // namespace rokka::security
