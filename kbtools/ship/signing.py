"""Ed25519 signing of release metadata (`release.json`), via the `cryptography` package.

Key files are PEM: the private key as unencrypted PKCS#8 (mode 0600), the public key as
SubjectPublicKeyInfo in `<name>.pub`. A key id is the first 16 hex digits of the sha256 of
the raw 32-byte public key; `release.sig` names it so a device knows which key to try.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from kbtools.errors import KbError, SyncError
from kbtools.fsutil import atomic_write_bytes

SIG_ALG = "ed25519"


@dataclass(frozen=True)
class PublicKey:
    key_id: str
    key: Ed25519PublicKey
    source: str


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def keygen(out: Path, *, force: bool = False) -> tuple[Path, Path, str]:
    """Write a new private key to `out` and its public key to `out.pub`."""
    pub_path = out.with_name(out.name + ".pub")
    for p in (out, pub_path):
        if p.exists() and not force:
            raise KbError("exists; refusing to overwrite a key (pass --force)", path=str(p))
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(out, pem)
    os.chmod(out, 0o600)
    public = private.public_key()
    atomic_write_bytes(pub_path, public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return out, pub_path, key_id(public)


def load_private(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise KbError(f"cannot read signing key: {exc}", path=str(path)) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KbError("signing key is not an Ed25519 key (make one with `kb keygen`)",
                      path=str(path))
    return key


def load_public(path: Path) -> PublicKey:
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise KbError(f"cannot read public key: {exc}", path=str(path)) from None
    if not isinstance(key, Ed25519PublicKey):
        raise KbError("public key is not an Ed25519 key", path=str(path))
    return PublicKey(key_id(key), key, str(path))


def sign(private: Ed25519PrivateKey, data: bytes) -> bytes:
    """The bytes of a `release.sig` file for `data`."""
    sig = private.sign(data)
    doc = {"alg": SIG_ALG, "key_id": key_id(private.public_key()),
           "signature": base64.b64encode(sig).decode()}
    return (json.dumps(doc, sort_keys=True) + "\n").encode()


def verify(data: bytes, sig_file: bytes | None, keys: list[PublicKey], *, where: str) -> str:
    """Check `sig_file` over `data` against trusted `keys`; return the key id that signed.

    Raises SyncError with a one-line reason when the signature is missing, malformed,
    made by an untrusted key, or does not match.
    """
    if sig_file is None:
        raise SyncError("release is not signed but trusted keys are configured", path=where)
    try:
        doc = json.loads(sig_file)
        raw = base64.b64decode(doc["signature"], validate=True)
        kid = str(doc["key_id"])
        if doc.get("alg") != SIG_ALG:
            raise ValueError(f"algorithm {doc.get('alg')!r}")
    except (ValueError, KeyError, TypeError) as exc:
        raise SyncError(f"release.sig is malformed: {exc}", path=where) from None
    candidates = [k for k in keys if k.key_id == kid]
    if not candidates:
        raise SyncError(f"release signed by untrusted key {kid}", path=where)
    for k in candidates:
        try:
            k.key.verify(raw, data)
            return kid
        except InvalidSignature:
            continue
    raise SyncError(f"bad signature by key {kid}: release.json was altered", path=where)
