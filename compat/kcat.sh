#!/usr/bin/env bash
# kcat (Debian's, librdkafka 2.0.2 underneath) against a broker: produce, consume with a group,
# list metadata, query offsets -- each step checks what came back.
#
#   compat/kcat.sh HOST:PORT     against a running broker
#   compat/kcat.sh               starts build/rokka (or $ROKKA_BIN) via compat/with_broker.sh
#
# On another librdkafka (same soname, compatible ABI): LD_LIBRARY_PATH=<its build>/src, and
# ROKKA_EXPECT_LIBRDKAFKA=<version> adds a first check that kcat really loaded that version
# (rd_kafka_version_str(), as `kcat -V` prints it). compat/ci.sh runs it so on 2.14.2.
#
# Ends with `N passed, M failed` (one per check); exit status 1 if any check failed.
set -euo pipefail

readonly HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || exec "$HERE/with_broker.sh" "$0"

readonly BOOTSTRAP=$1
readonly TOPIC=kcat_check_$RANDOM$RANDOM
readonly GROUP=kcat_group_$RANDOM$RANDOM
readonly COUNT=100        # keyed text messages, all to partition 0
readonly MORE=7           # produced after the group committed, must be all it gets next time
readonly PARTITIONS=4     # the broker's num.partitions (with_broker.sh and the suite use 4)
readonly T=60             # seconds any one kcat may take
work=$(mktemp -d "${TMPDIR:-/tmp}/kcat-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

check() {  # check NAME COMMAND...: runs COMMAND, counts and reports the result
  local name=$1; shift
  if "$@" >"$work/out" 2>"$work/err"; then
    passed=$((passed + 1)); echo "PASS $name"
  else
    failed=$((failed + 1)); echo "FAIL $name"; sed 's/^/     /' "$work/out" "$work/err" | tail -15
  fi
}

kc() { timeout "$T" kcat -b "$BOOTSTRAP" -X broker.address.family=v4 "$@"; }

expect_eq() {  # expect_eq WHAT EXPECTED ACTUAL
  [ "$2" = "$3" ] || { echo "$1: expected [$2], got [$3]"; return 1; }
}

produce_text() {  # key=k<i>, value v<i>, i = 0..COUNT-1, to partition 0
  for i in $(seq 0 $((COUNT - 1))); do printf 'k%d:v%d-%s\n' "$i" "$i" "$TOPIC"; done >"$work/sent"
  kc -P -t "$TOPIC" -p 0 -K: -l "$work/sent"
}

produce_binary() {  # one 64 KiB message of random bytes (every byte value) to partition 1
  head -c 65536 /dev/urandom >"$work/blob"
  kc -P -t "$TOPIC" -p 1 "$work/blob"
}

metadata_lists_topic() {
  kc -L -J -t "$TOPIC" >"$work/md.json"
  /usr/bin/python3 - "$work/md.json" "$TOPIC" "$PARTITIONS" "$BOOTSTRAP" <<'EOF'
import json, sys
md, topic, parts, bootstrap = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), sys.argv[4]
t = [x for x in md["topics"] if x["topic"] == topic]
assert len(t) == 1, f"topic missing from metadata: {md['topics']}"
assert "error" not in t[0] or not t[0]["error"], t[0]
got = sorted(p["partition"] for p in t[0]["partitions"])
assert got == list(range(parts)), f"partitions {got}, expected 0..{parts - 1}"
ids = {b["id"] for b in md["brokers"]}
assert all(p["leader"] in ids for p in t[0]["partitions"]), "partition leader not among brokers"
print("brokers:", [b["name"] for b in md["brokers"]])
EOF
}

consume_partition0() {  # offsets dense from 0, keys and values byte-identical to what was sent
  kc -C -t "$TOPIC" -p 0 -o beginning -e -c "$COUNT" -f '%o %k:%s\n' >"$work/got"
  expect_eq "offsets" "$(seq 0 $((COUNT - 1)))" "$(cut -d' ' -f1 "$work/got")"
  cmp "$work/sent" <(cut -d' ' -f2- "$work/got")
}

consume_binary() {
  kc -C -t "$TOPIC" -p 1 -o beginning -e -c 1 -D '' -f '%s' >"$work/blob.got"
  cmp "$work/blob" "$work/blob.got"
}

group_consume() {  # group consume; prints "partition offset key" per message, sorted
  # No -o: kcat would start every assigned partition there, overriding the committed offsets.
  kc -G "$GROUP" -X auto.offset.reset=earliest -e -c "$1" -X enable.auto.commit=true \
    -X auto.commit.interval.ms=200 -f '%p %o %k\n' "$TOPIC" | sort -n -k1 -k2
}

group_gets_everything() {
  group_consume $((COUNT + 1)) >"$work/group1"
  expect_eq "messages" $((COUNT + 1)) "$(wc -l <"$work/group1")"
  expect_eq "partition 0 offsets" "$(seq 0 $((COUNT - 1)))" "$(awk '$1 == 0 {print $2}' "$work/group1")"
  expect_eq "partition 1" "1 0" "$(awk '$1 == 1 {print $1, $2}' "$work/group1")"
}

group_resumes_from_commit() {  # a new member of the same group gets only what came after the commit
  for i in $(seq "$COUNT" $((COUNT + MORE - 1))); do printf 'k%d:v%d\n' "$i" "$i"; done >"$work/more"
  kc -P -t "$TOPIC" -p 0 -K: -l "$work/more"
  group_consume "$MORE" >"$work/group2"
  expect_eq "offsets after commit" "$(seq "$COUNT" $((COUNT + MORE - 1)) | sed 's/^/0 /')" \
    "$(cut -d' ' -f1,2 "$work/group2")"
}

query_end_offset() {  # -Q with timestamp -1 asks ListOffsets for the log end
  kc -Q -t "$TOPIC:0:-1" >"$work/q"
  expect_eq "end offset of partition 0" "$TOPIC [0] offset $((COUNT + MORE))" "$(tr -s ' ' <"$work/q" | head -1)"
}

librdkafka_version() {  # what rd_kafka_version_str() returns in this process's environment
  kcat -V | sed -n 's/.*librdkafka \([^ ]*\) builtin.*/\1/p'
}

echo "kcat $(dpkg-query -W -f='${Version}' kcat 2>/dev/null) (librdkafka $(librdkafka_version)) against $BOOTSTRAP, topic $TOPIC"
if [ -n "${ROKKA_EXPECT_LIBRDKAFKA:-}" ]; then
  check "kcat runs on librdkafka $ROKKA_EXPECT_LIBRDKAFKA" expect_eq "librdkafka" "$ROKKA_EXPECT_LIBRDKAFKA" "$(librdkafka_version)"
fi
check "produce $COUNT keyed messages (acks=all)" produce_text
check "produce a 64 KiB binary message" produce_binary
check "metadata lists the topic with $PARTITIONS partitions" metadata_lists_topic
check "consume partition 0: dense offsets, identical bytes" consume_partition0
check "consume the binary message: identical bytes" consume_binary
check "group $GROUP consumes all $((COUNT + 1)) messages" group_gets_everything
check "group resumes after its committed offsets" group_resumes_from_commit
check "query end offset" query_end_offset
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
