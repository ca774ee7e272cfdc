"""Where every file of a built release and of a device directory lives: one place, no literals.

A release directory (``dist/``, ``DEVICE/releases/<tag>/``)::

    manifest.json             format/tool versions, fingerprints, sha256+size of every file
    release.json, release.sig serial, tag, source commit (+ signature) — written by `kb release`
    verified.json             what a device checked, and when (device copies only)
    data/                     the shipped content ("artifacts" in the manifest)
      chunks/<xx>.jsonl       chunk records sharded by sha256(doc)[:2]
      vectors/<model>/<xx>.npy  float16 vectors, same shards and row order
      docs.jsonl              one record per document
      dictionary.txt          the tokenizer's domain dictionary
      source/<doc>            the Markdown sources
      formulas/<sha>.svg, tables/<name>.csv
    index/                    derived from data/ by `materialize` ("derived" in the manifest)
      store.sqlite, bm25/, vectors-<model>.usearch  (checked by `kbtools.index.selfcheck`)

A device directory (``kb sync --to DIR``)::

    releases/<tag>/           verified releases (the layout above)
    releases/<tag>.staging/   a release being exported and verified
    current                   symlink -> releases/<tag>, replaced by one rename
    repo.git/ trusted_keys/ state.json rollback.log trust.log .lock

This module only names paths and reads the `current` pointer; writing a device directory is
`kbtools.ship.device`'s job.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from kbtools.config import kb_home

MANIFEST = "manifest.json"
RELEASE_JSON = "release.json"
RELEASE_SIG = "release.sig"
VERIFIED = "verified.json"
DATA_DIR = "data"
DERIVED_DIR = "index"
SOURCE_DIR = "source"
FORMULA_DIR = "formulas"
TABLE_DIR = "tables"
CHUNK_DIR = "chunks"
VECTOR_DIR = "vectors"
DOCS = "docs.jsonl"
DICTIONARY = "dictionary.txt"
STORE = "store.sqlite"
BM25_DIR = "bm25"
BM25_VOCAB = "kb_vocab.json"
BM25_TOKENS = "kb_tokens.npy"  # every chunk's term ids (our vocabulary), concatenated
BM25_OFFSETS = "kb_offsets.npy"  # where each chunk's ids start in BM25_TOKENS (n + 1)
SHARD_SUFFIX = ".jsonl"
SHARD_CHARS = 2  # 256 shards by sha256(doc): an edit rewrites one shard

CURRENT = "current"
RELEASES = "releases"
REPO = "repo.git"
TRUSTED = "trusted_keys"
STATE = "state.json"
ROLLBACK_LOG = "rollback.log"
TRUST_LOG = "trust.log"
STAGING_SUFFIX = ".staging"
LOCK = ".lock"


def shard_of(doc: str) -> str:
    """The shard of a document's chunks (any str, even one a file name's undecodable bytes
    left lone surrogates in)."""
    return hashlib.sha256(doc.encode("utf-8", "surrogatepass")).hexdigest()[:SHARD_CHARS]


@dataclass(frozen=True)
class ReleaseLayout:
    """The paths of one release directory (a build's ``dist/`` or a device's release)."""

    root: Path

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST

    @property
    def release_json(self) -> Path:
        return self.root / RELEASE_JSON

    @property
    def release_sig(self) -> Path:
        return self.root / RELEASE_SIG

    @property
    def verified(self) -> Path:
        return self.root / VERIFIED

    # data/ ---------------------------------------------------------------------------
    @property
    def data(self) -> Path:
        return self.root / DATA_DIR

    @property
    def chunks(self) -> Path:
        return self.data / CHUNK_DIR

    def chunk_shard(self, shard: str) -> Path:
        return self.chunks / f"{shard}{SHARD_SUFFIX}"

    def chunk_shards(self) -> list[Path]:
        """The chunk shard files present, sorted: their concatenation is the global chunk order."""
        return sorted(self.chunks.glob(f"*{SHARD_SUFFIX}"))

    def vectors(self, model: str) -> Path:
        return self.data / VECTOR_DIR / model

    def vector_shard(self, model: str, shard: str) -> Path:
        return self.vectors(model) / f"{shard}.npy"

    @property
    def docs(self) -> Path:
        return self.data / DOCS

    @property
    def dictionary(self) -> Path:
        return self.data / DICTIONARY

    @property
    def source(self) -> Path:
        return self.data / SOURCE_DIR

    @property
    def formulas(self) -> Path:
        return self.data / FORMULA_DIR

    @property
    def tables(self) -> Path:
        return self.data / TABLE_DIR

    # index/ --------------------------------------------------------------------------
    @property
    def derived(self) -> Path:
        return self.root / DERIVED_DIR

    @property
    def store(self) -> Path:
        return self.derived / STORE

    @property
    def bm25(self) -> Path:
        return self.derived / BM25_DIR

    @property
    def bm25_vocab(self) -> Path:
        return self.bm25 / BM25_VOCAB

    @property
    def bm25_tokens(self) -> Path:
        return self.bm25 / BM25_TOKENS

    @property
    def bm25_offsets(self) -> Path:
        return self.bm25 / BM25_OFFSETS

    def usearch(self, model: str) -> Path:
        return self.derived / f"vectors-{model}.usearch"

    def is_release(self) -> bool:
        return self.manifest.is_file()


@dataclass(frozen=True)
class DeviceLayout:
    """The paths of a device directory, and read-only views of its `current` pointer."""

    root: Path

    @property
    def releases(self) -> Path:
        return self.root / RELEASES

    @property
    def current(self) -> Path:
        return self.root / CURRENT

    @property
    def repo(self) -> Path:
        return self.root / REPO

    @property
    def trusted(self) -> Path:
        return self.root / TRUSTED

    @property
    def state(self) -> Path:
        return self.root / STATE

    @property
    def rollback_log(self) -> Path:
        return self.root / ROLLBACK_LOG

    @property
    def trust_log(self) -> Path:
        return self.root / TRUST_LOG

    @property
    def lock(self) -> Path:
        return self.root / LOCK

    def release(self, tag: str) -> Path:
        return self.releases / tag

    def staging(self, tag: str) -> Path:
        return self.releases / f"{tag}{STAGING_SUFFIX}"

    def is_device(self) -> bool:
        return self.releases.is_dir() or self.current.is_symlink()

    def served_release(self) -> Path | None:
        """The directory of the release served now, or None when nothing is served yet.

        The link is read once; callers keep the returned path for the whole query, so a
        switch that happens meanwhile does not mix two releases. Only a link of the form
        ``releases/<tag>`` naming a real directory (not itself a link) counts.
        """
        try:
            target = os.readlink(self.current)
        except OSError:
            return None
        head, _, name = target.partition("/")
        if head != RELEASES or name in ("", ".", "..") or "/" in name:
            return None
        release = self.releases / name
        if self.releases.is_symlink() or release.is_symlink():
            return None
        return release if ReleaseLayout(release).is_release() else None

    def release_dirs(self) -> dict[str, Path]:
        """Verified local releases by tag name (real directories only, never links)."""
        if not self.releases.is_dir() or self.releases.is_symlink():
            return {}
        return {p.name: p for p in self.releases.iterdir()
                if p.is_dir() and not p.is_symlink() and not p.name.endswith(STAGING_SUFFIX)
                and not p.name.startswith(".")}


def default_device_dir(explicit: Path | None = None) -> Path:
    """--to DIR, else $KB_INDEX, else <kb_home>/device."""
    if explicit is not None:
        return explicit
    env = os.environ.get("KB_INDEX")
    return Path(env) if env else kb_home() / "device"
