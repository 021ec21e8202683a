"""An ASGI app whose faults the tests script, for Connect's rules under load (retry budget, hedging,
circuit breaking, idempotency keys, coalescing) against a server nobody here wrote (hypercorn):

- GET /item/<name>: 200 with "<name>", or 503 while the outage is on.
- GET /slow-first/<name>: the first request for a name waits (30 s, or until its client leaves);
  later ones answer at once with "attempt <n>".
- GET /held/<name>: waits until POST /release/<name> (or its client leaves), then answers "<name>".
- POST /pay: the first two attempts with each Idempotency-Key answer 503, the third 201 with the
  key; a request without a key is refused with 400.
- POST /outage/on and /outage/off switch the outage.
- GET /stats: JSON with the requests each path received ("requests"), the requests whose client
  left before the answer ("left"), and the bodies received with each idempotency key ("keys").
"""
import asyncio
import json
from collections import defaultdict

from asgi_support import read_body, serve_lifespan
from asgi_support import answer as answer_with_headers

requests = defaultdict(int)
left = defaultdict(int)
keys = defaultdict(list)
released = defaultdict(asyncio.Event)
outage = False


async def until_done_or_left(receive, work):
    """Runs `work` unless the client leaves first; True when it left."""
    job = asyncio.ensure_future(work)
    leaving = asyncio.ensure_future(receive())
    done, pending = await asyncio.wait({job, leaving}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    return leaving in done and leaving.result().get("type") == "http.disconnect"


async def answer(send, status, body, content_type=b"text/plain"):
    await answer_with_headers(send, status, body, [(b"content-type", content_type)])


async def app(scope, receive, send):
    global outage
    if scope["type"] == "lifespan":
        await serve_lifespan(receive, send)
        return
    path = scope["path"]
    body = await read_body(receive)
    headers = dict((name.decode().lower(), value.decode()) for name, value in scope["headers"])
    if path == "/stats":
        await answer(send, 200, json.dumps({"requests": requests, "left": left, "keys": keys}).encode(),
                     b"application/json")
        return
    if path in ("/outage/on", "/outage/off"):
        outage = path == "/outage/on"
        await answer(send, 204, b"")
        return
    if path.startswith("/release/"):
        released[path[len("/release/"):]].set()
        await answer(send, 204, b"")
        return
    requests[path] += 1
    if path.startswith("/item/"):
        if outage:
            await answer(send, 503, b"down")
        else:
            await answer(send, 200, path[len("/item/"):].encode())
    elif path.startswith("/slow-first/"):
        attempt = requests[path]
        if attempt == 1 and await until_done_or_left(receive, asyncio.sleep(30)):
            left[path] += 1
            return
        await answer(send, 200, f"attempt {attempt}".encode())
    elif path.startswith("/held/"):
        name = path[len("/held/"):]
        if await until_done_or_left(receive, released[name].wait()):
            left[path] += 1
            return
        await answer(send, 200, name.encode())
    elif path == "/pay":
        key = headers.get("idempotency-key")
        if key is None:
            await answer(send, 400, b"no key")
            return
        keys[key].append(body.decode())
        if len(keys[key]) < 3:
            await answer(send, 503, b"try again")
        else:
            await answer(send, 201, key.encode())
    else:
        await answer(send, 404, b"")
