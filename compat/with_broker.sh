#!/usr/bin/env bash
# Start a fresh broker on a free 127.0.0.1 port, run a command with its bootstrap, stop it.
#
#   compat/with_broker.sh COMMAND [ARGS...]     runs: COMMAND ARGS... HOST:PORT
#
# Broker: $ROKKA_BIN, else <repo>/build/rokka, started with a temp data dir and Kafka's defaults
# (`rokka --override key=value...`; auto-creation on, num.partitions=4 as librdkafka's suite
# assumes). ROKKA_BIN=mock uses the harness's librdkafka mock cluster instead (built by
# compat/librdkafka/build.sh), to check the scenarios themselves without Rokka: the one built with
# librdkafka $ROKKA_MOCK_VERSION (default 2.0.2; 2.14.2's mock serves KIP-848's consumer groups).
# Exit status: the command's; 2 if the broker did not come up.
set -euo pipefail

readonly HERE=$(cd "$(dirname "$0")" && pwd)
readonly BROKER=${ROKKA_BIN:-$HERE/../build/rokka}
readonly PARTITIONS=4

[ $# -ge 1 ] || { sed -n '2,12p' "$0"; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/rokka-broker.XXXXXX")
broker_pid=
cleanup() {
  if [ -n "$broker_pid" ] && kill -0 "$broker_pid" 2>/dev/null; then
    kill -TERM "$broker_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$broker_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$broker_pid" 2>/dev/null || true
  fi
  rm -rf "$work/data"
}
trap cleanup EXIT

fail_start() {
  echo "with_broker: $1; broker log ($work/broker.log):" >&2
  tail -20 "$work/broker.log" >&2 || true
  exit 2
}

start_mock() {
  local mock=${ROKKA_COMPAT_DIR:-/tmp/rokka-compat}/build-${ROKKA_MOCK_VERSION:-2.0.2}/rokka-mock-broker
  [ -x "$mock" ] || fail_start "no $mock (run compat/librdkafka/build.sh)"
  "$mock" 1 >"$work/bootstrap" 2>"$work/broker.log" &
  broker_pid=$!
  for _ in $(seq 1 100); do grep -q '^bootstrap=' "$work/bootstrap" && break; sleep 0.1; done
  bootstrap=$(sed -n 's/^bootstrap=//p' "$work/bootstrap")
  [ -n "$bootstrap" ] || fail_start "mock broker printed no bootstrap"
}

start_rokka() {
  local port
  [ -x "$BROKER" ] || fail_start "no broker binary $BROKER"
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$work/data"
  "$BROKER" --override "listeners=PLAINTEXT://127.0.0.1:$port" \
    --override "advertised.listeners=PLAINTEXT://127.0.0.1:$port" \
    --override "log.dirs=$work/data" --override auto.create.topics.enable=true \
    --override "rokka.http.listeners=127.0.0.1:0" \
    --override "num.partitions=$PARTITIONS" --override group.initial.rebalance.delay.ms=0 \
    >"$work/broker.log" 2>&1 &
  broker_pid=$!
  bootstrap=127.0.0.1:$port
  for _ in $(seq 1 150); do
    kill -0 "$broker_pid" 2>/dev/null || fail_start "broker exited at startup"
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.2
  done
  fail_start "broker did not listen on $bootstrap within 30s"
}

if [ "$BROKER" = mock ]; then start_mock; else start_rokka; fi
echo "with_broker: broker up at $bootstrap (log $work/broker.log)" >&2
set +e
"$@" "$bootstrap"
rc=$?
set -e
kill -0 "$broker_pid" 2>/dev/null || { echo "with_broker: the broker died during the run" >&2; rc=1; }
exit $rc
