#!/usr/bin/env bash
# bench/run.sh: Rokka's end-to-end benchmark (issue 6), side by side with librdkafka's mock cluster.
#
#   bench/run.sh quick|full [options]
#     --rokka PATH                 the broker binary (default: build/rokka); started fresh per scenario
#     --rokka-bootstrap HOST:PORT  use an already-running broker instead (topics created through the
#                                  admin API, flush mode as that broker was started)
#     --rokka-pid PID              with --rokka-bootstrap: the broker's pid, for CPU, RSS and descriptors
#     --rokka-data DIR             with --rokka-bootstrap: its data directory, for the file count
#     --rokka-as-mock              self-test: a second mock cluster plays the Rokka side
#     --only LIST                  comma-separated subset of: produce,consume,latency,scaling,topics
#     --repeat N                   run every scenario N times, sides alternating; tables show the median
#                                  run (default: 1 quick, 2 full)
#     --out FILE                   the report (default: bench/results/<date>.md; raw data beside it)
#     --build DIR                  the build directory (default: build)
#
# Every scenario starts a fresh broker (both sides), so CPU, peak RSS, descriptors and files are
# those of that scenario alone. Output: the report, <report>.jsonl (one JSON line per run) and
# <report>-scaling.png. See bench/README.md for what each figure means.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build"
ROKKA=""
ROKKA_BOOTSTRAP=""
ROKKA_PID=""
ROKKA_DATA=""
ROKKA_AS_MOCK=0
ONLY="produce,consume,latency,scaling,topics"
REPEAT=""
REP=1
OUT=""
MODE="${1:-}"
INVOCATION="bench/run.sh $*"

die() { echo "run.sh: $*" >&2; exit 2; }
[ "$MODE" = quick ] || [ "$MODE" = full ] || die "usage: bench/run.sh quick|full [--rokka PATH] [--rokka-bootstrap HOST:PORT] ... (see the header of this file)"
shift
while [ $# -gt 0 ]; do
  case "$1" in
    --rokka) ROKKA="$2"; shift 2 ;;
    --rokka-bootstrap) ROKKA_BOOTSTRAP="$2"; shift 2 ;;
    --rokka-pid) ROKKA_PID="$2"; shift 2 ;;
    --rokka-data) ROKKA_DATA="$2"; shift 2 ;;
    --rokka-as-mock) ROKKA_AS_MOCK=1; shift ;;
    --only) ONLY="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    *) die "unknown option $1" ;;
  esac
done
ROKKA="${ROKKA:-$BUILD/rokka}"
LOADGEN="$BUILD/bench/loadgen"
MOCK="$BUILD/bench/mock_cluster"
[ -x "$LOADGEN" ] && [ -x "$MOCK" ] || die "build first: cmake -S . -B build -G Ninja && cmake --build build -j2"
OUT="${OUT:-$ROOT/bench/results/$(date +%F).md}"
mkdir -p "$(dirname "$OUT")"

# ---- Scenario sizes (BENCH_DURATION, BENCH_BACKLOG_MIB, BENCH_SCALE_POINTS override) ------------
if [ "$MODE" = quick ]; then
  DURATION=5                               # seconds per produce run
  BACKLOG_MIB=128                          # consume scenario
  SCALE_POINTS="16 64 256 1000 10000"
else
  DURATION=20
  BACKLOG_MIB=1024
  SCALE_POINTS="16 64 256 1000 10000 50000"
fi
[ "$MODE" = quick ] && REPEAT=${REPEAT:-1} || REPEAT=${REPEAT:-2}
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || die "--repeat needs a positive count"
DURATION=${BENCH_DURATION:-$DURATION}
BACKLOG_MIB=${BENCH_BACKLOG_MIB:-$BACKLOG_MIB}
SCALE_POINTS=${BENCH_SCALE_POINTS:-$SCALE_POINTS}
SCALE_RATE=5000          # msgs/s of the fixed-rate latency run at each scaling point
SCALE_RUN_LENGTH=${SCALE_RUN_LENGTH:-16}  # scaling and topics: messages in a row per partition
MANY_TOPICS=5000         # scenario 5: topics of 2 partitions
PARTITIONS=16            # produce and latency scenarios
BACKLOG_PARTITIONS=256   # the mock keeps at most 5 MiB per partition: 1 GiB needs >= 205
LAT_LINGER_MS=1          # latency scenario producers (as the OpenMessaging Benchmark's Kafka driver)
LAT_FETCH_WAIT_MS=10     # e2e consumer fetch.wait.max.ms (the mock cannot wake a waiting fetch)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rokka-bench.XXXXXX")
JSONL="$WORK/results.jsonl"
META="$WORK/meta.txt"
: >"$JSONL"
B_PID=""        # the running broker of the current scenario
B_BOOT=""
B_DATA=""
B_SIDE=""
B_FLUSH=""
B_SEQ=0

LOADGEN_PID=""  # the loadgen run in progress, if any
cleanup() {
  [ -z "$LOADGEN_PID" ] || kill -TERM "$LOADGEN_PID" 2>/dev/null || true
  stop_broker
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
wants() { [[ ",$ONLY," == *",$1,"* ]]; }
json_num() { sed -n "s/.*\"$2\":\([-0-9.e+]*\)[,}].*/\1/p" <<<"$1"; }
json_str() { sed -n "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p" <<<"$1"; }
json_escape() { local s=${1//\\/\\\\}; printf '%s' "${s//\"/\\\"}"; }
shell_quote() {  # the arguments as one copy-pasteable command line
  local arg out=""
  for arg in "$@"; do
    if [[ "$arg" =~ ^[A-Za-z0-9_./:=,+%@-]+$ ]]; then out+="$arg "; else out+="'${arg//\'/\'\\\'\'}' "; fi
  done
  printf '%s' "${out% }"
}
rel() { printf '%s' "${1#"$ROOT"/}"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# ---- Broker process facts (/proc) ------------------------------------------------------------
CLK_TCK=$(getconf CLK_TCK)
proc_cpu_s() {  # utime + stime of $1 in seconds, or empty
  [ -n "$1" ] && [ -r "/proc/$1/stat" ] || return 0
  sed 's/.*) //' "/proc/$1/stat" | awk -v hz="$CLK_TCK" '{printf "%.2f", ($12 + $13) / hz}'
}
proc_status_mb() {  # a Vm* line of /proc/$1/status in MiB, or empty
  [ -n "$1" ] && [ -r "/proc/$1/status" ] || return 0
  awk -v key="$2:" '$1 == key {printf "%.1f", $2 / 1024}' "/proc/$1/status"
}
reset_peak_rss() { [ -n "$1" ] && echo 5 >"/proc/$1/clear_refs" 2>/dev/null || true; }
proc_fds() {  # open descriptors of $1 (a glob, no fork: cheap enough to sample), or empty
  [ -n "$1" ] && [ -d "/proc/$1/fd" ] || return 0
  local fds=("/proc/$1/fd/"*)
  printf '%s' "${#fds[@]}"
}
data_files() { [ -n "$1" ] && [ -d "$1" ] && find "$1" -type f | wc -l || true; }
data_mib() { [ -n "$1" ] && [ -d "$1" ] && du -sm "$1" | cut -f1 || true; }
machine_busy_s() {  # CPU seconds all processes spent since boot (user+nice+system+irq+softirq+steal)
  awk -v hz="$CLK_TCK" '$1 == "cpu" {printf "%.2f", ($2 + $3 + $4 + $7 + $8 + $9) / hz; exit}' /proc/stat
}
num_or_null() { [ -n "$1" ] && printf '%s' "$1" || printf 'null'; }

# ---- Sides -------------------------------------------------------------------------------------
# "mock" is always measured. The Rokka side is local (a binary started per scenario), external
# (--rokka-bootstrap), a mock standing in (--rokka-as-mock), or absent (ROKKA_STATUS says why).
ROKKA_KIND=""
ROKKA_STATUS=""
wait_for_port() {  # pid port seconds: true once 127.0.0.1:port accepts, false if pid died or time ran out
  local deadline=$((SECONDS + $3))
  while [ $SECONDS -lt $deadline ]; do
    kill -0 "$1" 2>/dev/null || return 1
    (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

probe_rokka() {
  if [ -n "$ROKKA_BOOTSTRAP" ]; then
    ROKKA_KIND=external ROKKA_STATUS="external broker at $ROKKA_BOOTSTRAP"
  elif [ "$ROKKA_AS_MOCK" = 1 ]; then
    ROKKA_KIND=as-mock ROKKA_STATUS="SELF-TEST: a second mock cluster plays the Rokka side"
  elif [ ! -x "$ROKKA" ]; then
    ROKKA_STATUS="not run: $ROKKA does not exist"
  else
    local port data out pid
    port=$(free_port) data="$WORK/probe-data" out="$WORK/probe.log"
    "$ROKKA" --override "listeners=PLAINTEXT://127.0.0.1:$port" --override "log.dirs=$data" \
      --override "rokka.http.listeners=127.0.0.1:0" >"$out" 2>&1 &
    pid=$!
    if wait_for_port "$pid" "$port" 20; then
      ROKKA_KIND=local ROKKA_STATUS="$ROKKA"
      kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
    else
      kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
      ROKKA_STATUS="not run: $ROKKA did not come up ($(tail -n 1 "$out" | tr -d '"\\'))"
    fi
    rm -rf "$data"
  fi
}

# flush modes to measure for a side in the produce scenario
flush_modes() {
  case "$1/$ROKKA_KIND" in
    mock/*) echo memory ;;
    rokka/external) echo external ;;
    rokka/*) echo "async sync" ;;
  esac
}

TOPIC_PREFIX=""  # an external broker keeps its topics: each repetition gets its own names

start_mock() {  # topic specs... (NAME:PARTITIONS or PREFIX:COUNT:PARTITIONS)
  local args=() spec out="$WORK/broker-$B_SEQ.log"
  for spec in "$@"; do
    case "$spec" in
      *:*:*) args+=(--topics "$spec") ;;
      *) args+=(--topic "$spec") ;;
    esac
  done
  B_CMD="$(rel "$MOCK") $(shell_quote "${args[@]}")"
  : >"$out"
  "$MOCK" "${args[@]}" >"$out" 2>&1 &
  B_PID=$!
  local deadline=$((SECONDS + 120))
  until grep -q '^ready$' "$out"; do
    kill -0 "$B_PID" 2>/dev/null && [ $SECONDS -lt $deadline ] || { cat "$out" >&2; die "mock cluster did not start"; }
    sleep 0.1
  done
  B_BOOT=$(sed -n 's/^bootstrap=//p' "$out")
}

start_rokka_local() {  # flush
  local port
  port=$(free_port)
  B_DATA="$WORK/data-$B_SEQ"
  B_CMD="$(rel "$ROKKA") --override listeners=PLAINTEXT://127.0.0.1:$port --override advertised.listeners=PLAINTEXT://127.0.0.1:$port --override log.dirs=$B_DATA --override store.flush.mode=$1 --override rokka.http.listeners=127.0.0.1:0"
  # shellcheck disable=SC2086
  $B_CMD >"$WORK/broker-$B_SEQ.log" 2>&1 &
  B_PID=$!
  B_BOOT="127.0.0.1:$port"
  wait_for_port "$B_PID" "$port" 60 || { tail -n 20 "$WORK/broker-$B_SEQ.log" >&2; die "rokka did not start"; }
}

create_topics_admin() {  # topic specs...: through loadgen's admin API (CreateTopics)
  local spec name count parts line
  for spec in "$@"; do
    IFS=: read -r name count parts <<<"$spec"
    [ -n "$parts" ] || { parts=$count; count=1; }
    line=$("$LOADGEN" --mode create-topics --bootstrap "$B_BOOT" --topic "$name" --topics "$count" \
             --partitions "$parts" --timeout 120 2>>"$WORK/loadgen.log") || { echo "$line" >&2; die "creating $spec failed"; }
    record "$line" create "$spec"
  done
}

start_broker() {  # side flush topic-specs...
  B_SIDE=$1 B_FLUSH=$2 B_DATA="" B_PID="" B_SEQ=$((B_SEQ + 1))
  shift 2
  if [ "$B_SIDE" = mock ] || [ "$ROKKA_KIND" = as-mock ]; then
    start_mock "$@"
  elif [ "$ROKKA_KIND" = local ]; then
    start_rokka_local "$B_FLUSH"
    create_topics_admin "$@"
  else
    B_BOOT=$ROKKA_BOOTSTRAP B_PID=$ROKKA_PID B_DATA=$ROKKA_DATA B_CMD="(external broker)"
    create_topics_admin "$@"
  fi
  printf '{"kind":"broker","side":"%s","flush":"%s","command":"%s"}\n' "$B_SIDE" "$B_FLUSH" "$(json_escape "$B_CMD")" >>"$JSONL"
}

stop_broker() {
  [ -n "$B_PID" ] || return 0
  if [ "$B_SIDE" = mock ] || [ "$ROKKA_KIND" != external ]; then
    kill -TERM "$B_PID" 2>/dev/null || true
    local deadline=$((SECONDS + 30))
    while kill -0 "$B_PID" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    kill -KILL "$B_PID" 2>/dev/null || true
    wait "$B_PID" 2>/dev/null || true
    [ -z "$B_DATA" ] || rm -rf "$B_DATA"
  fi
  B_PID=""
}

# ---- One measured run --------------------------------------------------------------------------
# record LINE SCENARIO STEP [broker facts...]: appends LINE with the side, scenario and step.
record() {
  local line=$1 extra=${4:-}
  printf '%s,"side":"%s","flush":"%s","scenario":"%s","step":"%s","rep":%s%s}\n' "${line%\}}" "$B_SIDE" "$B_FLUSH" \
    "$2" "$3" "$REP" "$extra" >>"$JSONL"
}

# run_load SCENARIO STEP loadgen-args...: runs loadgen against the current broker and records its
# JSON line with the broker's CPU seconds, peak RSS, descriptors and files over that run.
LAST=""
run_load() {
  local scenario=$1 step=$2 cpu0 cpu1 busy0 busy1 wall0 wall1 rc=0
  shift 2
  local args=(--bootstrap "$B_BOOT" --label "$B_SIDE $scenario $step" "$@")
  reset_peak_rss "$B_PID"
  cpu0=$(proc_cpu_s "$B_PID") busy0=$(machine_busy_s) wall0=$EPOCHREALTIME
  # Descriptors are sampled while the load runs (the peak includes client sockets).
  "$LOADGEN" "${args[@]}" >"$WORK/last.json" 2>>"$WORK/loadgen.log" &
  LOADGEN_PID=$!
  local fds peak_fds=""
  while kill -0 "$LOADGEN_PID" 2>/dev/null; do
    fds=$(proc_fds "$B_PID")
    [ -z "$fds" ] || [ "${peak_fds:-0}" -ge "$fds" ] || peak_fds=$fds
    sleep 0.2
  done
  wait "$LOADGEN_PID" || rc=$?
  LOADGEN_PID=""
  LAST=$(cat "$WORK/last.json")
  cpu1=$(proc_cpu_s "$B_PID") busy1=$(machine_busy_s) wall1=$EPOCHREALTIME
  [ -n "$LAST" ] || LAST="{\"errors\":1,\"first_error\":\"loadgen exited $rc with no output\"}"
  local cpu=""
  [ -z "$cpu0" ] || [ -z "$cpu1" ] || cpu=$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN {printf "%.2f", b - a}')
  local facts
  facts=$(printf ',"loadgen_rc":%s,"wall_s":%s,"machine_cpu_s":%s,"broker_cpu_s":%s,"broker_peak_rss_mb":%s,"broker_rss_mb":%s,"broker_fds":%s,"broker_files":%s,"broker_data_mb":%s,"command":"%s"' \
    "$rc" "$(awk -v a="$wall0" -v b="$wall1" 'BEGIN {printf "%.2f", b - a}')" "$(awk -v a="$busy0" -v b="$busy1" 'BEGIN {printf "%.2f", b - a}')" "$(num_or_null "$cpu")" "$(num_or_null "$(proc_status_mb "$B_PID" VmHWM)")" \
    "$(num_or_null "$(proc_status_mb "$B_PID" VmRSS)")" "$(num_or_null "$peak_fds")" \
    "$(num_or_null "$(data_files "$B_DATA")")" "$(num_or_null "$(data_mib "$B_DATA")")" \
    "$(json_escape "$(rel "$LOADGEN") $(shell_quote "${args[@]}")")")
  record "$LAST" "$scenario" "$step" "$facts"
  local delivery e2e
  delivery=$(json_num "$LAST" delivery_p99_ms) e2e=$(json_num "$LAST" e2e_p99_ms)
  log "  [$B_SIDE/$B_FLUSH] $scenario $step: $(json_num "$LAST" msgs_per_s) msgs/s $(json_num "$LAST" mb_per_s) MB/s," \
      "${delivery:+delivery p99 $delivery ms, }${e2e:+e2e p99 $e2e ms, }errors $(json_num "$LAST" errors)" \
      "$(json_str "$LAST" first_error)"
}

# ---- Scenarios ---------------------------------------------------------------------------------
scenario_produce() {  # (1) 100 B and 1 KiB, acks 1 and all, every flush mode of the side
  local side=$1 flush size acks
  for flush in $(flush_modes "$side"); do
    start_broker "$side" "$flush" "${TOPIC_PREFIX}p100-a1:$PARTITIONS" "${TOPIC_PREFIX}p100-aall:$PARTITIONS" \
      "${TOPIC_PREFIX}p1024-a1:$PARTITIONS" "${TOPIC_PREFIX}p1024-aall:$PARTITIONS"
    for size in 100 1024; do
      for acks in 1 all; do
        run_load produce "size=$size acks=$acks" --mode produce --topic "${TOPIC_PREFIX}p$size-a$acks" \
          --size "$size" --acks "$acks" --duration "$DURATION"
      done
    done
    stop_broker
  done
}

scenario_consume() {  # (2) produce a backlog, then read it from the start
  local side=$1 count=$((BACKLOG_MIB * 1024))
  start_broker "$side" "$(flush_modes "$side" | cut -d' ' -f1)" "${TOPIC_PREFIX}backlog:$BACKLOG_PARTITIONS"
  run_load consume fill --mode produce --topic "${TOPIC_PREFIX}backlog" --size 1024 --acks 1 --count "$count"
  run_load consume read --mode consume --topic "${TOPIC_PREFIX}backlog" --timeout 30
  stop_broker
}

scenario_latency() {  # (3) e2e latency at 25/50/75% of the max rate of the same e2e workload
  local side=$1 max pct rate
  start_broker "$side" "$(flush_modes "$side" | cut -d' ' -f1)" "${TOPIC_PREFIX}lat-max:$PARTITIONS" \
    "${TOPIC_PREFIX}lat-25:$PARTITIONS" "${TOPIC_PREFIX}lat-50:$PARTITIONS" "${TOPIC_PREFIX}lat-75:$PARTITIONS"
  # max: the same producer and consumer, closed loop; the rate messages came back at. (A
  # produce-only max would count the CPU the consumer needs as free: on 2 shared cores the
  # clients' consumer costs about what their producer does.)
  run_load latency max --mode e2e --topic "${TOPIC_PREFIX}lat-max" --size 1024 --acks 1 --linger-ms "$LAT_LINGER_MS" \
    --duration "$DURATION" --cset "fetch.wait.max.ms=$LAT_FETCH_WAIT_MS" --timeout 30
  max=$(json_num "$LAST" consumed_per_s)
  for pct in 25 50 75; do
    rate=$(awk -v m="${max:-0}" -v p="$pct" 'BEGIN {printf "%d", m * p / 100}')
    [ "$rate" -gt 0 ] || { log "  no max rate measured: skipping ${pct}%"; continue; }
    run_load latency "$pct%" --mode e2e --topic "${TOPIC_PREFIX}lat-$pct" --size 1024 --acks 1 --linger-ms "$LAT_LINGER_MS" \
      --rate "$rate" --duration "$DURATION" --cset "fetch.wait.max.ms=$LAT_FETCH_WAIT_MS" --timeout 30
  done
  stop_broker
}

scenario_scaling() {  # (4) the same load over more and more partitions of one topic
  local side=$1 parts
  for parts in $SCALE_POINTS; do
    start_broker "$side" "$(flush_modes "$side" | cut -d' ' -f1)" "${TOPIC_PREFIX}scale-$parts:$parts"
    run_load scaling "$parts max" --mode produce --topic "${TOPIC_PREFIX}scale-$parts" --size 1024 --acks 1 \
      --run-length "$SCALE_RUN_LENGTH" --duration "$DURATION" --timeout 120
    run_load scaling "$parts fixed" --mode produce --topic "${TOPIC_PREFIX}scale-$parts" --size 1024 --acks 1 \
      --run-length "$SCALE_RUN_LENGTH" --rate "$SCALE_RATE" --duration "$DURATION" --timeout 120
    stop_broker
  done
}

scenario_topics() {  # (5) many topics of 2 partitions
  local side=$1
  start_broker "$side" "$(flush_modes "$side" | cut -d' ' -f1)" "${TOPIC_PREFIX}mt:$MANY_TOPICS:2"
  run_load topics "$MANY_TOPICS max" --mode produce --topic "${TOPIC_PREFIX}mt" --topics "$MANY_TOPICS" \
    --size 1024 --acks 1 --run-length "$SCALE_RUN_LENGTH" --duration "$DURATION" --timeout 120
  run_load topics "$MANY_TOPICS fixed" --mode produce --topic "${TOPIC_PREFIX}mt" --topics "$MANY_TOPICS" \
    --size 1024 --acks 1 --run-length "$SCALE_RUN_LENGTH" --rate "$SCALE_RATE" --duration "$DURATION" --timeout 120
  stop_broker
}

# ---- Machine facts -----------------------------------------------------------------------------
write_meta() {
  local fs
  fs=$(df -T "$WORK" | awk 'NR == 2 {print $2 " on " $1}')
  {
    echo "date=$(date '+%F %T %Z')"
    echo "mode=$MODE"
    echo "invocation=$INVOCATION"
    echo "commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (uncommitted changes)')"
    echo "nproc=$(nproc)"
    echo "cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
    echo "memory=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    echo "kernel=$(uname -sr)"
    echo "filesystem=$fs (data dir $WORK)"
    echo "open_files_limit=$(ulimit -n)"
    echo "librdkafka=$(pkg-config --modversion rdkafka 2>/dev/null || echo unknown) (clients and mock)"
    echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "rokka=$ROKKA_STATUS"
    echo "duration_s=$DURATION"
    echo "repeat=$REPEAT"
    echo "backlog_mib=$BACKLOG_MIB"
    echo "scale_rate=$SCALE_RATE"
    echo "scale_run_length=$SCALE_RUN_LENGTH"
    echo "partitions=$PARTITIONS"
    echo "backlog_partitions=$BACKLOG_PARTITIONS"
    echo "lat_fetch_wait_ms=$LAT_FETCH_WAIT_MS"
    echo "lat_linger_ms=$LAT_LINGER_MS"
  } >"$META"
}

main() {
  probe_rokka
  local run_tag
  run_tag=$(date +%s)
  write_meta
  local sides=(mock) side scenario
  [ -z "$ROKKA_KIND" ] || sides+=(rokka)
  log "bench $MODE: sides ${sides[*]}; rokka: $ROKKA_STATUS"
  local start=$SECONDS
  for scenario in produce consume latency scaling topics; do
    wants "$scenario" || continue
    for REP in $(seq "$REPEAT"); do
      [ "$ROKKA_KIND" != external ] || TOPIC_PREFIX="r$run_tag-$REP-"
      for side in "${sides[@]}"; do
        log "$scenario on $side (run $REP of $REPEAT)"
        "scenario_$scenario" "$side"
      done
    done
  done
  echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$META"
  echo "wall_s=$((SECONDS - start))" >>"$META"
  # The machine facts travel with the raw data, so the report can be rendered again from it alone.
  python3 -c 'import json, sys; print(json.dumps({"kind": "meta", **dict(
      l.rstrip("\n").split("=", 1) for l in open(sys.argv[1]) if "=" in l)}))' "$META" >>"$JSONL"
  cp "$JSONL" "${OUT%.md}.jsonl"
  python3 "$ROOT/bench/report.py" --jsonl "$JSONL" --out "$OUT" --png "${OUT%.md}-scaling.png"
  log "done in $((SECONDS - start)) s: $OUT"
}

main
