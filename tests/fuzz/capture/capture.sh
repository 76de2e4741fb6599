#!/usr/bin/env bash
# Records real-client request frames as fuzz_request seeds: build/rokka behind
# record_proxy.py (the broker advertises the proxy, so every connection goes through
# it), driven by drive_clients.py (librdkafka 2.0.2 via python3-confluent-kafka).
#   bash tests/fuzz/capture/capture.sh [out dir, default tests/fuzz/seeds/request]
# Ports 29300 (proxy) and 29301 (broker) on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-tests/fuzz/seeds/request}
tmp=$(mktemp -d)
mkdir -p "$tmp/data" "$out"
./build/rokka --override listeners=PLAINTEXT://127.0.0.1:29301 \
  --override advertised.listeners=PLAINTEXT://127.0.0.1:29300 --override log.dirs="$tmp/data" \
  --override num.partitions=2 --override group.initial.rebalance.delay.ms=0 >"$tmp/rokka.log" 2>&1 &
broker=$!
python3 tests/fuzz/capture/record_proxy.py --listen 127.0.0.1:29300 --upstream 127.0.0.1:29301 \
  --out "$tmp/frames" >"$tmp/proxy.log" 2>&1 &
proxy=$!
trap 'kill $broker $proxy 2>/dev/null; wait $broker $proxy 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do
  grep -q "listening" "$tmp/rokka.log" && grep -q "recording proxy" "$tmp/proxy.log" && break
  sleep 0.1
done
/usr/bin/python3 tests/fuzz/capture/drive_clients.py 127.0.0.1:29300
cp "$tmp"/frames/* "$out"/
echo "captured $(ls "$tmp/frames" | wc -l) distinct request frames into $out:"
ls "$tmp/frames" | sed 's/_v.*//' | sort | uniq -c | tr '\n' ' '
echo
