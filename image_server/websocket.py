"""image_server's WebSocket (RFC 6455, no extension): a chat room of one.

    GET /ws/echo    the handshake (a GET with Upgrade: websocket and a key), then each text message comes back as
                    `you said: <text>` and each binary message as it is; pings are answered; a close frame is
                    answered with its code, which ends the connection.
"""
import base64
import hashlib
import struct

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def route(handler, parts):
    """Handles /ws/echo; returns False for any other path."""
    if parts != ["ws", "echo"] or handler.command != "GET":
        return False
    key = handler.headers.get("Sec-WebSocket-Key")
    if handler.headers.get("Upgrade", "").lower() != "websocket" or not key:
        handler.send_error_json(426, "a WebSocket handshake is expected here")
        return True
    handler.send_response(101)
    handler.send_header("Upgrade", "websocket")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Sec-WebSocket-Accept", base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode())
    handler.end_headers()
    handler.wfile.flush()
    handler.close_connection = True
    try:
        echo(handler.rfile, handler.wfile)
    except (ConnectionError, OSError, ValueError):
        pass  # the client left, or broke the protocol: the connection ends either way
    return True


def echo(reader, writer):
    message, kind = b"", 0
    while True:
        fin, opcode, payload = read_frame(reader)
        if opcode == 0x9:
            send(writer, 0xA, payload)
        elif opcode == 0x8:
            send(writer, 0x8, payload[:2])
            return
        elif opcode in (0x0, 0x1, 0x2):
            kind = opcode or kind
            message += payload
            if fin:
                send(writer, kind, b"you said: " + message if kind == 0x1 else message)
                message = b""


def read_frame(reader):
    head = reader.read(2)
    if len(head) < 2:
        raise ConnectionError("the client left")
    length = head[1] & 0x7F
    if length == 126:
        length = struct.unpack("!H", reader.read(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", reader.read(8))[0]
    if not head[1] & 0x80 or length > 16 << 20:
        raise ValueError("an unmasked or oversized client frame")
    key = reader.read(4)
    payload = reader.read(length)
    mask = (key * (length // 4 + 1))[:length]
    if length:
        payload = (int.from_bytes(payload, "big") ^ int.from_bytes(mask, "big")).to_bytes(length, "big")
    return bool(head[0] & 0x80), head[0] & 0x0F, payload


def send(writer, opcode, payload):
    length = len(payload)
    if length < 126:
        head = struct.pack("!BB", 0x80 | opcode, length)
    elif length < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 126, length)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, length)
    writer.write(head + payload)
    writer.flush()
