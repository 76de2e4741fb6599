# Sourced by the wiregen scripts that start and restart a Rokka (restart_ab.sh, upgrade.sh): the
# broker on 127.0.0.1:$PORT with /readyz on $HPORT, its log appended to $WORK/rokka.log. The caller
# sets PORT, HPORT and WORK; these set PID and READY.
now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

start() {  # binary data_dir: READY = seconds from the fork to /readyz 200 (store open, listening)
  local started
  started=$(now)
  "$1" --override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "log.dirs=$2" --override store.flush.mode=async \
    --override "rokka.http.listeners=127.0.0.1:$HPORT" >>"$WORK/rokka.log" 2>&1 &
  PID=$!
  until curl -sf -m 1 "http://127.0.0.1:$HPORT/readyz" >/dev/null 2>&1; do
    kill -0 "$PID" 2>/dev/null || { echo "rokka exited; log: $WORK/rokka.log" >&2; tail -5 "$WORK/rokka.log" >&2; exit 1; }
    sleep 0.05
  done
  READY=$(python3 -c "print(round($(now) - $started, 3))")
}
stop() { kill -TERM "$PID"; wait "$PID" || true; PID=; }           # clean stop (SIGTERM)
kill9() { kill -KILL "$PID"; wait "$PID" 2>/dev/null || true; PID=; }  # crash
