"""An ASGI app for the tests that run Connect against hypercorn: it answers every request with
what it received, as JSON: the method, the path, the HTTP version, the body's length, and the
client's port (which tells the connections apart). Under /decode it also undoes the body's
Content-Encoding with Python's own decoders (gzip and zlib, and brotli and zstandard from PyPI)
and adds the decoded body's length and CRC-32, or why it could not decode it. Under /alt-svc it
advertises the alternative services its query names, percent-decoded, in an Alt-Svc field."""
import gzip
import json
import urllib.parse
import zlib

import brotli
import zstandard


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
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    fields = {
        "method": scope["method"],
        "path": scope["path"],
        "version": scope["http_version"],
        "length": len(body),
        "client_port": scope["client"][1],
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
    answer = json.dumps(fields).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]
    if scope["path"].startswith("/alt-svc"):
        headers.append((b"alt-svc", urllib.parse.unquote(scope["query_string"].decode()).encode()))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": answer})
