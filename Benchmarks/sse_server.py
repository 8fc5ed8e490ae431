#!/usr/bin/env python3
"""The event-stream server of the open-streams benchmark (Benchmarks/stream_open.py): asyncio, standard library.

GET /events answers with a Server-Sent Events stream: "data: first" at once, then nothing until GET /release, after
which every open stream gets "data: last" and ends (the server closes the connection). One server per measured run.
Prints "sse_server listening on http://127.0.0.1:<port>"; exits when standard input closes.
"""
import asyncio
import resource
import sys

HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
        b"Connection: close\r\n\r\n")


async def main():
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    released = asyncio.Event()

    async def handle(reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            path = head.split(b" ", 2)[1]
            if path == b"/events":
                writer.write(HEAD + b"data: first\n\n")
                await writer.drain()
                await released.wait()
                writer.write(b"data: last\n\n")
            elif path == b"/release":
                released.set()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nreleased")
            else:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, IndexError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=65535)
    print(f"sse_server listening on http://127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.buffer.read)


if __name__ == "__main__":
    asyncio.run(main())
