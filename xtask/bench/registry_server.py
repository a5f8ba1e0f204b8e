"""The local HTTPS provider registry and network mirror that `cargo xtask bench install` downloads from.

It publishes one provider package (hashicorp/aws 3.39.0 for one platform) in two layouts, from static
files served by `http.server` over TLS on 127.0.0.1:
- a provider registry: `/.well-known/terraform.json`, the version list, the download metadata naming a
  signing key, and the package's SHA256SUMS with a detached OpenPGP signature (RSA 4096, SHA-256, like
  HashiCorp's) made by a key generated for this run;
- a provider network mirror for `registry.opentofu.org/hashicorp/aws` under `/mirror/`, giving the
  package's `zh:` hash.

The TLS certificate is issued for 127.0.0.1 and localhost by a CA generated for this run and written to
`<dir>/ca.pem`, for `SSL_CERT_FILE` and `curl --cacert`. Everything lives in `<dir>`, which the caller
removes.

Usage: python registry_server.py <package.zip> <dir> <os_arch> [<namespace>/<type>/<version>]
The optional last argument names the provider the package is published as (default hashicorp/aws/3.39.0);
`cargo xtask e2e` serves hashicorp/random 3.6.3 with it.
When ready it prints one JSON line on stdout: {"port", "ca", "registry_host", "mirror_url", "zip_url",
"sha256"}. It serves until it is killed or its stdin closes, so it never outlives the benchmark.
"""

import base64
import datetime
import hashlib
import http.server
import ipaddress
import json
import os
import ssl
import struct
import sys
import threading
import time

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

NAMESPACE, TYPE, VERSION = "hashicorp", "aws", "3.39.0"
MIRRORED_HOST = "registry.opentofu.org"


# --- TLS: a CA and a leaf for 127.0.0.1 ------------------------------------------------------------


def make_pki(directory):
    """Writes ca.pem, leaf.pem and leaf.key into `directory` and returns their paths."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tfp bench install CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                          data_encipherment=False, key_agreement=False, key_cert_sign=True,
                          crl_sign=True, encipher_only=False, decipher_only=False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(leaf_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                         x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(leaf_key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                       critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = {name: os.path.join(directory, name) for name in ("ca.pem", "leaf.pem", "leaf.key")}
    write(paths["ca.pem"], ca.public_bytes(serialization.Encoding.PEM))
    write(paths["leaf.pem"], leaf.public_bytes(serialization.Encoding.PEM))
    write(paths["leaf.key"], leaf_key.private_bytes(serialization.Encoding.PEM,
                                                    serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()))
    return paths


# --- OpenPGP (RFC 4880): an RSA signing key and a detached signature ---------------------------------


def packet(tag, body):
    """A new-format packet with the shortest length encoding."""
    n = len(body)
    if n < 192:
        length = bytes([n])
    elif n < 8384:
        length = bytes([((n - 192) >> 8) + 192, (n - 192) & 0xFF])
    else:
        length = b"\xff" + struct.pack(">I", n)
    return bytes([0xC0 | tag]) + length + body


def mpi(value):
    """A multiprecision integer: its bit count, then its big-endian bytes without leading zeros."""
    return struct.pack(">H", value.bit_length()) + value.to_bytes((value.bit_length() + 7) // 8, "big")


def subpacket(kind, data):
    return bytes([len(data) + 1, kind]) + data


class SigningKey:
    """An RSA key made for this run, with its public key armored as a registry lists it."""

    def __init__(self, user_id):
        self.created = int(time.time()) - 60
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=4096)
        numbers = self.key.public_key().public_numbers()
        # Public-key packet body: version 4, creation time, algorithm 1 (RSA), n, e.
        self.body = b"\x04" + struct.pack(">I", self.created) + b"\x01" + mpi(numbers.n) + mpi(numbers.e)
        self.fingerprint = hashlib.sha1(b"\x99" + struct.pack(">H", len(self.body)) + self.body).digest()
        uid = user_id.encode()
        certification = self.signature(
            0x13,
            b"\x99" + struct.pack(">H", len(self.body)) + self.body + b"\xb4" + struct.pack(">I", len(uid)) + uid,
            # Key flags: certify and sign.
            extra_hashed=subpacket(27, b"\x03"),
        )
        public = packet(6, self.body) + packet(13, uid) + certification
        self.armored = armor("PGP PUBLIC KEY BLOCK", public)

    def signature(self, kind, signed, extra_hashed=b""):
        """A version 4 signature packet of type `kind` over `signed`, with SHA-256."""
        hashed = (subpacket(2, struct.pack(">I", int(time.time()) - 30))
                  + subpacket(33, b"\x04" + self.fingerprint) + extra_hashed)
        head = bytes([4, kind, 1, 8]) + struct.pack(">H", len(hashed)) + hashed
        digest = hashlib.sha256(signed + head + b"\x04\xff" + struct.pack(">I", len(head))).digest()
        value = self.key.sign(digest, padding.PKCS1v15(), utils.Prehashed(hashes.SHA256()))
        unhashed = subpacket(16, self.fingerprint[-8:])
        body = (head + struct.pack(">H", len(unhashed)) + unhashed + digest[:2]
                + mpi(int.from_bytes(value, "big")))
        return packet(2, body)

    def detached(self, document):
        """A binary detached signature over `document`, as HashiCorp publishes SHA256SUMS.sig."""
        return self.signature(0x00, document)


def crc24(data):
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def armor(label, data):
    text = base64.b64encode(data).decode()
    lines = [text[i:i + 64] for i in range(0, len(text), 64)]
    checksum = base64.b64encode(struct.pack(">I", crc24(data))[1:]).decode()
    return "\n".join([f"-----BEGIN {label}-----", "", *lines, "=" + checksum, f"-----END {label}-----", ""])


# --- The published files ------------------------------------------------------------------------------


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def publish(www, package, os_arch, port):
    """Lays out the registry and the mirror under `www` and returns (zip path, sha256)."""
    os_name, arch = os_arch.split("_", 1)
    filename = f"terraform-provider-{TYPE}_{VERSION}_{os_arch}.zip"
    sums_name = f"terraform-provider-{TYPE}_{VERSION}_SHA256SUMS"
    sha = sha256_file(package)
    os.makedirs(os.path.join(www, "dl"), exist_ok=True)
    os.symlink(os.path.abspath(package), os.path.join(www, "dl", filename))
    sums = f"{'0' * 64}  terraform-provider-{TYPE}_{VERSION}_other_arch.zip\n{sha}  {filename}\n"
    write(os.path.join(www, "dl", sums_name), sums)
    key = SigningKey("tfp bench install <bench@example.invalid>")
    write(os.path.join(www, "dl", sums_name + ".sig"), key.detached(sums.encode()))

    write(os.path.join(www, ".well-known", "terraform.json"), json.dumps({"providers.v1": "/v1/providers/"}))
    base = os.path.join(www, "v1", "providers", NAMESPACE, TYPE)
    write(os.path.join(base, "versions"), json.dumps({"versions": [
        {"version": VERSION, "protocols": ["5.0"], "platforms": [{"os": os_name, "arch": arch}]},
    ]}))
    write(os.path.join(base, VERSION, "download", os_name, arch), json.dumps({
        "protocols": ["5.0"],
        "os": os_name,
        "arch": arch,
        "filename": filename,
        "download_url": f"https://127.0.0.1:{port}/dl/{filename}",
        "shasums_url": f"https://127.0.0.1:{port}/dl/{sums_name}",
        "shasums_signature_url": f"https://127.0.0.1:{port}/dl/{sums_name}.sig",
        "shasum": sha,
        "signing_keys": {"gpg_public_keys": [
            {"key_id": key.fingerprint[-8:].hex().upper(), "ascii_armor": key.armored, "source": "bench"},
        ]},
    }))

    mirror = os.path.join(www, "mirror", MIRRORED_HOST, NAMESPACE, TYPE)
    write(os.path.join(mirror, "index.json"), json.dumps({"versions": {VERSION: {}}}))
    write(os.path.join(mirror, f"{VERSION}.json"), json.dumps({"archives": {
        os_arch: {"url": f"../../../../dl/{filename}", "hashes": [f"zh:{sha}"]},
    }}))
    return f"https://127.0.0.1:{port}/dl/{filename}", sha


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files, with JSON answers labelled as such (the registry protocol requires it)."""

    protocol_version = "HTTP/1.1"

    def guess_type(self, path):
        if path.endswith(".json") or "/v1/" in path:
            return "application/json"
        return "application/octet-stream"

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that hangs up mid-body is not news; anything else goes to stderr.
        if not isinstance(sys.exc_info()[1], (ConnectionError, ssl.SSLError)):
            super().handle_error(request, client_address)


def main():
    global NAMESPACE, TYPE, VERSION
    package, directory, os_arch = sys.argv[1:4]
    if len(sys.argv) > 4:
        NAMESPACE, TYPE, VERSION = sys.argv[4].split("/")
    os.makedirs(directory, exist_ok=True)
    pki = make_pki(directory)
    www = os.path.join(directory, "www")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki["leaf.pem"], pki["leaf.key"])
    server = Server(("127.0.0.1", 0), lambda *a: Handler(*a, directory=www))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    port = server.server_address[1]
    zip_url, sha = publish(www, package, os_arch, port)

    def exit_when_stdin_closes():
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    print(json.dumps({
        "port": port,
        "ca": pki["ca.pem"],
        "registry_host": f"127.0.0.1:{port}",
        "mirror_url": f"https://127.0.0.1:{port}/mirror/",
        "zip_url": zip_url,
        "sha256": sha,
    }), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
