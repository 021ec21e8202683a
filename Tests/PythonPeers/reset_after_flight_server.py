"""A TLS server that sends its first flight of the handshake (its certificate among it) and then
resets the connection, for Connect's test of a refused certificate whose alert cannot be sent:
the client reads the certificate, refuses it, and fails to send its alert. Usage:
`python3 reset_after_flight_server.py PORT CERTFILE KEYFILE`.
"""

import socket
import ssl
import struct
import sys
import threading

port, certfile, keyfile = int(sys.argv[1]), sys.argv[2], sys.argv[3]

context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(certfile, keyfile)


def serve(connection):
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_side=True)
    try:
        while not outgoing.pending:
            data = connection.recv(65536)
            if not data:
                return
            incoming.write(data)
            try:
                tls.do_handshake()
            except ssl.SSLWantReadError:
                pass
        connection.sendall(outgoing.read())
        # A reset rather than a close: the client's next send fails at once.
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except (OSError, ssl.SSLError):
        pass
    finally:
        connection.close()


listener = socket.create_server(("127.0.0.1", port))
while True:
    accepted, _ = listener.accept()
    threading.Thread(target=serve, args=(accepted,), daemon=True).start()
