#!/bin/bash
# Restart time of two Rokka binaries on the same data, alternating (bench/results/2026-12-03-million.md).
#
#   bench/wiregen/restart_ab.sh BEFORE AFTER [ROUNDS (2)]    environment: TOPICS PARTITIONS RECORDS SIZE
#
# BEFORE fills a fresh data directory under /tmp (TOPICS x PARTITIONS, one batch of RECORDS x SIZE bytes
# in every partition, wiregen --each-partition 1) and stops cleanly. AFTER gets a copy whose log and index
# files are hard links of the same files (same bytes, same page cache; checkpoint, journal and markers are
# copied, since either side rewrites them), opened once first to take the checkpoint over in its own
# format (reported as "upgrade"). Then, per round and side: a cold start (every data file dropped from the
# page cache first, posix_fadvise DONTNEED) and a warm one right after it, each timed from the fork to
# /readyz 200 and followed by a clean stop (SIGTERM). One JSON line per start on stdout, with the load
# average before and after and the broker's RSS when ready.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
W=${W:-$ROOT/build/bench/wiregen}
BEFORE=$1 AFTER=$2 ROUNDS=${3:-2}
TOPICS=${TOPICS:-10000} PARTITIONS=${PARTITIONS:-100} RECORDS=${RECORDS:-16} SIZE=${SIZE:-1024}
WORK=$(mktemp -d /tmp/restart-ab.XXXXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port) HPORT=$(free_port)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
# shellcheck source=bench/wiregen/rokka_process.sh
source "$ROOT/bench/wiregen/rokka_process.sh"
drop_cache() {
  python3 - "$1" <<'EOF'
import os, sys
for d, _, names in os.walk(sys.argv[1]):
    for n in names:
        fd = os.open(os.path.join(d, n), os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
EOF
}
measure() {  # side binary dir cache
  local before rss
  before=$(load)
  [ "$4" = cold ] && drop_cache "$3"
  start "$2" "$3"
  rss=$(awk '/^VmRSS/ {print $2 / 1024}' "/proc/$PID/status")
  stop
  python3 -c 'import json, sys
print(json.dumps({"side": sys.argv[1], "binary": sys.argv[2], "cache": sys.argv[3], "ready_s": float(sys.argv[4]),
                  "rss_mb_when_ready": float(sys.argv[5]), "load_before": sys.argv[6], "load_after": sys.argv[7]}), flush=True)' \
    "$1" "$2" "$4" "$READY" "$rss" "$before" "$(load)"
}

echo "# $(date -u +%H:%M:%S) fill with $BEFORE: $TOPICS x $PARTITIONS, $RECORDS x $SIZE B per partition; load $(load)" >&2
start "$BEFORE" "$WORK/before"
"$W" --mode create-topics --bootstrap "127.0.0.1:$PORT" --topic r --topics "$TOPICS" --partitions "$PARTITIONS" \
  --timeout-s 300 >"$WORK/create.json"
"$W" --mode produce --bootstrap "127.0.0.1:$PORT" --topic r --topics "$TOPICS" --records-per-batch "$RECORDS" \
  --size "$SIZE" --each-partition 1 --timeout-s 120 >"$WORK/fill.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print("# fill:", d["msgs"], "records,", d["partitions_written"], "partitions written,", d["errors"], "errors", file=sys.stderr)' "$WORK/fill.json"
stop
mkdir -p "$WORK/after"
for d in commitlog index; do cp -al "$WORK/before/$d" "$WORK/after/$d"; done
find "$WORK/before" -maxdepth 1 -type f -exec cp -a {} "$WORK/after/" \;
cp -a "$WORK/before/meta" "$WORK/after/meta"
measure upgrade "$AFTER" "$WORK/after" warm
for r in $(seq "$ROUNDS"); do
  for side in before after; do
    bin=$BEFORE
    [ $side = after ] && bin=$AFTER
    measure "$side" "$bin" "$WORK/$side" cold
    measure "$side" "$bin" "$WORK/$side" warm
  done
done
grep -E "storage: recovered|unusable|inconsistent|do not match" "$WORK/rokka.log" | sed 's/^/# rokka: /' >&2 || true
