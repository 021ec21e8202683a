"""What the tests' ASGI apps (echo_app, fault_app, ntlm_app) share: the lifespan handshake,
reading a request's whole body, and answering with a body of known length."""


async def serve_lifespan(receive, send):
    """Answers hypercorn's or uvicorn's startup and shutdown messages, until shutdown."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def read_body(receive):
    """The request's body, all of it."""
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body", False):
            return body


async def answer(send, status, body, headers=()):
    """A response of `status` with `headers` and `body`, its Content-Length added."""
    await send({"type": "http.response.start", "status": status,
                "headers": list(headers) + [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
