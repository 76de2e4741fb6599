#!/bin/bash
# Partition scaling with wiregen (issue 22, part 3; bench/results/2026-12-06-scaling.md): closed-loop
# produce for DURATION seconds at each scale, against a fresh build/rokka (fresh data directory) and a
# fresh librdkafka mock cluster (build/bench/mock_cluster), one JSON line per run on stdout. This was
# first_run.sh (bench/results/2026-12-03-wiregen-first-run.md: `WIREGEN_TUNABLES= scaling.sh 10 1x64 100x100
# 1000x100` reruns it as it was).
#
#   bench/wiregen/scaling.sh [DURATION] [SCALES...]   SCALES as TOPICSxPARTITIONS
#                         (default 1x16 1x64 10x100 100x100 1000x100 3000x100 10000x100: 16 to 1,000,000)
#   environment: RECORDS (per batch, default 16) SIZE (value bytes, default 1024) BROKERS ("rokka mock")
#                RUN (a label copied into every line as "run")
#                WARM_S (default 0, as the published passes ran): first produce this many seconds,
#                unmeasured, to the same broker and topics: on a fresh VM the first GiB a broker writes
#                lands in page-cache pages the VM must first get back from its host (bench/NOTES.md,
#                2026-12-07), which a small scale's run otherwise pays inside its figures
#                WIREGEN_TUNABLES (GLIBC_TUNABLES for wiregen alone, recorded in every line; default
#                empty: wiregen reuses its request buffers itself. 2026-12-06-scaling.md's passes ran
#                a wiregen that freed them, with
#                glibc.malloc.mmap_threshold=268435456:glibc.malloc.trim_threshold=1073741824)
#
# Each line is wiregen's (msgs_per_s, latency_p50_ms / p99, client_cpu_s, partitions_written, ...) with
# the broker's figures over the run merged in: broker_cpu_s (utime + stime from /proc/PID/stat, as
# bench/ab.sh reads it) and per message, client CPU per message, machine_cpu_s (busy time of all cores
# from /proc/stat; other_cpu_s = machine - broker - client: other users' work), the broker's minor and
# major page faults and context switches, and at the end VmRSS / RssAnon / RssFile / VmHWM, open
# descriptors (/proc/PID/fd) and the files and bytes of its data directory (the mock has none); the
# load average before and after; for Rokka the CreateTopics line as "create".
#
# The mock keeps every record in memory: it is given up (one JSON line with "skipped" and why)
# when it is not ready within MOCK_READY_TIMEOUT_S (default 300) or its RSS passes MOCK_RSS_LIMIT_MB
# (default 8000) while creating its topics or during the run, so it cannot take a shared machine down.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
W="$BUILD/bench/wiregen"
DURATION=${1:-10}
shift || true
SCALES=("$@")
[ ${#SCALES[@]} -gt 0 ] || SCALES=(1x16 1x64 10x100 100x100 1000x100 3000x100 10000x100)
RECORDS=${RECORDS:-16}
SIZE=${SIZE:-1024}
BROKERS=${BROKERS:-rokka mock}
RSS_LIMIT=${MOCK_RSS_LIMIT_MB:-8000}
WIREGEN_TUNABLES=${WIREGEN_TUNABLES:-}
export RUN=${RUN:-}
WORK=$(mktemp -d /tmp/wiregen-scaling.XXXXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

# The counters read before and after a run, as JSON: the broker's CPU ticks, faults and context
# switches, and the machine's busy ticks.
counters() {  # pid
  python3 - "$1" <<'PY'
import json, os, sys
pid = sys.argv[1]
stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
vcs = ivcs = 0
for tid in os.listdir(f"/proc/{pid}/task"):  # context switches are per thread
    try:
        status = dict(l.split(":", 1) for l in open(f"/proc/{pid}/task/{tid}/status"))
    except OSError:
        continue
    vcs += int(status["voluntary_ctxt_switches"])
    ivcs += int(status["nonvoluntary_ctxt_switches"])
cpu = [int(x) for x in open("/proc/stat").readline().split()[1:]]
print(json.dumps({"ticks": int(stat[11]) + int(stat[12]), "minflt": int(stat[7]), "majflt": int(stat[9]),
                  "vcs": vcs, "ivcs": ivcs,
                  "machine": sum(cpu[:8]) - cpu[3] - cpu[4]}))  # all but idle and iowait
PY
}

# One run's line: wiregen's, the counters' differences, the broker's state at the end.
measure() {  # broker topics [data_dir] [create_json]
  local before c0 c1 line
  if [ "${WARM_S:-0}" -gt 0 ]; then
    GLIBC_TUNABLES=$WIREGEN_TUNABLES "$W" --mode produce --bootstrap "$BOOT" --topic w --topics "$2" \
      --records-per-batch "$RECORDS" --size "$SIZE" --duration-s "$WARM_S" >/dev/null || true
  fi
  before=$(load)
  echo "# $(date -u +%H:%M:%S) $1 ${2}x$parts: load $before" >&2
  c0=$(counters "$PID")
  line=$(GLIBC_TUNABLES=$WIREGEN_TUNABLES "$W" --mode produce --bootstrap "$BOOT" --topic w --topics "$2" --records-per-batch "$RECORDS" \
    --size "$SIZE" --duration-s "$DURATION" || true)
  c1=$(counters "$PID")
  [ -n "$line" ] || line='{"errors": 1, "first_error": "wiregen printed nothing"}'
  WIREGEN_TUNABLES=$WIREGEN_TUNABLES python3 - "$line" "$c0" "$c1" "$1" "$PID" "${3:-}" "${4:-}" "$before" "$(load)" "$(getconf CLK_TCK)" <<'PY'
import json, os, sys
d = json.loads(sys.argv[1]); c0, c1 = json.loads(sys.argv[2]), json.loads(sys.argv[3])
broker, pid, data, create, hz = sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7], int(sys.argv[10])
msgs = d.get("msgs") or 0
per = lambda s: s * 1e6 / msgs if msgs else None
cpu = (c1["ticks"] - c0["ticks"]) / hz
machine = (c1["machine"] - c0["machine"]) / hz
client = d.get("client_cpu_s")
status = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status"))
mb = lambda k: int(status[k].split()[0]) / 1024 if k in status else None
d.update(run=os.environ["RUN"], wiregen_glibc_tunables=os.environ.get("WIREGEN_TUNABLES", ""),
         broker=broker, load_before=sys.argv[8], load_after=sys.argv[9], warm_s=int(os.environ.get("WARM_S") or 0),
         broker_cpu_s=cpu, broker_cpu_us_per_msg=per(cpu),
         client_cpu_us_per_msg=per(client) if client is not None else None,
         machine_cpu_s=machine, other_cpu_s=max(0.0, machine - cpu - (client or 0)),
         broker_minflt=c1["minflt"] - c0["minflt"], broker_majflt=c1["majflt"] - c0["majflt"],
         broker_vcs=c1["vcs"] - c0["vcs"], broker_ivcs=c1["ivcs"] - c0["ivcs"],
         rss_broker_mb=mb("VmRSS"), rss_anon_mb=mb("RssAnon"), rss_file_mb=mb("RssFile"), peak_rss_mb=mb("VmHWM"),
         broker_fds=len(os.listdir(f"/proc/{pid}/fd")))
if data:
    files, size = 0, 0
    for root, _, names in os.walk(data):
        for n in names:
            files += 1
            size += os.stat(os.path.join(root, n)).st_blocks * 512
    d.update(data_files=files, data_mib_on_disk=round(size / 2**20, 1))
if create:
    d["create"] = json.loads(create)
print(json.dumps(d), flush=True)
PY
}

skip_line() {  # broker topics reason
  python3 -c 'import json, os, sys
print(json.dumps({"run": os.environ["RUN"], "broker": sys.argv[1], "topics": int(sys.argv[2]), "partitions": int(sys.argv[2]) * int(sys.argv[3]),
                  "load_before": sys.argv[5], "skipped": sys.argv[4]}), flush=True)' "$1" "$2" "$parts" "$3" "$(load)"
}

run_rokka() {  # topics
  local port hport create
  port=$(free_port) hport=$(free_port)
  "$BUILD/rokka" --override "listeners=PLAINTEXT://127.0.0.1:$port" --override "log.dirs=$WORK/data-$scale" \
    --override store.flush.mode=async --override "rokka.http.listeners=127.0.0.1:$hport" >"$WORK/rokka-$scale.log" 2>&1 &
  PID=$!
  BOOT=127.0.0.1:$port
  for _ in $(seq 100); do "$W" --mode create-topics --bootstrap "$BOOT" --topic w --topics "$1" \
    --partitions "$parts" --timeout-s 300 >"$WORK/create-$scale.json" 2>/dev/null && break; sleep 0.2; done
  create=$(cat "$WORK/create-$scale.json")
  echo "# rokka create: $create" >&2
  measure rokka "$1" "$WORK/data-$scale" "$create"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
  rm -rf "$WORK/data-$scale"
}

run_mock() {  # topics; the mock's topics are created through its own API
  local skipped= deadline rss watcher started
  "$BUILD/bench/mock_cluster" --topics "w:$1:$parts" >"$WORK/mock-$scale.log" 2>&1 &
  PID=$!
  started=$(date +%s)
  deadline=$((started + ${MOCK_READY_TIMEOUT_S:-300}))
  until grep -qs "^ready$" "$WORK/mock-$scale.log"; do
    kill -0 "$PID" 2>/dev/null || { skipped="mock_cluster exited while creating its topics"; break; }
    [ "$(date +%s)" -lt "$deadline" ] || { skipped="not ready within ${MOCK_READY_TIMEOUT_S:-300} s"; break; }
    rss=$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$PID/status" 2>/dev/null || echo 0)
    [ "$rss" -lt "$RSS_LIMIT" ] || { skipped="RSS $rss MB (limit $RSS_LIMIT) $(($(date +%s) - started)) s into creating its topics, not ready"; break; }
    sleep 0.2
  done
  if [ -z "$skipped" ]; then
    BOOT=$(sed -n 's/^bootstrap=//p' "$WORK/mock-$scale.log")
    ( while kill -0 "$PID" 2>/dev/null; do
        rss=$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$PID/status" 2>/dev/null || echo 0)
        [ "$rss" -lt "$RSS_LIMIT" ] || { echo "# mock RSS $rss MB: killed" >&2; kill -9 "$PID"; }
        sleep 0.5
      done ) &
    watcher=$!
    measure mock "$1" || skipped="the run failed (RSS limit $RSS_LIMIT MB?)"
    kill "$watcher" 2>/dev/null || true
  fi
  [ -z "$skipped" ] || skip_line mock "$1" "$skipped"
  kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true; PID=
}

echo "# $(date -u +%H:%M:%S) work dir $WORK; load $(load); scales ${SCALES[*]}; brokers $BROKERS" >&2
for scale in "${SCALES[@]}"; do
  topics=${scale%x*} parts=${scale#*x}
  for broker in $BROKERS; do "run_$broker" "$topics"; done
done
echo "# $(date -u +%H:%M:%S) done; load $(load)" >&2
