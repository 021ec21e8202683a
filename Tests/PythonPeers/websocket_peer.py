"""A WebSocket server built on the `websockets` package (PyPI), for Connect's tests: an
implementation nobody here wrote. Usage: `python3 websocket_peer.py PORT [--tls CERT KEY]`.

It echoes every message and obeys text commands: `cmd:close CODE REASON` closes with that code
and reason, `cmd:subprotocol` answers with the subprotocol chosen, `cmd:compression` with the
extensions negotiated, `cmd:big BYTES` sends one binary message of that size, `cmd:fragments`
sends a text message in three fragments. `chat` is the subprotocol it chooses when offered;
permessage-deflate is negotiated when the client offers it (websockets' default).
"""

import asyncio
import signal
import ssl
import sys

from websockets.asyncio.server import serve


async def handler(websocket):
    async for message in websocket:
        if isinstance(message, str) and message.startswith("cmd:"):
            words = message[4:].split(" ", 2)
            if words[0] == "close":
                await websocket.close(int(words[1]), words[2] if len(words) > 2 else "")
                return
            if words[0] == "subprotocol":
                await websocket.send(str(websocket.subprotocol))
            elif words[0] == "compression":
                await websocket.send(", ".join(type(e).__name__ for e in websocket.protocol.extensions) or "none")
            elif words[0] == "big":
                await websocket.send(bytes(i % 251 for i in range(int(words[1]))))
            elif words[0] == "fragments":
                await websocket.send(["frag", "ment", "ed ✓"])
            else:
                await websocket.send("unknown command")
        else:
            await websocket.send(message)


async def main():
    port = int(sys.argv[1])
    context = None
    if len(sys.argv) > 2 and sys.argv[2] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
    async with serve(handler, "127.0.0.1", port, ssl=context, subprotocols=["chat"], max_size=2**26):
        await asyncio.Future()


# The test runner may start this with SIGTERM ignored or blocked (both are inherited): the tests
# stop it with SIGTERM.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
asyncio.run(main())
