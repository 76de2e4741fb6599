#!/usr/bin/env bash
# Cluster mode (issue 23) as a system test: three "machines" in network namespaces, each running
# one etcd member and one broker, and a client namespace that drives python3-confluent-kafka and
# etcdctl through the scenarios of scenarios.py (its docstring lists them: topic creation and
# placement, produce/consume across brokers, kill -9 of a broker, of the controller, of an etcd
# follower and leader, group offsets over a coordinator restart, an etcd member cut off from its
# peers, a whole machine cut off, and an audit of every acknowledged record).
#
#   tests/cluster/netns/run.sh               the whole test, as root (about 90 s on the 2-core machine)
#   tests/cluster/netns/run.sh --etcd-only   namespaces + 3 etcd members; an etcd follower, then the
#                                            leader, killed -9 under a put loop and restarted (no broker)
#   tests/cluster/netns/run.sh --cleanup     removes what a run killed with -9 left behind
#   tests/cluster/netns/run.sh --replication the Jepsen-style replication test of issue 24 (replication.py:
#                                            group g1=1,2,3, an RF-3 topic under load, faults one at a time,
#                                            then the verdict); ROKKA_REPL_TRIALS trials (default 1, one
#                                            fault of each kind, 60-90 s); needs nft (nftables) too
#
# Topology (nothing is added to the root namespace's network):
#   rk-hub   a bridge br0, one veth end per other namespace
#   rk-m1..3 eth0 10.77.0.11..13/24: etcd member m1..m3 (client :2379), broker 1..3 (:9092);
#            and 10.77.1.11..13/24: etcd's peer (Raft) traffic (:2380), so that a scenario can cut a
#            member off from its peers alone (blackhole routes)
#   rk-c     eth0 10.77.0.100/24: scenarios.py, its Kafka clients and etcdctl
#
# Environment: ROKKA_BIN (default <repo>/build/rokka; copied into the work dir for the run),
# ROKKA_NETNS_TIMEOUT (seconds for the scenarios, default 300; --replication: 150 + 150 per trial),
# ROKKA_NETNS_KEEP=1 (keep the whole work dir, /tmp/rokka-netns.*, data included, also after a pass;
# after a failure its logs and acks.log are kept anyway),
# ROKKA_NETNS_SCENARIOS (comma list of scenario letters, e.g. "c,f"; a always runs),
# ROKKA_REPL_TRIALS (--replication: trials, default 1).
# Output: one PASS/FAIL line per scenario (per check with --replication), then the closing line
# "N passed, M failed"; exit 1 if any failed. Without root, iproute2's `ip`, etcd or etcdctl (or nft
# for --replication), or where network namespaces cannot be made, it prints SKIPPED and the reason,
# and exits 77 (ctest reports the test skipped, not passed).
set -uo pipefail

readonly HERE=$(cd "$(dirname "$0")" && pwd)
readonly REPO=$(cd "$HERE/../../.." && pwd)
readonly ROKKA_BIN=${ROKKA_BIN:-$REPO/build/rokka}
readonly PY=/usr/bin/python3
readonly HUB=rk-hub
readonly CLIENT=rk-c
readonly MACHINES=(rk-m1 rk-m2 rk-m3)
readonly ALL_NS=("$HUB" "${MACHINES[@]}" "$CLIENT")
readonly NET=10.77.0
readonly PEER_NET=10.77.1

mode=full
case "${1:-}" in
  "") ;;
  --etcd-only) mode=etcd-only ;;
  --cleanup) mode=cleanup ;;
  --replication) mode=replication ;;
  -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
  *) echo "usage: $0 [--etcd-only|--cleanup|--replication]" >&2; exit 2 ;;
esac
readonly TRIALS=${ROKKA_REPL_TRIALS:-1}
[[ "$TRIALS" =~ ^[1-9][0-9]*$ ]] || { echo "ROKKA_REPL_TRIALS must be a positive number" >&2; exit 2; }
if [ "$mode" = replication ]; then
  readonly TIMEOUT=${ROKKA_NETNS_TIMEOUT:-$((150 + 150 * TRIALS))}
else
  readonly TIMEOUT=${ROKKA_NETNS_TIMEOUT:-300}
fi

skip() { echo "SKIPPED: $1"; exit 77; }
[ "$(id -u)" = 0 ] || skip "network namespaces need root (run as root)"
command -v ip >/dev/null 2>&1 || skip "no 'ip' (apt-get install iproute2)"
command -v etcd >/dev/null 2>&1 || skip "no 'etcd' (apt-get install etcd-server)"
command -v etcdctl >/dev/null 2>&1 || skip "no 'etcdctl' (apt-get install etcd-client)"
if [ "$mode" = replication ]; then
  command -v nft >/dev/null 2>&1 || skip "no 'nft' (apt-get install nftables)"
fi

ns_exists() { ip netns list 2>/dev/null | awk -v n="$1" '$1 == n { found = 1 } END { exit !found }'; }

# Every process inside our namespaces was started by a run of this script: end them by id.
kill_ns_processes() {
  local ns pids pid
  for ns in "$@"; do
    ns_exists "$ns" || continue
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] || continue
    for pid in $pids; do kill -TERM "$pid" 2>/dev/null; done
    for _ in $(seq 1 30); do
      pids=$(ip netns pids "$ns" 2>/dev/null); [ -n "$pids" ] || break; sleep 0.1
    done
    for pid in $pids; do kill -KILL "$pid" 2>/dev/null; done
  done
}

delete_namespaces() {
  local ns
  for ns in "${ALL_NS[@]}"; do ns_exists "$ns" && ip netns del "$ns" 2>/dev/null; done
  return 0
}

# One run at a time on this machine.
lock=/run/lock/rokka-netns-test.lock
[ -d /run/lock ] || lock=/tmp/rokka-netns-test.lock
exec 9>"$lock"
flock -n 9 || { echo "another run of $0 holds $lock" >&2; exit 2; }

if [ "$mode" = cleanup ]; then
  kill_ns_processes "${MACHINES[@]}" "$CLIENT" "$HUB"
  delete_namespaces
  echo "removed namespaces ${ALL_NS[*]} (where present) and the processes in them"
  exit 0
fi

# Leftovers of an earlier run: empty namespaces are removed, ones with processes refuse the run.
for ns in "${ALL_NS[@]}"; do
  if ns_exists "$ns"; then
    if [ -n "$(ip netns pids "$ns" 2>/dev/null)" ]; then
      echo "namespace $ns exists and has processes (an earlier run killed with -9?): run '$0 --cleanup' first" >&2
      exit 2
    fi
    ip netns del "$ns" || { echo "cannot remove stale namespace $ns" >&2; exit 2; }
    echo "removed stale empty namespace $ns"
  fi
done

# Can this machine make network namespaces at all (a container without CAP_SYS_ADMIN cannot)?
probe=rk-probe-$$
if ! ip netns add "$probe" 2>/dev/null; then skip "cannot create a network namespace here ('ip netns add' failed)"; fi
ip netns del "$probe"

if [ "$mode" = full ] || [ "$mode" = replication ]; then
  if [ ! -x "$ROKKA_BIN" ]; then echo "FAIL setup: no broker binary $ROKKA_BIN (build it first)"; echo "0 passed, 1 failed"; exit 1; fi
  # The help text captured whole: `--help | grep -q` under pipefail fails when grep exits
  # first and the broker dies of SIGPIPE.
  help_text=$("$ROKKA_BIN" --help 2>/dev/null)
  if [[ "$help_text" != *rokka.cluster.etcd.endpoints* ]]; then
    echo "FAIL setup: $ROKKA_BIN has no cluster mode (its --help lists no rokka.cluster.etcd.endpoints)"
    echo "0 passed, 1 failed"; exit 1
  fi
  if ! "$PY" -c 'import confluent_kafka' 2>/dev/null; then
    echo "FAIL setup: $PY cannot import confluent_kafka (apt-get install python3-confluent-kafka)"
    echo "0 passed, 1 failed"; exit 1
  fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rokka-netns.XXXXXX")
passed=0
failed=0
started=$(date +%s)

finish() {
  local rc=$?
  trap - EXIT INT TERM
  kill_ns_processes "${MACHINES[@]}" "$CLIENT" "$HUB"
  delete_namespaces
  rm -f "$work/rokka"
  if [ -f "$work/result" ]; then read -r passed failed <"$work/result"; fi
  if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
    failed=1
    if [ "$rc" = 130 ]; then echo "FAIL harness: interrupted"; else echo "FAIL harness: the scenarios exited with status $rc"; fi
  fi
  if [ "$failed" != 0 ]; then
    local f
    for f in "$work"/logs/*.log; do
      [ -f "$f" ] || continue
      case "$f" in */etcd-*) n=8 ;; *) n=30 ;; esac
      echo "---- last $n lines of $f"
      tail -n "$n" "$f" | cut -c1-400
    done
    if [ "${ROKKA_NETNS_KEEP:-0}" = 1 ]; then
      echo "work dir kept: $work"
    else
      rm -rf "$work"/data-b* "$work"/etcd-m*   # hundreds of MB; ROKKA_NETNS_KEEP=1 keeps them
      echo "work dir kept (logs, acks.log): $work"
    fi
  elif [ "${ROKKA_NETNS_KEEP:-0}" = 1 ]; then
    echo "work dir kept: $work"
  else
    rm -rf "$work"
  fi
  echo "wall time: $(($(date +%s) - started)) s"
  echo "$passed passed, $failed failed"
  if [ "$failed" != 0 ]; then exit 1; fi
  exit 0
}
trap finish EXIT
trap 'exit 130' INT TERM

setup_fail() { echo "FAIL setup: $1"; failed=1; exit 1; }

# The network: a bridge in rk-hub, a veth pair per namespace (created inside rk-hub, the other
# end moved straight into its namespace), addresses, lo up everywhere.
for ns in "${ALL_NS[@]}"; do ip netns add "$ns" || setup_fail "ip netns add $ns"; done
ip -n "$HUB" link add br0 type bridge || setup_fail "bridge in $HUB"
ip -n "$HUB" link set br0 up || setup_fail "br0 up"
ip -n "$HUB" link set lo up || setup_fail "lo up in $HUB"
addr_of() { case "$1" in rk-m1) echo "$NET.11" ;; rk-m2) echo "$NET.12" ;; rk-m3) echo "$NET.13" ;; rk-c) echo "$NET.100" ;; esac; }
for ns in "${MACHINES[@]}" "$CLIENT"; do
  hub_end="h-${ns#rk-}"
  ip -n "$HUB" link add "$hub_end" type veth peer name eth0 netns "$ns" || setup_fail "veth $hub_end <-> $ns/eth0"
  ip -n "$HUB" link set "$hub_end" master br0 up || setup_fail "$hub_end into br0"
  ip -n "$ns" link set lo up || setup_fail "lo up in $ns"
  ip -n "$ns" addr add "$(addr_of "$ns")/24" dev eth0 || setup_fail "address in $ns"
  case "$ns" in  # a second address for etcd's Raft traffic (peer URLs), so scenarios can cut it alone
    rk-m*) ip -n "$ns" addr add "$PEER_NET.1${ns#rk-m}/24" dev eth0 || setup_fail "peer address in $ns" ;;
  esac
  ip -n "$ns" link set eth0 up || setup_fail "eth0 up in $ns"
done
echo "network: ${ALL_NS[*]} up ($NET.0/24 and $PEER_NET.0/24 on br0 in $HUB) after $(($(date +%s) - started)) s"

mkdir -p "$work/logs"
broker_bin=$ROKKA_BIN
if [ "$mode" != etcd-only ]; then
  # A copy: a rebuild during the run must not change the binary that restarts use.
  cp "$ROKKA_BIN" "$work/rokka" || setup_fail "cannot copy $ROKKA_BIN"
  broker_bin=$work/rokka
fi
args=(--work "$work" --rokka "$broker_bin" --net "$NET" --peer-net "$PEER_NET")
[ "$mode" = etcd-only ] && args+=(--etcd-only)
[ -n "${ROKKA_NETNS_SCENARIOS:-}" ] && args+=(--only "$ROKKA_NETNS_SCENARIOS")
script=$HERE/scenarios.py
if [ "$mode" = replication ]; then
  script=$HERE/replication.py
  args=(--work "$work" --rokka "$broker_bin" --net "$NET" --peer-net "$PEER_NET" --trials "$TRIALS")
fi
# The scenarios run inside rk-c; they start etcd and the brokers in the machine namespaces
# (`ip netns exec rk-mN ...`) and stop them; finish() ends whatever is left, by id.
# In the background so that INT/TERM reach this script at once (timeout runs in a process group
# of its own); the trap passes them on and finish() cleans up.
timeout -k 10 "$TIMEOUT" ip netns exec "$CLIENT" "$PY" -u "$script" "${args[@]}" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 130' INT TERM
wait "$child"
rc=$?
[ "$rc" = 124 ] && echo "FAIL harness: the scenarios ran past ${TIMEOUT} s and were stopped"
if [ "$rc" = 124 ]; then
  p=0 f=0
  [ -f "$work/result" ] && read -r p f <"$work/result"
  echo "$p $((f + 1))" >"$work/result"
fi
exit "$rc"
