#!/usr/bin/env python3
"""Real RFC 6455 peers for the WebSocket tests: the `websockets` package (the reference Python implementation of
RFC 6455 and 7692) or aiohttp's server, on loopback, echoing every message as it came (text as text, binary as
binary). A text message `close:<code>:<reason>` makes the peer close with that code and reason instead.

    websocket_peers.py --peer websockets|aiohttp --deflate on|off   (and LocalServer's --host, --port,
                                                                     --exit-with-stdin)

PyPI packages (scripts/install-deps.sh installs them); not the project's code, only its peers.
"""
import argparse
import asyncio
import socket
import sys

MAX_SIZE = 32 << 20


async def websockets_peer(host, port, deflate, started):
    from websockets.asyncio.server import serve

    async def echo(connection):
        async for message in connection:
            if isinstance(message, str) and message.startswith("close:"):
                _, code, reason = message.split(":", 2)
                await connection.close(int(code), reason)
                return
            await connection.send(message)

    async with serve(echo, host, port, compression="deflate" if deflate else None, max_size=MAX_SIZE,
                     ping_interval=None) as server:
        started(server.sockets[0].getsockname()[1])
        await asyncio.Future()


async def aiohttp_peer(host, port, deflate, started):
    from aiohttp import WSMsgType, web

    async def echo(request):
        connection = web.WebSocketResponse(compress=deflate, max_msg_size=MAX_SIZE, autoping=True)
        await connection.prepare(request)
        async for message in connection:
            if message.type == WSMsgType.TEXT and message.data.startswith("close:"):
                _, code, reason = message.data.split(":", 2)
                await connection.close(code=int(code), message=reason.encode())
            elif message.type == WSMsgType.TEXT:
                await connection.send_str(message.data)
            elif message.type == WSMsgType.BINARY:
                await connection.send_bytes(message.data)
        return connection

    application = web.Application()
    application.router.add_get("/{tail:.*}", echo)
    runner = web.AppRunner(application, access_log=None)
    await runner.setup()
    listener = socket.socket()
    listener.bind((host, port))
    site = web.SockSite(runner, listener)
    await site.start()
    started(listener.getsockname()[1])
    await asyncio.Future()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer", choices=["websockets", "aiohttp"], required=True)
    parser.add_argument("--deflate", choices=["on", "off"], default="on")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--exit-with-stdin", action="store_true")
    arguments = parser.parse_args()

    def started(port):
        print(f"{arguments.peer} peer listening on http://{arguments.host}:{port}", flush=True)

    async def run():
        peer = websockets_peer if arguments.peer == "websockets" else aiohttp_peer
        serving = asyncio.create_task(peer(arguments.host, arguments.port, arguments.deflate == "on", started))
        if arguments.exit_with_stdin:
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
            serving.cancel()
        else:
            await serving

    try:
        asyncio.run(run())
    except asyncio.CancelledError:
        pass


if __name__ == "__main__":
    main()
