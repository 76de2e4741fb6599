#!/usr/bin/env bash
# CI's compatibility step (called by .ci/run after the unit tests), for each librdkafka version
# (2.0.2, Debian's; then 2.14.2, built from Debian sid's source):
#   1. its own tests listed in compat/librdkafka/VERSION/expected-pass.txt (all must pass), then those
#      of VERSION/expected-pass-cluster.txt (they need replicas) on a replicated 3-broker cluster
#      (run.sh --brokers 3, on an etcd it starts: scripts/install-deps.sh installs etcd-server)
#   2. compat/kcat.sh and compat/confluent_kafka_check.py against a fresh build/rokka: Debian's
#      kcat and python3-confluent-kafka, on 2.14.2 with LD_LIBRARY_PATH=its build's src/ (each
#      scenario checks first that the library it loaded is 2.14.2)
#   3. on 2.14.2 only, compat/kip848_check.py: KIP-848's consumer group protocol (group.protocol=consumer),
#      then the suite's tests in compat/librdkafka/2.14.2/expected-pass-consumer.txt in that protocol
#   4. once, compat/kafka_python_check.py: Debian's python3-kafka (kafka-python, pure Python)
# While build/rokka is still the placeholder that prints "broker not built yet", every step that
# needs a broker is SKIPPED with a loud message (never counted as passed); the rest still runs.
# Ends with `compat: N passed, M failed` summed over the steps; exit 1 if anything failed.
set -uo pipefail

readonly HERE=$(cd "$(dirname "$0")" && pwd)
readonly ROKKA=${ROKKA_BIN:-$HERE/../build/rokka}
passed=0
failed=0

banner() { printf '\n==== %s\n' "$*"; }

rokka_is_placeholder() {  # the placeholder main exits at once, printing "broker not built yet"
  local dir out
  dir=$(mktemp -d)
  out=$(timeout 3 "$ROKKA" --override listeners=PLAINTEXT://127.0.0.1:1 --override "log.dirs=$dir" 2>&1 </dev/null)
  rm -rf "$dir"
  grep -q "broker not built yet" <<<"$out"
}

add_counts() {  # add_counts LOG: adds the "N passed, M failed" closing line of a step's output
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
  if [ -z "$line" ]; then
    echo "compat: no result line in $1"; failed=$((failed + 1)); return
  fi
  passed=$((passed + $(cut -d' ' -f1 <<<"$line")))
  failed=$((failed + $(cut -d' ' -f3 <<<"$line" | tr -d ,)))
}

step() {  # step NAME COMMAND...: runs a step, shows its output, adds its counts
  local log rc
  log=$(mktemp)
  banner "$1"
  shift
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  add_counts "$log"
  [ "$rc" -eq 0 ] || grep -qE '^[0-9]+ passed, [1-9]' "$log" || { echo "compat: step exited $rc"; failed=$((failed + 1)); }
  rm -f "$log"
}

start=$SECONDS
local_only=()
if rokka_is_placeholder; then
  banner "SKIPPED: build/rokka is the placeholder ('broker not built yet')"
  echo "!!! Broker-dependent compat checks are NOT run: librdkafka tests needing a broker, kcat, python."
  echo "!!! They start running here as soon as build/rokka is a real broker."
  local_only=(--local-only)
fi
for version in 2.0.2 2.14.2; do
  version_start=$SECONDS
  step "librdkafka $version suite: $version/expected-pass.txt" "$HERE/librdkafka/run.sh" --version "$version" \
    --tests "$HERE/librdkafka/$version/expected-pass.txt" --timeout 300 "${local_only[@]}"
  if [ ${#local_only[@]} -eq 0 ]; then
    step "librdkafka $version suite on 3 brokers: $version/expected-pass-cluster.txt" "$HERE/librdkafka/run.sh" \
      --version "$version" --brokers 3 --security plaintext --tests "$HERE/librdkafka/$version/expected-pass-cluster.txt" \
      --timeout 300
    library=()  # 2.0.2 is the system's librdkafka1, the one kcat and python3-confluent-kafka are built on
    if [ "$version" != 2.0.2 ]; then
      library=(env "LD_LIBRARY_PATH=$("$HERE/librdkafka/build.sh" "$version")/src" "ROKKA_EXPECT_LIBRDKAFKA=$version")
    fi
    step "kcat scenario on librdkafka $version" "${library[@]}" "$HERE/kcat.sh"
    step "python3-confluent-kafka scenario on librdkafka $version" "${library[@]}" /usr/bin/python3 \
      "$HERE/confluent_kafka_check.py"
    if [ "$version" = 2.14.2 ]; then  # 2.0.2 has no group.protocol=consumer
      # suite.conf's Kafka 4.0.0 skips 0092 (message format v1, which Kafka 4 removed); Rokka still serves v1.
      step "librdkafka $version suite at TEST_KAFKA_VERSION 3.9.0: message format v1" \
        "$HERE/librdkafka/run.sh" --version "$version" --kafka-version 3.9.0 --security plaintext \
        --tests 0092_mixed_msgver --timeout 300
      step "KIP-848 consumer group scenario on librdkafka $version" "${library[@]}" /usr/bin/python3 \
        "$HERE/kip848_check.py"
      step "librdkafka $version suite, consumer group protocol: $version/expected-pass-consumer.txt" \
        "$HERE/librdkafka/run.sh" --version "$version" --group-protocol consumer --security plaintext \
        --tests "$HERE/librdkafka/$version/expected-pass-consumer.txt" --timeout 300
    fi
  fi
  banner "librdkafka $version done in $((SECONDS - version_start))s"
done
if [ ${#local_only[@]} -eq 0 ]; then  # a pure-Python client: no librdkafka underneath, so once
  step "kafka-python scenario" /usr/bin/python3 "$HERE/kafka_python_check.py"
fi
banner "compat done in $((SECONDS - start))s"
echo "compat: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
