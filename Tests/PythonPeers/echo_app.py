"""An ASGI app for the tests that run Connect against hypercorn: it answers every request with
what it received, as JSON: the method, the path, the HTTP version, the body's length, and the
client's port (which tells the connections apart)."""
import json


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
    answer = json.dumps({
        "method": scope["method"],
        "path": scope["path"],
        "version": scope["http_version"],
        "length": len(body),
        "client_port": scope["client"][1],
    }).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]})
    await send({"type": "http.response.body", "body": answer})
