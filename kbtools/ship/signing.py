"""Ed25519 signing of release metadata (`release.json`), via the `cryptography` package.

Key files are PEM: the private key as unencrypted PKCS#8 (mode 0600), the public key as
SubjectPublicKeyInfo in `<name>.pub`. A key id is the first 16 hex digits of the sha256 of
the raw 32-byte public key; `release.sig` names it so a device knows which key to try.

`release.sig` is ``{"alg", "key_id", "signature"}`` by the signing key, plus
``"cosignatures": [{"key_id", "signature"}]`` by each key a release introduces
(``next_keys`` in release.json: proof that whoever rotates to a key holds it).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

# cryptography is imported where a key is used, not with this module: `kb query` imports the
# release layer (checkouts, trust) but verifies nothing, and the import costs ~20 ms cold
if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

from kbtools.beneath import read_regular
from kbtools.errors import KbError, SyncError
from kbtools.fsutil import atomic_write_bytes
from kbtools.index.manifest import loads_unique

SIG_ALG = "ed25519"
MAX_KEY_BYTES = 64 << 10


@dataclass(frozen=True)
class PublicKey:
    key_id: str
    key: Ed25519PublicKey
    source: str


def key_id(public: Ed25519PublicKey) -> str:
    from cryptography.hazmat.primitives import serialization

    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def keygen(out: Path, *, force: bool = False) -> tuple[Path, Path, str]:
    """Write a new private key to `out` (mode 0600 from the start) and its public key to
    `out.pub`."""
    if not out.name or out.name in (".", ".."):
        raise KbError("the key file needs a name, e.g. keys/release.key", path=str(out))
    pub_path = out.with_name(out.name + ".pub")
    for p in (out, pub_path):
        if p.exists() and not force:
            raise KbError("exists; refusing to overwrite a key (pass --force)", path=str(p))
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public = private.public_key()
    try:
        atomic_write_bytes(out, pem, mode=0o600)
        atomic_write_bytes(pub_path, public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    except OSError as exc:  # a read-only or missing folder, a name the system refuses
        raise KbError(f"cannot write the key: {exc.strerror or exc}",
                      path=str(exc.filename or out)) from None
    return out, pub_path, key_id(public)


def load_private(path: Path) -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise KbError(f"cannot read signing key: {exc}", path=str(path)) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KbError("signing key is not an Ed25519 key (make one with `kb keygen`)",
                      path=str(path))
    return key


def load_public(path: Path) -> PublicKey:
    """A public key file an operator named (a regular file of at most 64 KiB)."""
    try:
        data = read_regular(path, MAX_KEY_BYTES)
    except OSError as exc:
        raise KbError(f"cannot read public key: {exc.strerror}", path=str(path)) from None
    return parse_public(data, str(path))


def parse_public(pem: bytes, source: str) -> PublicKey:
    """A public key from PEM bytes (`source` names where they came from)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_pem_public_key(pem)
    except (ValueError, TypeError):  # the library's words end with a link to its FAQ
        where = pem_problem(pem)
        raise KbError("cannot read public key: " + (f"{where}: " if where else "")
                      + "not a PEM public key (as `kb keygen` writes the .pub file)",
                      path=source) from None
    if not isinstance(key, Ed25519PublicKey):
        raise KbError("public key is not an Ed25519 key", path=source)
    return PublicKey(key_id(key), key, source)


PEM_BEGIN, PEM_END = "-----BEGIN PUBLIC KEY-----", "-----END PUBLIC KEY-----"
BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def pem_problem(pem: bytes) -> str | None:
    """The first line of a public key file that is not as `kb keygen` writes it ("line 3
    is not base64: '…'"), for a file an operator edited by hand; None when its lines look
    right (the key inside is then what is wrong)."""
    lines = pem.decode("utf-8", "replace").split("\n")
    shown = [line.rstrip("\r").strip() for line in lines]
    first = next((i for i, line in enumerate(shown) if line), None)
    if first is None:
        return "the file is empty"
    if shown[first] != PEM_BEGIN:
        return f"line {first + 1} is not {PEM_BEGIN}: {shown[first][:40]!r}"
    for i in range(first + 1, len(shown)):
        if shown[i] == PEM_END:
            extra = next((j for j in range(i + 1, len(shown)) if shown[j]), None)
            return None if extra is None else \
                f"line {extra + 1} follows {PEM_END}: {shown[extra][:40]!r}"
        if shown[i] and not set(shown[i]) <= BASE64:
            return f"line {i + 1} is not base64: {shown[i][:40]!r}"
    return f"no {PEM_END} line after line {first + 1}"


def public_pem(key: PublicKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.key.public_bytes(serialization.Encoding.PEM,
                                serialization.PublicFormat.SubjectPublicKeyInfo)


def public_record(public: Ed25519PublicKey) -> dict[str, str]:
    """How release.json names a key it introduces: ``{"key_id", "public_key"}`` (base64 of
    the raw 32 bytes)."""
    from cryptography.hazmat.primitives import serialization

    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {"key_id": key_id(public), "public_key": base64.b64encode(raw).decode()}


def parse_record(record: object, where: str) -> PublicKey:
    """The key of a `public_record`; its key id must match its bytes."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        if not isinstance(record, dict):
            raise TypeError("not an object")
        raw = base64.b64decode(str(record["public_key"]), validate=True)
        key = Ed25519PublicKey.from_public_bytes(raw)
        if key_id(key) != record["key_id"]:
            raise ValueError("key_id does not match the key")
    except (KeyError, ValueError, TypeError) as exc:
        raise SyncError(f"release.json next_keys entry is malformed: {exc}", path=where,
                        key="sync_next_keys_invalid", values={"release": where}) from None
    return PublicKey(key_id(key), key, f"{where} next_keys")


def sign(private: Ed25519PrivateKey, data: bytes,
         cosigners: tuple[Ed25519PrivateKey, ...] = ()) -> bytes:
    """The bytes of a `release.sig` file for `data` (with cosignatures by `cosigners`)."""
    sig = private.sign(data)
    doc: dict[str, object] = {"alg": SIG_ALG, "key_id": key_id(private.public_key()),
                              "signature": base64.b64encode(sig).decode()}
    if cosigners:
        doc["cosignatures"] = [{"key_id": key_id(c.public_key()),
                                "signature": base64.b64encode(c.sign(data)).decode()}
                               for c in cosigners]
    return (json.dumps(doc, sort_keys=True) + "\n").encode()


def cosigned_by(data: bytes, sig_file: bytes, key: PublicKey) -> bool:
    """Whether `sig_file` holds a valid signature of `data` by `key` (main or cosignature)."""
    from cryptography.exceptions import InvalidSignature

    try:
        doc = loads_unique(sig_file)
        sigs = [doc, *doc.get("cosignatures", [])]
        for entry in sigs:
            if entry.get("key_id") == key.key_id:
                key.key.verify(base64.b64decode(entry["signature"], validate=True), data)
                return True
    except (ValueError, KeyError, TypeError, AttributeError, InvalidSignature):
        return False
    return False


def claimed_signer(sig_file: bytes | None) -> str | None:
    """The key id a release.sig says signed it (nothing checked), None when it names none."""
    try:
        kid = loads_unique(sig_file or b"")["key_id"]
    except (ValueError, KeyError, TypeError):
        return None
    return kid if isinstance(kid, str) else None


def verify(data: bytes, sig_file: bytes | None, keys: list[PublicKey], *, where: str) -> str:
    """Check `sig_file` over `data` against trusted `keys`; return the key id that signed.

    Raises SyncError with a one-line reason when the signature is missing, malformed,
    made by an untrusted key, or does not match.
    """
    from cryptography.exceptions import InvalidSignature

    if sig_file is None:
        raise SyncError("release is not signed, but this device requires a signature by a "
                        "trusted key (`kb trust list`)", path=where, key="sync_unsigned",
                        values={"release": where})
    try:
        doc = loads_unique(sig_file)
        raw = base64.b64decode(doc["signature"], validate=True)
        kid = str(doc["key_id"])
        if doc.get("alg") != SIG_ALG:
            raise ValueError(f"algorithm {doc.get('alg')!r}")
    except (ValueError, KeyError, TypeError) as exc:
        raise SyncError(f"release.sig is malformed: {exc}", path=where,
                        key="sync_signature_malformed", values={"release": where}) from None
    candidates = [k for k in keys if k.key_id == kid]
    if not candidates:
        raise SyncError(f"release signed by untrusted key {kid}", path=where,
                        key="sync_untrusted", values={"release": where, "signer": kid})
    for k in candidates:
        try:
            k.key.verify(raw, data)
            return kid
        except InvalidSignature:
            continue
    raise SyncError(f"bad signature by key {kid}: release.json was altered", path=where,
                    key="sync_bad_signature", values={"release": where, "signer": kid})
