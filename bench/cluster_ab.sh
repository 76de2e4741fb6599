#!/usr/bin/env bash
# bench/cluster_ab.sh: one broker against a cluster of three (docs/cluster.md), alternating, same run.
#
#   bench/cluster_ab.sh [rounds (3)] [loadgen options...]
#
# Each round starts, in turn, (a) one broker alone and (b) one etcd member and three brokers in cluster
# mode, all fresh on 127.0.0.1 with async flush; creates one topic of 12 partitions (spread over the
# three brokers in (b)); runs `loadgen --mode produce` with the given options (default: 1 KiB, acks=1,
# 10 s) bootstrapped from every broker, then `loadgen --mode consume` of what was produced; prints one
# line per run: produce msgs/s, consume msgs/s and the brokers' CPU seconds (utime+stime from
# /proc/PID/stat, summed over the brokers) per million messages produced. Everything shares this
# machine's cores: the figures say what three brokers cost on one machine, not what three machines give.
# AB_JSONL=FILE appends loadgen's JSON lines there.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOADGEN="${LOADGEN:-$ROOT/build/bench/loadgen}"
ROKKA="${ROKKA:-$ROOT/build/rokka}"
ROUNDS=3
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then ROUNDS=$1; shift; fi
OPTS=("$@")
[ ${#OPTS[@]} -gt 0 ] || OPTS=(--size 1024 --acks 1 --duration 10)
WORK=$(mktemp -d /tmp/rokka-cluster-ab.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
wait_port() {
  for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "cluster_ab: nothing listens on $1" >&2; exit 1
}
json() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }

# start_brokers N DIR: N brokers (N > 1: cluster mode on a new etcd member); sets BOOTSTRAP and BROKER_PIDS.
start_brokers() {
  local n=$1 dir=$2 endpoints="" i port ports=()
  mkdir -p "$dir"
  if [ "$n" -gt 1 ]; then
    local client peer
    client=$(free_port) peer=$(free_port)
    etcd --name e --data-dir "$dir/etcd" --listen-client-urls "http://127.0.0.1:$client" \
      --advertise-client-urls "http://127.0.0.1:$client" --listen-peer-urls "http://127.0.0.1:$peer" \
      --initial-advertise-peer-urls "http://127.0.0.1:$peer" --initial-cluster "e=http://127.0.0.1:$peer" \
      --pre-vote=true >"$dir/etcd.log" 2>&1 &
    PIDS+=($!)
    wait_port "$client"
    endpoints="http://127.0.0.1:$client"
  fi
  BROKER_PIDS=()
  for i in $(seq 1 "$n"); do
    port=$(free_port)
    local args=(--override "broker.id=$i" --override "listeners=PLAINTEXT://127.0.0.1:$port"
                --override "log.dirs=$dir/data-$i" --override rokka.http.listeners=)
    [ -z "$endpoints" ] || args+=(--override "rokka.cluster.etcd.endpoints=$endpoints")
    "$ROKKA" "${args[@]}" >"$dir/broker-$i.log" 2>&1 &
    PIDS+=($!) BROKER_PIDS+=($!)
    ports+=("$port")
  done
  BOOTSTRAP=""
  for port in "${ports[@]}"; do
    wait_port "$port"
    BOOTSTRAP+="${BOOTSTRAP:+,}127.0.0.1:$port"
  done
}

stop_all() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}

run_side() {  # run_side N ROUND
  local n=$1 round=$2 dir="$WORK/r$2-n$1" before after produce consume msgs
  start_brokers "$n" "$dir"
  "$LOADGEN" --mode create-topics --bootstrap "$BOOTSTRAP" --topic bench --partitions 12 >/dev/null
  before=0
  for p in "${BROKER_PIDS[@]}"; do before=$((before + $(cpu_ticks "$p"))); done
  produce=$("$LOADGEN" --mode produce --bootstrap "$BOOTSTRAP" --topic bench "${OPTS[@]}" --label "brokers=$n")
  after=0
  for p in "${BROKER_PIDS[@]}"; do after=$((after + $(cpu_ticks "$p"))); done
  msgs=$(json "$produce" msgs)
  consume=$("$LOADGEN" --mode consume --bootstrap "$BOOTSTRAP" --topic bench --count "$msgs" --label "brokers=$n")
  printf 'round %s brokers %s: produce %s msgs/s (errors %s, p99 %s ms), consume %s msgs/s, broker cpu %s s per 1M msgs\n' \
    "$round" "$n" "$(json "$produce" msgs_per_s)" "$(json "$produce" errors)" "$(json "$produce" delivery_p99_ms)" \
    "$(json "$consume" msgs_per_s)" \
    "$(python3 -c "print(round(($after - $before) / $(getconf CLK_TCK) / max($msgs, 1) * 1e6, 2))")"
  if [ -n "${AB_JSONL:-}" ]; then echo "$produce" >>"$AB_JSONL"; echo "$consume" >>"$AB_JSONL"; fi
  stop_all
}

echo "cluster_ab: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); loadgen ${OPTS[*]}"
for round in $(seq 1 "$ROUNDS"); do
  run_side 1 "$round"
  run_side 3 "$round"
done
