"""Regenerates the test certificates: python3 generate.py (needs the `cryptography` package).

ca            a test CA (the tests trust it through a custom CA bundle)
server        localhost / 127.0.0.1, signed by the CA, valid until 2045
server2       the same names, another key, signed by the CA (a redirect target for pin tests)
expired       signed by the CA, expired in 2021
selfsigned    not signed by the CA
client-ca     the CA that nginx trusts for client certificates
client        a client certificate signed by client-ca, for mutual TLS
pins.txt      the SPKI SHA-256 pins of server and server2, as libcurl takes them
"""
import base64
import datetime
import hashlib
import ipaddress

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

def key():
    return ec.generate_private_key(ec.SECP256R1())

def write(name, certificate, private_key):
    with open(f"{name}.pem", "wb") as f:
        f.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(f"{name}.key", "wb") as f:
        f.write(private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))

def certificate(subject, issuer_name, public_key, signing_key, not_before, not_after, ca=False, server=True):
    builder = (x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if server and not ca:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    return builder.sign(signing_key, hashes.SHA256())

def pin(private_key):
    spki = private_key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return "sha256//" + base64.b64encode(hashlib.sha256(spki).digest()).decode()

now = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
later = datetime.datetime(2045, 1, 1, tzinfo=datetime.timezone.utc)

ca_key = key()
ca = certificate("Connect Test CA", "Connect Test CA", ca_key.public_key(), ca_key, now, later, ca=True)
write("ca", ca, ca_key)

server_key = key()
write("server", certificate("localhost", "Connect Test CA", server_key.public_key(), ca_key, now, later), server_key)
server2_key = key()
write("server2", certificate("localhost", "Connect Test CA", server2_key.public_key(), ca_key, now, later), server2_key)
expired_key = key()
write("expired", certificate("localhost", "Connect Test CA", expired_key.public_key(), ca_key,
                             datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc),
                             datetime.datetime(2021, 1, 1, tzinfo=datetime.timezone.utc)), expired_key)
self_key = key()
write("selfsigned", certificate("localhost", "localhost", self_key.public_key(), self_key, now, later), self_key)

client_ca_key = key()
client_ca = certificate("Connect Test Client CA", "Connect Test Client CA", client_ca_key.public_key(), client_ca_key, now, later, ca=True)
write("client-ca", client_ca, client_ca_key)
client_key = key()
write("client", certificate("connect-test-client", "Connect Test Client CA", client_key.public_key(), client_ca_key, now, later, server=False), client_key)

with open("pins.txt", "w") as f:
    f.write(f"server {pin(server_key)}\nserver2 {pin(server2_key)}\n")
