#!/usr/bin/env bash
# bench/ab.sh: A/B two Rokka binaries on one workload, alternating, in the same run.
#
#   bench/ab.sh BEFORE_BINARY AFTER_BINARY [rounds (3)] [loadgen options...]
#
# Each round starts each binary fresh (async flush, own data dir, 127.0.0.1), creates one topic of 16
# partitions, runs `loadgen --mode produce` with the given options (default: 1 KiB, acks=1, 5 s) and
# prints one line per run: msgs/s and the broker's CPU microseconds per message (utime+stime from
# /proc/PID/stat over the run). The client shares the cores and usually bounds msgs/s, so compare the
# broker's us/msg: the cost an optimisation changes. For commit messages: medians of both columns.
# AB_MODE=e2e runs `loadgen --mode e2e` instead (give --rate for an open loop) and adds the
# end-to-end latency percentiles; AB_BROKER_ARGS adds broker overrides (same for both binaries).
# AB_SCRAPE=after (or before, or both) reads the broker's /metrics every second during that side's runs,
# as a Prometheus server would: `bench/ab.sh build/rokka build/rokka 5` with AB_SCRAPE=after measures
# what scraping costs.
# AB_SSL=after (or before, or both) gives that side's broker an SSL listener too (a certificate made with
# openssl for this run) and points its loadgen there (security.protocol=ssl): `bench/ab.sh build/rokka
# build/rokka 5` with AB_SSL=after is SSL against PLAINTEXT. AB_FILL=N first produces N messages over
# PLAINTEXT (not measured), for AB_MODE=consume: `AB_MODE=consume AB_FILL=200000 ... --count 200000`.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOADGEN="${LOADGEN:-$ROOT/build/bench/loadgen}"
[ $# -ge 2 ] || { echo "usage: bench/ab.sh BEFORE AFTER [rounds] [loadgen options...]" >&2; exit 2; }
BEFORE=$1 AFTER=$2
shift 2
ROUNDS=3
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then ROUNDS=$1; shift; fi
OPTS=("$@")
[ ${#OPTS[@]} -gt 0 ] || OPTS=(--size 1024 --acks 1 --duration 5)
WORK=$(mktemp -d /tmp/rokka-ab.XXXXXX)
PID=""
cleanup() {
  [ -z "$PID" ] || kill "$PID" 2>/dev/null || true
  [ -z "${SCRAPER:-}" ] || kill "$SCRAPER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

SCRAPER=""
if [ -n "${AB_SSL:-}" ]; then  # one self-signed certificate for 127.0.0.1, key and chain in one PEM
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
  cat "$WORK/key.pem" "$WORK/cert.pem" >"$WORK/broker.pem"
fi
run_one() {  # label binary
  local port hport sport data ticks0 ticks1 line msgs rate hz scrapes="" listeners target
  local client=() tls=()
  port=$(free_port)
  hport=$(free_port)
  data="$WORK/data-$1-$RANDOM"
  listeners="PLAINTEXT://127.0.0.1:$port"
  target="127.0.0.1:$port"
  if [ "${AB_SSL:-}" = "$1" ] || [ "${AB_SSL:-}" = both ]; then
    sport=$(free_port)
    listeners="$listeners,SSL://127.0.0.1:$sport"
    target="127.0.0.1:$sport"
    tls=(--override ssl.keystore.type=PEM --override "ssl.keystore.location=$WORK/broker.pem")
    client=(--set security.protocol=ssl --set "ssl.ca.location=$WORK/cert.pem"
            --cset security.protocol=ssl --cset "ssl.ca.location=$WORK/cert.pem")
  fi
  "$2" --override "listeners=$listeners" --override "advertised.listeners=$listeners" "${tls[@]}" \
    --override "log.dirs=$data" --override store.flush.mode=async --override "rokka.http.listeners=127.0.0.1:$hport" \
    ${AB_BROKER_ARGS:-} >"$WORK/broker.log" 2>&1 &
  PID=$!
  for _ in $(seq 600); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  "$LOADGEN" --mode create-topics --bootstrap "127.0.0.1:$port" --topic ab --partitions 16 --timeout 60 >/dev/null
  if [ -n "${AB_FILL:-}" ]; then
    "$LOADGEN" --mode produce --bootstrap "127.0.0.1:$port" --topic ab --count "$AB_FILL" --size 1024 >/dev/null
  fi
  if [ "${AB_SCRAPE:-}" = "$1" ] || [ "${AB_SCRAPE:-}" = both ]; then
    : >"$WORK/scrapes"
    (while :; do curl -sf -o /dev/null "http://127.0.0.1:$hport/metrics" && echo >>"$WORK/scrapes"; sleep 1; done) &
    SCRAPER=$!
  fi
  ticks0=$(cpu_ticks "$PID")
  line=$("$LOADGEN" --mode "${AB_MODE:-produce}" --bootstrap "$target" --topic ab "${client[@]}" "${OPTS[@]}" 2>/dev/null)
  ticks1=$(cpu_ticks "$PID")
  if [ -n "$SCRAPER" ]; then
    kill "$SCRAPER" 2>/dev/null || true
    wait "$SCRAPER" 2>/dev/null || true
    SCRAPER=""
    scrapes="  scrapes $(wc -l <"$WORK/scrapes")"
  fi
  kill "$PID"
  wait "$PID" 2>/dev/null || true
  PID=""
  rm -rf "$data"
  hz=$(getconf CLK_TCK)
  msgs=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["msgs"])' "$line")
  rate=$(python3 -c 'import json,sys; print(round(json.loads(sys.argv[1])["msgs_per_s"]))' "$line")
  python3 -c 'import sys; l,r,m,t,hz=sys.argv[1:]; print(f"{l:7s} msgs/s {int(r):>8,d}  broker us/msg {int(t)/int(hz)*1e6/max(1,int(m)):6.2f}", end="")' \
    "$1" "$rate" "$msgs" "$((ticks1 - ticks0))" "$hz"
  printf '%s' "$scrapes"
  python3 -c 'import json,sys; j=json.loads(sys.argv[1]); print("  e2e p50/p99/p99.9/max ms %.2f / %.2f / %.2f / %.2f  errors %d" % (j["e2e_p50_ms"], j["e2e_p99_ms"], j["e2e_p999_ms"], j["e2e_max_ms"], j["errors"]) if "e2e_p99_ms" in j else "")' "$line"
}

echo "ab: ${OPTS[*]}; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
  run_one before "$BEFORE"
  run_one after "$AFTER"
done
echo "ab: load at end $(cut -d' ' -f1-3 /proc/loadavg)"
