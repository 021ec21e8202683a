"""A WebSocket server on Python's `websockets` (PyPI) for the Autobahn|Testsuite's compression
cases (sections 12 and 13): it negotiates permessage-deflate (RFC 7692) with the parameters on
its command line and, when the client sends `series KIND SIZE COUNT FRAGMENT`, sends COUNT
messages of about SIZE bytes of one kind of data (in fragments of FRAGMENT bytes unless 0), each
once the client has echoed the one before, and checks every echo. It ends a series with
`ok COUNT <the parameters in use>` or `mismatch INDEX`.

Usage: python3 websocket_compression_peer.py PORT [--client-max-window-bits N]
[--client-no-context-takeover] [--server-max-window-bits N] [--server-no-context-takeover]

The kinds, after Autobahn's test files: `json` (text), `bitmap` (binary runs, like a black and
white image), `prose` (German text sent as binary, like Goethe's Faust), `html` (text) and
`noise` (random binary, which does not compress, like the PDF).
"""

import argparse
import asyncio
import functools
import json
import random
import signal

from websockets.asyncio.server import serve
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory

WORDS = ["Habe", "nun", "ach", "Philosophie", "Juristerei", "und", "Medizin", "leider", "auch", "Theologie",
         "durchaus", "studiert", "mit", "heißem", "Bemühn", "Da", "steh", "ich", "armer", "Tor", "bin", "so",
         "klug", "als", "wie", "zuvor", "Größe", "Übermut", "schön"]


def part(kind, rng, seq):
    """One piece of a text kind: a JSON object, an HTML list item, or a sentence."""
    if kind == "json":
        return json.dumps({"id": seq, "seq": seq % 97, "user": rng.choice(["ada", "grace", "linus"]),
                           "text": " ".join(rng.choices(WORDS, k=5)), "score": round(rng.random(), 4)})
    if kind == "html":
        return f'<li class="item-{rng.randint(0, 9)}"><a href="/w/{rng.choice(WORDS)}">{rng.choice(WORDS)}</a></li>\n'
    return " ".join(rng.choices(WORDS, k=8)) + ". "


@functools.cache
def parts(kind):
    """The pieces a text kind's messages are drawn from, made once: making each piece anew cost
    most of a series' time."""
    rng = random.Random(kind)
    return [part(kind, rng, seq) for seq in range(512)]


def payload(kind, size, index):
    """Message `index` of a series: different each time, so that context takeover matters."""
    rng = random.Random(f"{kind}-{size}-{index}")
    if kind == "noise":
        return rng.randbytes(size)
    if kind == "bitmap":
        out = bytearray()
        while len(out) < size:
            out += bytes([rng.choice([0x00, 0xFF])]) * rng.randint(1, 40)
        return bytes(out[:size])
    # Enough pieces for `size` bytes (each is at least 20), in an order of the message's own;
    # then at most `size` bytes, cut at a character's boundary.
    text = f"{index} " + "".join(rng.choices(parts(kind), k=size // 20 + 1))
    text = text.encode()[:size].decode(errors="ignore")
    return text.encode() if kind == "prose" else text


def fragments(message, size):
    return [message[start:start + size] for start in range(0, len(message), size)]


async def handler(websocket):
    async for command in websocket:
        words = command.split() if isinstance(command, str) else []
        if len(words) != 5 or words[0] != "series":
            await websocket.send("unknown command")
            continue
        kind, size, count, fragment = words[1], int(words[2]), int(words[3]), int(words[4])
        verdict = None
        for index in range(count):
            message = payload(kind, size, index)
            await websocket.send(fragments(message, fragment) if fragment else message)
            if await websocket.recv() != message:
                verdict = f"mismatch {index}"
                break
        if verdict is None:
            deflate = websocket.protocol.extensions
            verdict = f"ok {count} " + (", ".join(
                f"client_no_context_takeover={e.remote_no_context_takeover} "
                f"server_no_context_takeover={e.local_no_context_takeover} "
                f"client_max_window_bits={e.remote_max_window_bits} "
                f"server_max_window_bits={e.local_max_window_bits}" for e in deflate) or "no extension")
        await websocket.send(verdict)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--client-max-window-bits", type=int)
    parser.add_argument("--client-no-context-takeover", action="store_true")
    parser.add_argument("--server-max-window-bits", type=int)
    parser.add_argument("--server-no-context-takeover", action="store_true")
    arguments = parser.parse_args()
    deflate = ServerPerMessageDeflateFactory(
        server_no_context_takeover=arguments.server_no_context_takeover,
        client_no_context_takeover=arguments.client_no_context_takeover,
        server_max_window_bits=arguments.server_max_window_bits,
        client_max_window_bits=arguments.client_max_window_bits)
    async with serve(handler, "127.0.0.1", arguments.port, extensions=[deflate], max_size=2**24):
        await asyncio.Future()


# The test runner may start this with SIGTERM ignored or blocked (both are inherited): the tests
# stop it with SIGTERM.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
asyncio.run(main())
