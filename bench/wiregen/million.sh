#!/bin/bash
# 1,000,000 partitions (10,000 topics x 100) all taking writes, end to end (issue 22, part 2;
# bench/results/2026-12-03-million.md). One fresh build/rokka on a fresh data directory under
# /tmp, driven by build/bench/wiregen:
#
#   1. start; create TOPICS x PARTITIONS; RSS, files and descriptors idle
#   2. fill: one batch of RECORDS x SIZE bytes to every partition (wiregen --each-partition 1)
#   3. RSS, files, descriptors with data in every partition
#   4. Metadata for all topics (time, bytes) and per topic (latency)
#   5. consume CONSUME_TOPICS topics (100,000 partitions) on CONSUME_CONNECTIONS connections,
#      every partition's count checked (--expect-counts)
#   6. clean stop (SIGTERM): time to exit, then time from start to /readyz 200 ("ready": store
#      open, coordinators loaded, listeners accepting); every partition's count checked
#   7. a second, small batch to every partition, kill -9 at once after its last ack, time from
#      start to ready (recovery re-indexes what the checkpoint missed); every count checked
#
# Every step prints one JSON line on stdout (wiregen's, with "step", the load average before
# and after, and the broker's RSS / descriptors / files where measured). Progress on stderr.
#
#   bench/wiregen/million.sh            environment: TOPICS PARTITIONS RECORDS SIZE
#                                        CONSUME_TOPICS CONSUME_CONNECTIONS KEEP=1 (keep the data)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
W="$BUILD/bench/wiregen"
TOPICS=${TOPICS:-10000}
PARTITIONS=${PARTITIONS:-100}
RECORDS=${RECORDS:-16}
SIZE=${SIZE:-1024}
CONSUME_TOPICS=${CONSUME_TOPICS:-1000}
CONSUME_CONNECTIONS=${CONSUME_CONNECTIONS:-4}
WORK=$(mktemp -d /tmp/million.XXXXXX)
DATA=$WORK/data
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
HPORT=$(free_port)
BOOT=127.0.0.1:$PORT
PID=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  [ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
log() { echo "# $(date -u +%H:%M:%S) $*" >&2; }

start() {  # sets PID and STARTED (the time of the fork)
  STARTED=$(now)
  "$BUILD/rokka" --override "listeners=PLAINTEXT://$BOOT" --override "log.dirs=$DATA" \
    --override store.flush.mode=async --override "rokka.http.listeners=127.0.0.1:$HPORT" >>"$WORK/rokka.log" 2>&1 &
  PID=$!
}
wait_ready() {  # seconds from STARTED to /readyz 200
  until curl -sf -m 1 "http://127.0.0.1:$HPORT/readyz" >/dev/null 2>&1; do
    kill -0 "$PID" 2>/dev/null || { echo "rokka exited; log: $WORK/rokka.log" >&2; tail -5 "$WORK/rokka.log" >&2; exit 1; }
    sleep 0.05
  done
  python3 -c "print(round($(now) - $STARTED, 3))"
}

# The broker's state as JSON fields: RSS from /proc/PID/status, descriptors, data files.
broker_state() {
  python3 - "$PID" "$DATA" <<'EOF'
import json, os, sys
pid, data = sys.argv[1], sys.argv[2]
status = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status"))
kb = lambda k: int(status[k].split()[0]) if k in status else None
files, size = 0, 0
for d, _, names in os.walk(data):
    for n in names:
        files += 1
        size += os.stat(os.path.join(d, n)).st_blocks * 512
print(json.dumps({"rss_mb": kb("VmRSS") / 1024, "rss_anon_mb": kb("RssAnon") / 1024, "rss_file_mb": kb("RssFile") / 1024,
                  "peak_rss_mb": kb("VmHWM") / 1024, "fds": len(os.listdir(f"/proc/{pid}/fd")),
                  "data_files": files, "data_mib_on_disk": round(size / 2**20, 1)}))
EOF
}

# emit STEP JSON_LINE [EXTRA_JSON...]: one line with step, load before/after and the extras merged.
emit() {
  python3 -c 'import json, sys
d = {"step": sys.argv[1], "load_before": sys.argv[2], "load_after": sys.argv[3]}
for extra in sys.argv[4:]:
    if extra: d.update(json.loads(extra))
print(json.dumps(d), flush=True)' "$@"
}

run_wiregen() {  # step, then wiregen's arguments; prints its line with the broker's state merged
  local step=$1 before line
  shift
  before=$(load)
  log "$step: wiregen $*"
  line=$("$W" --bootstrap "$BOOT" --topic m --topics "$TOPICS" "$@" || true)
  [ -n "$line" ] || line='{"errors":1,"first_error":"wiregen printed nothing"}'
  emit "$step" "$before" "$(load)" "$line" "$(broker_state)"
}

log "work dir $WORK; load $(load)"
emit machine "$(load)" "$(load)" "$(python3 -c 'import json, os, platform
mem = dict(l.split(":", 1) for l in open("/proc/meminfo"))
print(json.dumps({"cpus": os.cpu_count(), "kernel": platform.release(),
                  "mem_total_mib": int(mem["MemTotal"].split()[0]) // 1024,
                  "mem_available_mib": int(mem["MemAvailable"].split()[0]) // 1024,
                  "commit": os.popen("git -C '"$ROOT"' rev-parse --short HEAD").read().strip(),
                  "topics": '"$TOPICS"', "partitions_per_topic": '"$PARTITIONS"', "records": '"$RECORDS"', "size": '"$SIZE"'}))')"

# 1. Start, create, idle.
start
t=$(wait_ready)
emit start "$(load)" "$(load)" "{\"ready_s\": $t}" "$(broker_state)"
run_wiregen create --mode create-topics --partitions "$PARTITIONS" --timeout-s 300

# 2-3. Fill every partition; the broker's state with data everywhere.
run_wiregen fill --mode produce --records-per-batch "$RECORDS" --size "$SIZE" --each-partition 1 \
  --counts-out "$WORK/counts-1.txt" --timeout-s 120

# 4. Metadata.
run_wiregen metadata --mode metadata --repeat 3 --per-topic-requests 1000 --timeout-s 120

# 5. Consume 100,000 partitions at once, counts checked.
before=$(load)
log "consume-100k: wiregen --mode consume --topics $CONSUME_TOPICS --connections-per-broker $CONSUME_CONNECTIONS"
line=$("$W" --bootstrap "$BOOT" --topic m --topics "$CONSUME_TOPICS" --mode consume --connections-per-broker \
  "$CONSUME_CONNECTIONS" --expect-counts "$WORK/counts-1.txt" --duration-s 600 --timeout-s 120 || true)
emit consume-100k "$before" "$(load)" "$line" "$(broker_state)"

# 6. Clean stop, restart, every count checked.
before=$(load)
t0=$(now)
kill -TERM "$PID"
wait "$PID" || true
stop_s=$(python3 -c "print(round($(now) - $t0, 3))")
start
t=$(wait_ready)
emit restart-clean "$before" "$(load)" "{\"stop_s\": $stop_s, \"ready_s\": $t}" "$(broker_state)"
run_wiregen verify-after-clean --mode consume --connections-per-broker "$CONSUME_CONNECTIONS" \
  --expect-counts "$WORK/counts-1.txt" --duration-s 1200 --timeout-s 120

# 7. One more small batch everywhere, kill -9 right after its last ack, restart, counts checked.
run_wiregen fill-2 --mode produce --records-per-batch 1 --size 100 --each-partition 1 \
  --counts-out "$WORK/counts-2.txt" --timeout-s 120
before=$(load)
kill -KILL "$PID"
wait "$PID" 2>/dev/null || true
start
t=$(wait_ready)
emit restart-kill9 "$before" "$(load)" "{\"ready_s\": $t}" "$(broker_state)"
# The counts of both fills, per partition.
awk '{n[$1" "$2] += $3} END {for (k in n) print k, n[k]}' "$WORK/counts-1.txt" "$WORK/counts-2.txt" >"$WORK/counts.txt"
run_wiregen verify-after-kill9 --mode consume --connections-per-broker "$CONSUME_CONNECTIONS" \
  --expect-counts "$WORK/counts.txt" --duration-s 1200 --timeout-s 120
grep -E "storage: recovered|shut down|starting rokka" "$WORK/rokka.log" | sed 's/^/# rokka: /' >&2 || true
log "done; load $(load)"
