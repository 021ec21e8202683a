"""An HTTP proxy that tunnels `CONNECT` requests and nothing else, for Connect's tests: it asks
for Basic credentials `me:secret` (407 without them) and opens every tunnel to 127.0.0.1 at the
target's port, whatever its host: a test that names a host only the proxy "resolves" proves its
connection went through the proxy. Usage: `python3 connect_proxy.py PORT`.
"""

import asyncio
import signal
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def tunnel(reader, writer):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip() for line in lines[1:] if ":" in line}
    if method != "CONNECT":
        writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()
        return
    if headers.get("proxy-authorization") != "Basic bWU6c2VjcmV0":
        writer.write(b'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n'
                     b"Content-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()
        return
    _, port = target.rsplit(":", 1)
    upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", int(port))
    writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
    await writer.drain()
    await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))


async def main():
    server = await asyncio.start_server(tunnel, "127.0.0.1", int(sys.argv[1]))
    async with server:
        await server.serve_forever()


# The test runner may start this with SIGTERM ignored or blocked (both are inherited): the tests
# stop it with SIGTERM.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
asyncio.run(main())
