#!/bin/bash
# A data directory written by an older Rokka opens in a newer one with every record (the index format
# change of 2026-12-06: bench/results/2026-12-06-million-index.md).
#
#   bench/wiregen/upgrade.sh OLD_BINARY NEW_BINARY    environment: TOPICS (1000) PARTITIONS (100)
#
# 1. OLD: create TOPICS x PARTITIONS, one batch of 16 x 1 KiB records in every partition, then one of a
#    single 100-byte record, and kill -9 right after the last ack (the data directory holds OLD's last
#    checkpoint and log it has not indexed in one yet).
# 2. NEW: start (recovery), consume every partition, counts checked (--expect-counts); one more batch
#    everywhere, kill -9; start, counts checked; SIGTERM; start, counts checked.
# One JSON line per step on stdout (wiregen's, with step, ready_s where a start was timed, load before
# and after). Exit status 1 when any step's counts are not as expected.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
W=${W:-$ROOT/build/bench/wiregen}
OLD=$1 NEW=$2
TOPICS=${TOPICS:-1000} PARTITIONS=${PARTITIONS:-100}
WORK=$(mktemp -d /tmp/upgrade.XXXXXX)
DATA=$WORK/data
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port) HPORT=$(free_port)
BOOT=127.0.0.1:$PORT
PID=
FAILED=0
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
log() { echo "# $(date -u +%H:%M:%S) $*" >&2; }
# shellcheck source=bench/wiregen/rokka_process.sh
source "$ROOT/bench/wiregen/rokka_process.sh"
step() {  # name extra_json wiregen-args...: one JSON line; a consume step with counts not as expected fails the run
  local name=$1 extra=$2 before line
  shift 2
  before=$(load)
  log "$name: wiregen $*"
  line=$("$W" --bootstrap "$BOOT" --topic m --topics "$TOPICS" "$@" || true)
  [ -n "$line" ] || line='{"errors":1,"first_error":"wiregen printed nothing"}'
  python3 -c 'import json, sys
d = {"step": sys.argv[1], "load_before": sys.argv[2], "load_after": sys.argv[3]}
for extra in sys.argv[4:]:
    if extra: d.update(json.loads(extra))
print(json.dumps(d), flush=True)
bad = d.get("errors", 0) or d.get("partitions_not_as_expected", 0) or d.get("partitions_below_high_watermark", 0)
sys.exit(1 if bad else 0)' "$name" "$before" "$(load)" "$extra" "$line" || FAILED=1
}
sum_counts() { awk '{n[$1" "$2] += $3} END {for (k in n) print k, n[k]}' "$@"; }

log "work dir $WORK; load $(load)"
start "$OLD" "$DATA"
step old-create "{\"ready_s\": $READY}" --mode create-topics --partitions "$PARTITIONS" --timeout-s 300
step old-fill "" --mode produce --records-per-batch 16 --size 1024 --each-partition 1 --counts-out "$WORK/c1.txt" --timeout-s 120
step old-fill-2 "" --mode produce --records-per-batch 1 --size 100 --each-partition 1 --counts-out "$WORK/c2.txt" --timeout-s 120
kill9
sum_counts "$WORK/c1.txt" "$WORK/c2.txt" >"$WORK/c12.txt"
start "$NEW" "$DATA"
step new-verify-after-old-kill9 "{\"ready_s\": $READY}" --mode consume --connections-per-broker 4 \
  --expect-counts "$WORK/c12.txt" --duration-s 1200 --timeout-s 120
step new-fill-3 "" --mode produce --records-per-batch 1 --size 100 --each-partition 1 --counts-out "$WORK/c3.txt" --timeout-s 120
kill9
sum_counts "$WORK/c1.txt" "$WORK/c2.txt" "$WORK/c3.txt" >"$WORK/c123.txt"
start "$NEW" "$DATA"
step new-verify-after-kill9 "{\"ready_s\": $READY}" --mode consume --connections-per-broker 4 \
  --expect-counts "$WORK/c123.txt" --duration-s 1200 --timeout-s 120
stop
start "$NEW" "$DATA"
step new-verify-after-clean "{\"ready_s\": $READY}" --mode consume --connections-per-broker 4 \
  --expect-counts "$WORK/c123.txt" --duration-s 1200 --timeout-s 120
grep -E "storage: recovered|index|checkpoint" "$WORK/rokka.log" | sed 's/^/# rokka: /' >&2 || true
log "done; load $(load); failed=$FAILED"
exit "$FAILED"
