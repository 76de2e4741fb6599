#!/usr/bin/env bash
# Installs the Debian 12 packages that building Rokka, its tests, the fuzzers, the benchmarks
# and the compatibility suite need. Run as root or with sudo available; runs apt-get update first.
#   bash scripts/install-deps.sh
# This list is the only one: README's first command and CI (.ci/run) both run this script.
set -euo pipefail

PACKAGES=(
  # the build
  build-essential cmake ninja-build pkg-config git
  libboost1.81-dev liblz4-dev libzstd-dev libsnappy-dev zlib1g-dev libspdlog-dev
  # security/ (TLS, SASL), cluster/ (etcd, for its tests) and tools/admin
  libboost-program-options1.81-dev libssl-dev libsasl2-dev libcurl4-openssl-dev etcd-server etcd-client
  # tests/cluster/netns/: network namespaces and veth pairs (ip), for the cluster system test; nft to
  # drop one port in a namespace (run.sh --replication)
  iproute2 nftables
  # broker/metrics.cc: /metrics through prometheus-cpp; the tests scrape it with a real Prometheus (and promtool), bench/ab.sh with curl
  prometheus-cpp-dev prometheus curl
  # broker/: the regular expressions of ListTransactions v2 (RE2: linear time, no recursion)
  libre2-dev
  # the tests: googletest, and real Kafka clients (librdkafka, kcat, confluent-kafka for python3)
  libgtest-dev libgmock-dev libbenchmark-dev
  librdkafka-dev kcat python3 python3-confluent-kafka
  # and a client that is not librdkafka: kafka-python, with the modules of its compression codecs
  python3-kafka python3-lz4 python3-snappy python3-zstandard
  # compat/: building librdkafka's own test suite from Debian's source package
  dpkg-dev rapidjson-dev
  # tests/fuzz/: libFuzzer with clang 14
  clang-14 libclang-rt-14-dev
)

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps.sh: run as root (or install sudo)" >&2; exit 1; }
  as_root=(sudo)
fi
"${as_root[@]}" apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
