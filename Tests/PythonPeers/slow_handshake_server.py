"""An HTTPS/1.1 server whose TLS handshakes are slow, for Connect's tests of connecting after a
wait: it accepts each connection at once and begins its TLS handshake only after
HANDSHAKE_DELAY seconds, so the client spends that long connecting. It answers `/busy` after
BUSY_DELAY seconds more and every other path at once, each with `Connection: close`; the body is
the path and how many requests for it came so far (`/next 1`), which shows a request that went
out twice. Usage: `python3 slow_handshake_server.py PORT CERTFILE KEYFILE HANDSHAKE_DELAY BUSY_DELAY`.
"""

import socket
import ssl
import sys
import threading
import time
from collections import Counter

port, certfile, keyfile = int(sys.argv[1]), sys.argv[2], sys.argv[3]
handshake_delay, busy_delay = float(sys.argv[4]), float(sys.argv[5])

context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(certfile, keyfile)
context.set_alpn_protocols(["http/1.1"])
counts = Counter()
counts_lock = threading.Lock()


def serve(connection):
    try:
        time.sleep(handshake_delay)
        with context.wrap_socket(connection, server_side=True) as tls:
            head = b""
            while b"\r\n\r\n" not in head:
                data = tls.recv(65536)
                if not data:
                    return
                head += data
            path = head.split(b" ", 2)[1].decode("latin-1")
            with counts_lock:
                counts[path] += 1
                body = f"{path} {counts[path]}".encode()
            if path == "/busy":
                time.sleep(busy_delay)
            tls.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/plain\r\n"
                        + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    except (OSError, ssl.SSLError):
        pass
    finally:
        connection.close()


listener = socket.create_server(("127.0.0.1", port))
while True:
    accepted, _ = listener.accept()
    threading.Thread(target=serve, args=(accepted,), daemon=True).start()
