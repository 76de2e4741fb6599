#!/bin/bash
# The first wiregen figures (bench/results/2026-12-03-wiregen-first-run.md): closed-loop produce
# for DURATION seconds at each partition count, against a fresh build/rokka and a fresh
# librdkafka mock cluster (build/bench/mock_cluster), one JSON line per run on stdout with the
# broker's CPU (utime + stime from /proc/PID/stat, as bench/ab.sh reads it) appended.
#
#   bench/wiregen/first_run.sh [DURATION] [SCALES...]   SCALES as TOPICSxPARTITIONS (default 1x64 100x100 1000x100)
#
# The mock keeps every partition in memory: it is given up (one JSON line with "skipped" and why)
# when it is not ready within MOCK_READY_TIMEOUT_S (default 300) or its RSS passes MOCK_RSS_LIMIT_MB
# (default 8000) while creating its topics or during the run, so it cannot take a shared machine down.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
W="$BUILD/bench/wiregen"
DURATION=${1:-10}
shift || true
SCALES=("$@")
[ ${#SCALES[@]} -gt 0 ] || SCALES=(1x64 100x100 1000x100)
WORK=$(mktemp -d /tmp/wiregen-first-run.XXXXXX)
HZ=$(getconf CLK_TCK)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT

measure() {  # broker label topics partitions
  local t0 t1 line
  echo "# $1 $3x$4: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  t0=$(cpu_ticks "$PID")
  line=$("$W" --mode produce --bootstrap "$BOOT" --topic w --topics "$2" --duration-s "$DURATION" || true)
  t1=$(cpu_ticks "$PID")
  python3 -c 'import json, sys
d = json.loads(sys.argv[1]); cpu = (int(sys.argv[3]) - int(sys.argv[2])) / int(sys.argv[4])
d.update(broker=sys.argv[5], broker_cpu_s=cpu, broker_cpu_us_per_msg=(cpu * 1e6 / d["msgs"]) if d["msgs"] else None,
         rss_broker_mb=int(open("/proc/%s/status" % sys.argv[6]).read().split("VmRSS:")[1].split()[0]) / 1024)
print(json.dumps(d))' "$line" "$t0" "$t1" "$HZ" "$1" "$PID"
}

for scale in "${SCALES[@]}"; do
  topics=${scale%x*} parts=${scale#*x}
  # Rokka, fresh data directory.
  port=$(free_port) hport=$(free_port)
  "$BUILD/rokka" --override "listeners=PLAINTEXT://127.0.0.1:$port" --override "log.dirs=$WORK/data-$scale" \
    --override store.flush.mode=async --override "rokka.http.listeners=127.0.0.1:$hport" >"$WORK/rokka-$scale.log" 2>&1 &
  PID=$!
  BOOT=127.0.0.1:$port
  for _ in $(seq 100); do "$W" --mode create-topics --bootstrap "$BOOT" --topic w --topics "$topics" \
    --partitions "$parts" --timeout-s 120 >"$WORK/create-$scale.json" 2>/dev/null && break; sleep 0.2; done
  echo "# rokka create: $(cat "$WORK/create-$scale.json")" >&2
  measure rokka "$topics" "$topics" "$parts"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
  rm -rf "$WORK/data-$scale"
  # The mock, topics created through its own API.
  "$BUILD/bench/mock_cluster" --topics "w:$topics:$parts" >"$WORK/mock-$scale.log" 2>&1 &
  PID=$!
  skipped=
  deadline=$(($(date +%s) + ${MOCK_READY_TIMEOUT_S:-300}))
  until grep -qs "^ready$" "$WORK/mock-$scale.log"; do
    kill -0 "$PID" 2>/dev/null || { skipped="mock_cluster exited while creating its topics"; break; }
    [ "$(date +%s)" -lt "$deadline" ] || { skipped="not ready within ${MOCK_READY_TIMEOUT_S:-300} s"; break; }
    rss=$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$PID/status" 2>/dev/null || echo 0)
    [ "$rss" -lt "${MOCK_RSS_LIMIT_MB:-8000}" ] || { skipped="RSS $rss MB while creating its topics"; break; }
    sleep 0.2
  done
  if [ -z "$skipped" ]; then
    BOOT=$(sed -n 's/^bootstrap=//p' "$WORK/mock-$scale.log")
    ( while kill -0 "$PID" 2>/dev/null; do
        rss=$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$PID/status" 2>/dev/null || echo 0)
        [ "$rss" -lt "${MOCK_RSS_LIMIT_MB:-8000}" ] || { echo "# mock RSS $rss MB: killed" >&2; kill -9 "$PID"; }
        sleep 0.5
      done ) &
    measure mock "$topics" "$topics" "$parts" || skipped="the run failed (RSS limit?)"
  fi
  [ -z "$skipped" ] || python3 -c 'import json, sys; print(json.dumps({"broker": "mock", "topics": int(sys.argv[1]), "partitions": int(sys.argv[1]) * int(sys.argv[2]), "skipped": sys.argv[3]}))' "$topics" "$parts" "$skipped"
  kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true; PID=
done
rm -rf "$WORK"
