"""Security scenarios for run.py: the listener a test needs (SSL, SASL_PLAINTEXT, SASL_SSL),
its key material made with `openssl` at run time, and what the suite expects to find in
test.conf and in its environment, as librdkafka's own CI gets them from trivup.

A scenario is named in VERSION/security.txt (`NAME  SCENARIO[,SCENARIO...]  reason`); a test
listed there runs once per scenario it names, against a broker started for that scenario; every
other test keeps the plain PLAINTEXT broker. The broker always has a PLAINTEXT listener as well:
the harness creates SCRAM users over it, and kafka_path/bin/kafka-topics.sh (BROKERS) uses it,
as Kafka's tools would use an admin listener. Python 3 stdlib only (plus the openssl program).

What a test reads (from tests/0097-ssl_verify.cpp, 0135-sasl_credentials.cpp, 0142, test.c):
  test.conf    security.protocol, ssl.ca.location, ssl.certificate.location, ssl.key.location,
               ssl.key.password; sasl.mechanisms, sasl.username, sasl.password
  environment  SSL_pkcs (PKCS#12: client key, certificate and the CA, password SSL_password),
               SSL_pub_pem / SSL_pub_der (client certificate), SSL_priv_pem / SSL_priv_der
               (client key), SSL_ca_pem / SSL_ca_der, SSL_all_cas_pem (several CAs, ours among
               them), SSL_password, SSL_client_auth (the broker's ssl.client.auth)
"""
import dataclasses
import hashlib
import os
import socket
import struct
import subprocess
from pathlib import Path

KEY_PASSWORD = "rokka-compat-client-key"   # ssl.key.password and the PKCS#12 password
SASL_USER, SASL_PASSWORD = "testuser", "testpass"
SCRAM_ITERATIONS = 8192
BROKER_KEY_BITS = 2048
PLAIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required user_{u}=\"{p}\";"
# OAUTHBEARER as trivup configures Kafka: unsecured (alg none) tokens for principal admin, which must
# carry the scope requiredScope; the client makes its own (enable.sasl.oauthbearer.unsecure.jwt).
OAUTHBEARER_JAAS = ("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                    "unsecuredLoginStringClaim_sub=\"admin\" unsecuredValidatorRequiredScope=\"requiredScope\";")
OAUTHBEARER_UNSECURED_VALIDATOR = \
    "org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredValidatorCallbackHandler"


@dataclasses.dataclass(frozen=True)
class Scenario:
    name: str
    protocol: str                 # the test's listener: SSL, SASL_PLAINTEXT, SASL_SSL
    mechanism: str = ""           # sasl.mechanisms for the client
    client_auth: str = "required"  # the broker's ssl.client.auth (bare key, as trivup sets it)
    reauth_ms: int = 0            # connections.max.reauth.ms (KIP-368), 0 = unset

    @property
    def tls(self):
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def sasl(self):
        return self.protocol.startswith("SASL_")


SCENARIOS = {s.name: s for s in [
    Scenario("ssl", "SSL"),
    Scenario("ssl_requested", "SSL", client_auth="requested"),
    Scenario("sasl_plain", "SASL_PLAINTEXT", "PLAIN"),
    Scenario("sasl_scram", "SASL_PLAINTEXT", "SCRAM-SHA-512"),
    Scenario("sasl_ssl_plain", "SASL_SSL", "PLAIN"),
    Scenario("sasl_ssl_scram", "SASL_SSL", "SCRAM-SHA-256"),
    Scenario("sasl_plain_reauth", "SASL_PLAINTEXT", "PLAIN", reauth_ms=10000),
    Scenario("sasl_oauthbearer", "SASL_PLAINTEXT", "OAUTHBEARER"),
    Scenario("sasl_oauthbearer_reauth", "SASL_PLAINTEXT", "OAUTHBEARER", reauth_ms=10000),
]}


def read_security_list(path):
    """VERSION/security.txt: {test name: [scenario, ...]}; '#' starts a comment."""
    out = {}
    if not Path(path).is_file():
        return out
    for line in Path(path).read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) < 2:
            continue
        names = words[1].split(",")
        for n in names:
            if n not in SCENARIOS:
                raise SystemExit(f"run.py: {path}: unknown security scenario {n!r} (known: {', '.join(SCENARIOS)})")
        out[words[0]] = names
    return out


# ---------------------------------------------------------------- key material

def _openssl(*args, cwd):
    r = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"run.py: openssl {' '.join(args)} failed: {r.stderr.strip()}")


def make_key_material(dirpath):
    """A CA, the broker's key and certificate (SAN 127.0.0.1, localhost) signed by it, and the
    client's in every form the suite reads. Made once per work dir; returns {what: path}."""
    d = Path(dirpath)
    files = {k: d / v for k, v in {
        "ca": "ca.pem", "ca_der": "ca.der", "all_cas": "all-cas.pem",
        "broker_keystore": "broker-keystore.pem",
        "client_cert": "client.pem", "client_key": "client.key", "client_cert_der": "client.der",
        "client_key_der": "client-key.der", "client_p12": "client.p12"}.items()}
    if all(p.exists() for p in files.values()):
        return files
    d.mkdir(parents=True, exist_ok=True)
    o = lambda *a: _openssl(*a, cwd=d)  # noqa: E731
    days = "30"
    for ca in ("ca", "other-ca"):  # other-ca: a second root, only so that all-cas.pem holds several
        o("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{ca}.key", "-out", f"{ca}.pem",
          "-days", days, "-subj", f"/O=rokka-compat/CN={ca}",
          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    (d / "broker.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                                  "extendedKeyUsage=serverAuth\n")
    (d / "client.ext").write_text("extendedKeyUsage=clientAuth\n")
    o("req", "-newkey", f"rsa:{BROKER_KEY_BITS}", "-nodes", "-keyout", "broker.key", "-out", "broker.csr",
      "-subj", "/O=rokka-compat/CN=localhost")
    o("x509", "-req", "-in", "broker.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
      "-days", days, "-extfile", "broker.ext", "-out", "broker.pem")
    # The client key encrypted (PKCS#8, ssl.key.password), as trivup makes it.
    o("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-aes-256-cbc",
      "-pass", f"pass:{KEY_PASSWORD}", "-out", "client.key")
    o("req", "-new", "-key", "client.key", "-passin", f"pass:{KEY_PASSWORD}", "-out", "client.csr",
      "-subj", "/O=rokka-compat/CN=client")
    o("x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
      "-days", days, "-extfile", "client.ext", "-out", "client.pem")
    o("x509", "-in", "client.pem", "-outform", "DER", "-out", "client.der")
    o("x509", "-in", "ca.pem", "-outform", "DER", "-out", "ca.der")
    o("pkey", "-in", "client.key", "-passin", f"pass:{KEY_PASSWORD}", "-outform", "DER", "-out", "client-key.der")
    o("pkcs12", "-export", "-in", "client.pem", "-inkey", "client.key", "-passin", f"pass:{KEY_PASSWORD}",
      "-certfile", "ca.pem", "-name", "client", "-passout", f"pass:{KEY_PASSWORD}", "-out", "client.p12")
    (d / "all-cas.pem").write_text((d / "other-ca.pem").read_text() + (d / "ca.pem").read_text())
    (d / "broker-keystore.pem").write_text((d / "broker.key").read_text() + (d / "broker.pem").read_text()
                                           + (d / "ca.pem").read_text())
    return files


# ---------------------------------------------------------------- broker, test.conf, environment

def listener_name(scenario):
    return scenario.protocol  # Kafka's default map: the name is the protocol


def broker_overrides(scenario, files):
    """Rokka (Kafka) keys for the scenario's listener, beside the PLAINTEXT one."""
    pre = f"listener.name.{listener_name(scenario).lower()}."
    out = {}
    if scenario.tls:
        out.update({"ssl.keystore.type": "PEM", "ssl.keystore.location": str(files["broker_keystore"]),
                    "ssl.truststore.type": "PEM", "ssl.truststore.location": str(files["ca"]),
                    # bare, as trivup sets it: Kafka applies it to SSL listeners, and to SASL_SSL
                    # ones only when listener-prefixed (KIP-684)
                    "ssl.client.auth": scenario.client_auth,
                    # trivup's value: the suite's Kafka speaks TLS 1.2 (0097's expectations depend
                    # on it: with TLS 1.3 a refused client certificate is seen after the handshake)
                    "ssl.enabled.protocols": "TLSv1.2,TLSv1.1,TLSv1"})
    if scenario.sasl:
        out[pre + "sasl.enabled.mechanisms"] = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER"
        out[pre + "plain.sasl.jaas.config"] = PLAIN_JAAS.format(u=SASL_USER, p=SASL_PASSWORD)
        out[pre + "oauthbearer.sasl.jaas.config"] = OAUTHBEARER_JAAS
        out[pre + "oauthbearer.sasl.server.callback.handler.class"] = OAUTHBEARER_UNSECURED_VALIDATOR
        out["super.users"] = "User:admin"  # as trivup (the OAUTHBEARER principal)
        if scenario.reauth_ms:
            out["connections.max.reauth.ms"] = str(scenario.reauth_ms)
    return out


def test_conf_lines(scenario, files):
    lines = [f"security.protocol={scenario.protocol}"]
    if scenario.tls:
        lines += [f"ssl.ca.location={files['ca']}", f"ssl.certificate.location={files['client_cert']}",
                  f"ssl.key.location={files['client_key']}", f"ssl.key.password={KEY_PASSWORD}"]
    if scenario.mechanism == "OAUTHBEARER":
        lines += ["sasl.mechanisms=OAUTHBEARER", "enable.sasl.oauthbearer.unsecure.jwt=true",
                  "sasl.oauthbearer.config=principal=admin scope=requiredScope"]
    elif scenario.sasl:
        lines += [f"sasl.mechanisms={scenario.mechanism}", f"sasl.username={SASL_USER}",
                  f"sasl.password={SASL_PASSWORD}"]
    return lines


def test_env(scenario, files):
    if not scenario.tls:
        return {}
    return {"SSL_pkcs": str(files["client_p12"]), "SSL_password": KEY_PASSWORD,
            "SSL_pub_pem": str(files["client_cert"]), "SSL_pub_der": str(files["client_cert_der"]),
            "SSL_priv_pem": str(files["client_key"]), "SSL_priv_der": str(files["client_key_der"]),
            "SSL_ca_pem": str(files["ca"]), "SSL_ca_der": str(files["ca_der"]),
            "SSL_all_cas_pem": str(files["all_cas"]), "SSL_client_auth": scenario.client_auth}


# ---------------------------------------------------------------- SCRAM users

def _compact_str(s):
    b = s.encode()
    return _uvarint(len(b) + 1) + b


def _uvarint(n):
    out = b""
    while True:
        byte, n = n & 0x7F, n >> 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def create_scram_users(host, port, user=SASL_USER, password=SASL_PASSWORD):
    """The user for both SCRAM mechanisms, over the PLAINTEXT listener: one AlterUserScramCredentials
    v0 request per mechanism (Kafka's controller refuses a user named twice in one request)."""
    for mech_type, digest in ((1, "sha256"), (2, "sha512")):
        salt = os.urandom(16)
        salted = hashlib.pbkdf2_hmac(digest, password.encode(), salt, SCRAM_ITERATIONS)
        upsert = (_compact_str(user) + struct.pack(">bi", mech_type, SCRAM_ITERATIONS)
                  + _uvarint(len(salt) + 1) + salt + _uvarint(len(salted) + 1) + salted + b"\0")
        _alter_user_scram_credentials(host, port, upsert)


def _alter_user_scram_credentials(host, port, upsert):
    client_id = b"rokka-compat"
    header = struct.pack(">hhih", 51, 0, 1, len(client_id)) + client_id + b"\0"  # request header v2
    body = _uvarint(1) + _uvarint(2) + upsert + b"\0"  # no deletions, one upsertion, no tags
    frame = header + body
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", _recv_exact(s, 4))[0]
        resp = _recv_exact(s, size)
    # correlation id, header tags (empty), throttle_time_ms, results compact array
    pos = 4 + 1 + 4
    count, pos = _read_uvarint(resp, pos)
    for _ in range(count - 1):
        n, pos = _read_uvarint(resp, pos)
        name = resp[pos:pos + n - 1].decode()
        pos += n - 1
        err = struct.unpack(">h", resp[pos:pos + 2])[0]
        pos += 2
        n, pos = _read_uvarint(resp, pos)
        msg = resp[pos:pos + n - 1].decode() if n else None
        pos += max(n - 1, 0)
        _, pos = _read_uvarint(resp, pos)  # tags
        if err:
            raise RuntimeError(f"AlterUserScramCredentials for {name}: error {err}: {msg}")


def _recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise RuntimeError("broker closed the connection")
        buf += chunk
    return buf


def _read_uvarint(b, pos):
    shift = value = 0
    while True:
        byte = b[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos
