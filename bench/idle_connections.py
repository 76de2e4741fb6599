#!/usr/bin/env python3
"""Idle connections and a slow-client mix against a running build/rokka.

Opens N idle TCP connections (plus some that trickle one byte of a frame per second
and some half-open ones that send a size prefix and nothing more), then measures a
well-behaved client's ApiVersions round trips while they are all held, and reports
the broker's RSS (VmRSS of --pid) before and after. Bounded: it runs --seconds and
closes everything. Example (RELIABILITY.md):
  ./build/rokka --override listeners=PLAINTEXT://127.0.0.1:19092 --override log.dirs=/tmp/idle-data &
  python3 bench/idle_connections.py --port 19092 --pid $! --connections 10000
"""
import argparse, resource, socket, statistics, struct, time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def api_versions_frame(correlation_id):
    client_id = b"idle-bench"
    body = struct.pack(">hhih", 18, 0, correlation_id, len(client_id)) + client_id  # ApiVersions v0, header v1
    return struct.pack(">i", len(body)) + body


def round_trip(sock, correlation_id):
    start = time.perf_counter()
    sock.sendall(api_versions_frame(correlation_id))
    size = struct.unpack(">i", recv_exact(sock, 4))[0]
    body = recv_exact(sock, size)
    assert struct.unpack(">i", body[:4])[0] == correlation_id
    return time.perf_counter() - start


def recv_exact(sock, n):
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise ConnectionError("closed by broker")
        out += chunk
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--connections", type=int, default=10000)
    ap.add_argument("--tricklers", type=int, default=100)
    ap.add_argument("--half-open", type=int, default=100)
    ap.add_argument("--seconds", type=int, default=10)
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    before = rss_kib(a.pid)
    t0 = time.time()
    idle = []
    for _ in range(a.connections):
        idle.append(socket.create_connection(("127.0.0.1", a.port)))
    opened = time.time() - t0
    tricklers = [socket.create_connection(("127.0.0.1", a.port)) for _ in range(a.tricklers)]
    half_open = [socket.create_connection(("127.0.0.1", a.port)) for _ in range(a.half_open)]
    for s in half_open:
        s.sendall(struct.pack(">i", 100 << 20))  # announces 100 MiB, sends nothing more
    good = socket.create_connection(("127.0.0.1", a.port))
    good.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    frame = api_versions_frame(1)
    latencies = []
    end = time.time() + a.seconds
    sent = 0
    while time.time() < end:
        if sent < len(frame):  # one byte per second per trickler
            for s in tricklers:
                s.sendall(frame[sent:sent + 1])
            sent += 1
        second = time.time() + 1
        while time.time() < second:
            latencies.append(round_trip(good, 7))
            time.sleep(0.01)
    held = rss_kib(a.pid)
    alive = 0
    for s in idle[:: max(1, len(idle) // 100)]:  # a sample of the idle ones still works
        try:
            round_trip(s, 9)
            alive += 1
        except (ConnectionError, OSError):
            pass
    for s in idle + tricklers + half_open + [good]:
        s.close()
    lat = sorted(latencies)
    print(f"connections={a.connections} tricklers={a.tricklers} half_open={a.half_open} opened_in={opened:.1f}s")
    print(f"broker_rss_before={before / 1024:.1f}MiB broker_rss_held={held / 1024:.1f}MiB "
          f"per_connection={(held - before) / max(1, a.connections + a.tricklers + a.half_open):.1f}KiB")
    print(f"good_client round_trips={len(lat)} p50={statistics.median(lat) * 1e3:.2f}ms "
          f"p99={lat[int(len(lat) * 0.99)] * 1e3:.2f}ms max={lat[-1] * 1e3:.2f}ms")
    print(f"idle_sample_answered={alive}/{len(idle[:: max(1, len(idle) // 100)])}")


if __name__ == "__main__":
    main()
