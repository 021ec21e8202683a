"""NTLM and Negotiate authentication as a Windows server (or proxy) asks for them, for Connect's
tests, run by hypercorn: `ntlm_app:server` answers 401 with `WWW-Authenticate: NTLM`,
`ntlm_app:proxy` 407 with `Proxy-Authenticate: NTLM`, and `ntlm_app:negotiate` and
`ntlm_app:negotiate_proxy` the same with `Negotiate` (SPNEGO carrying NTLM). The handshake is pyspnego's acceptor (not ours), checking the
answer against the account in ntlm_users.txt (user `ops`, password `secret`).

NTLM authenticates a connection, not a request: the negotiate message, the server's challenge
and the client's answer must travel on one connection, so the acceptor is kept per client
address and port. Once authenticated, the request is answered with what arrived:
`user=<name> method=<method> length=<body bytes> crc=<CRC-32 of the body>`.
"""

import base64
import os
import zlib

import spnego
from asgi_support import answer, read_body

os.environ.setdefault("NTLM_USER_FILE", os.path.join(os.path.dirname(os.path.abspath(__file__)), "ntlm_users.txt"))

# The acceptor of each connection, by the client's address and port.
_acceptors: dict = {}


def _starts_over(scheme: str, token: bytes) -> bool:
    """Whether `token` is a handshake's first message: NTLM's negotiate message (type 1), or
    SPNEGO's initial token (an [APPLICATION 0] element)."""
    if scheme == "NTLM":
        return token[8:12] == b"\x01\x00\x00\x00"
    return token[:1] == b"\x60"


def _app(header: bytes, challenge_header: bytes, challenge_status: int, scheme: str = "NTLM"):
    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        connection = tuple(scope.get("client") or ())
        given = dict(scope["headers"]).get(header, b"").decode()

        def challenge(token: bytes = b""):
            value = scheme.encode() + (b" " + base64.b64encode(token) if token else b"")
            return answer(send, challenge_status, b"", [(challenge_header, value)])

        if not given.startswith(scheme + " "):
            _acceptors.pop(connection, None)
            await challenge()
            return
        token = base64.b64decode(given[len(scheme) + 1 :])
        acceptor = _acceptors.get(connection)
        if acceptor is None or _starts_over(scheme, token):
            acceptor = spnego.server(protocol=scheme.lower())
            _acceptors[connection] = acceptor
        try:
            reply = acceptor.step(token)
        except Exception:  # a wrong password, a malformed message
            _acceptors.pop(connection, None)
            await challenge()
            return
        if not acceptor.complete:
            await challenge(reply or b"")
            return
        _acceptors.pop(connection, None)
        text = "user=%s method=%s length=%d crc=%d" % (
            acceptor.client_principal,
            scope["method"],
            len(body),
            zlib.crc32(body),
        )
        await answer(send, 200, text.encode(), [(b"content-type", b"text/plain")])

    return app


server = _app(b"authorization", b"www-authenticate", 401)
proxy = _app(b"proxy-authorization", b"proxy-authenticate", 407)
# SPNEGO (RFC 4559) with NTLM inside, as a Windows server offers it to a client without Kerberos.
negotiate = _app(b"authorization", b"www-authenticate", 401, scheme="Negotiate")
negotiate_proxy = _app(b"proxy-authorization", b"proxy-authenticate", 407, scheme="Negotiate")
