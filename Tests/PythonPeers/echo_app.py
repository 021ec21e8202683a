"""An ASGI app for the tests that run Connect against hypercorn: it answers every request with
what it received, as JSON: the method, the path, the HTTP version, the body's length, and the
client's port (which tells the connections apart), and its X-Marker header (null without one). Under /decode it also undoes the body's
Content-Encoding with Python's own decoders (gzip and zlib, and brotli and zstandard from PyPI)
and adds the decoded body's length and CRC-32, or why it could not decode it. Under /alt-svc it
advertises the alternative services its query names, percent-decoded, in an Alt-Svc field. Under
/bytes/N it answers N bytes (byte i is i % 251) in 64 KiB pieces, and under /events/N N
Server-Sent Events whose data is their number, without echoing; under /cached its answer may be
cached for ten minutes."""
import gzip
import json
import urllib.parse
import zlib

import brotli
import zstandard
from asgi_support import answer, read_body, serve_lifespan


def decoded(body, coding):
    if coding == "gzip":
        return gzip.decompress(body)
    if coding == "deflate":
        return zlib.decompress(body)
    if coding == "br":
        return brotli.decompress(body)
    if coding == "zstd":
        return zstandard.ZstdDecompressor().decompressobj().decompress(body)
    raise ValueError("unknown coding " + coding)


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        await serve_lifespan(receive, send)
        return
    if scope["path"].startswith("/bytes/") or scope["path"].startswith("/events/"):
        await generated(scope["path"], send)
        return
    body = await read_body(receive)
    fields = {
        "method": scope["method"],
        "path": scope["path"],
        "version": scope["http_version"],
        "length": len(body),
        "client_port": scope["client"][1],
        "marker": next((value.decode() for name, value in scope["headers"] if name.lower() == b"x-marker"), None),
    }
    if scope["path"].startswith("/decode"):
        headers = dict((name.decode().lower(), value.decode()) for name, value in scope["headers"])
        encoding = headers.get("content-encoding", "")
        fields["content_encoding"] = encoding
        fields["chunked"] = "content-length" not in headers
        try:
            # Codings apply in the order listed, so they come off from the last.
            for coding in reversed([c.strip() for c in encoding.split(",") if c.strip()]):
                body = decoded(body, coding)
            fields["decoded_length"] = len(body)
            fields["decoded_crc32"] = zlib.crc32(body)
        except Exception as error:
            fields["error"] = repr(error)
    echoed = json.dumps(fields).encode()
    headers = [(b"content-type", b"application/json")]
    if scope["path"].startswith("/cached"):
        headers.append((b"cache-control", b"max-age=600"))
    if scope["path"].startswith("/alt-svc"):
        headers.append((b"alt-svc", urllib.parse.unquote(scope["query_string"].decode()).encode()))
    await answer(send, 200, echoed, headers)


async def generated(path, send):
    kind, count = path.split("/")[1], int(path.split("/")[2])
    if kind == "bytes":
        period = bytes(i % 251 for i in range(251 * 261))  # 65,511 bytes, a whole number of periods
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/octet-stream"),
                                (b"content-length", str(count).encode())]})
        sent = 0
        while sent < count:
            piece = period[:min(len(period), count - sent)]
            sent += len(piece)
            await send({"type": "http.response.body", "body": piece, "more_body": sent < count})
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]})
    for number in range(count):
        await send({"type": "http.response.body", "body": b"data: %d\n\n" % number, "more_body": True})
    await send({"type": "http.response.body", "body": b""})
