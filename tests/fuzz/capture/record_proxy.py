#!/usr/bin/env python3
"""A recording TCP proxy for fuzz seeds: clients connect here, bytes go both ways
unchanged to the broker, and each distinct client->broker request frame (header and
body, without the 4-byte size prefix: what fuzz_request takes) is written to OUT as
api<key>_v<version>_<sha1 prefix>, at most --per-version of each API version. Start the broker with advertised.listeners set to
this proxy's address so that clients come back through it after Metadata.

    python3 record_proxy.py --listen 127.0.0.1:29300 --upstream 127.0.0.1:29301 --out DIR
"""
import argparse
import asyncio
import hashlib
import os
import struct


def address(text):
    host, port = text.rsplit(":", 1)
    return host, int(port)


async def pump_responses(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


saved = {}  # (api key, version) -> frames written


async def pump_requests(reader, writer, out, per_version):
    try:
        while True:
            size_bytes = await reader.readexactly(4)
            (size,) = struct.unpack(">i", size_bytes)
            if size < 8 or size > 100 << 20:  # not a request we want as a seed: pass it on raw
                writer.write(size_bytes)
                continue
            frame = await reader.readexactly(size)
            key, version = struct.unpack(">hh", frame[:4])
            name = f"api{key:02d}_v{version}_{hashlib.sha1(frame).hexdigest()[:12]}"
            path = os.path.join(out, name)
            if not os.path.exists(path) and saved.get((key, version), 0) < per_version:
                saved[(key, version)] = saved.get((key, version), 0) + 1
                with open(path, "wb") as f:
                    f.write(frame)
            writer.write(size_bytes + frame)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", type=address, required=True)
    ap.add_argument("--upstream", type=address, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-version", type=int, default=6)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    async def on_client(client_reader, client_writer):
        broker_reader, broker_writer = await asyncio.open_connection(*args.upstream)
        await asyncio.gather(pump_requests(client_reader, broker_writer, args.out, args.per_version),
                             pump_responses(broker_reader, client_writer))

    server = await asyncio.start_server(on_client, *args.listen)
    print(f"recording proxy: {args.listen} -> {args.upstream}, frames to {args.out}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
