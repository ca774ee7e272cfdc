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
      synonyms.txt            synonym groups for query expansion (only when the repo has some)
      no_answer.json          the index's own no-answer calibration (`kbtools.query.calibration`)
      pages/<model>.npy       float32 page vectors, a row per document (`kbtools.query.pages`)
      source/<doc>            the Markdown sources
      formulas/<sha>.svg, tables/<name>.csv
    index/                    derived from data/ by `materialize` ("derived" in the manifest)
      store.sqlite, bm25/, vectors-<model>.usearch  (checked by `kbtools.index.selfcheck`)

A device directory (``kb sync --to DIR``)::

    releases/<tag>/           verified releases (the layout above)
    releases/<tag>.staging/   a release being exported and verified
    current                   symlink -> releases/<tag>, replaced by one rename (a file
                              holding that line where the file system has no symlinks)
    repo.git/ trusted_keys/ state.json rollback.log trust.log .lock
    queries.jsonl, queries.jsonl.1 … .3   the query log (`kbtools.query.log`), rotated by size
    .queries.lock             flock taken to rotate the query log
    settings.json             operator settings of this device (e.g. the query log off)

A git checkout of a release (``git clone`` of the artifacts repository, ``git checkout
kb-rN``) holds the release files of one release directory (no index/) in its work tree; kb
keeps what it derives from it inside the checkout's git directory, which git never lists::

    <git-common-dir>/kb/derived/<manifest-sha256>/          a verified copy of the release
                                                           plus its derived index/
    <git-common-dir>/kb/derived/<manifest-sha256>.staging/  being exported and derived
    <git-common-dir>/kb/trusted_keys/ trust.log .lock       as in a device directory

This module only names paths and reads the `current` pointer; writing a device directory is
`kbtools.ship.device`'s job.
"""

from __future__ import annotations

import errno
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from kbtools.beneath import read_beneath
from kbtools.config import RELEASE_TAG_RE, kb_home

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
SYNONYMS = "synonyms.txt"
NO_ANSWER = "no_answer.json"
PAGE_DIR = "pages"
STORE = "store.sqlite"
BM25_DIR = "bm25"
BM25_VOCAB = "kb_vocab.json"
BM25_TOKENS = "kb_tokens.npy"  # every chunk's term ids (our vocabulary), concatenated
BM25_OFFSETS = "kb_offsets.npy"  # where each chunk's ids start in BM25_TOKENS (n + 1)
BM25_TF = "kb_tf.npy"  # each posting's term count, in the order of bm25s's CSC matrix
SHARD_SUFFIX = ".jsonl"
SHARD_CHARS = 2  # 256 shards by sha256(doc): an edit rewrites one shard

CURRENT = "current"
MAX_POINTER_BYTES = 1024  # `current` as a file (no symlinks on the file system)
RELEASES = "releases"
REPO = "repo.git"
TRUSTED = "trusted_keys"
STATE = "state.json"
ROLLBACK_LOG = "rollback.log"
TRUST_LOG = "trust.log"
STAGING_SUFFIX = ".staging"
LOCK = ".lock"
QUERY_LOG = "queries.jsonl"
QUERY_LOG_LOCK = ".queries.lock"
QUERY_LOG_KEEP = 3  # rotated files kept: queries.jsonl.1 (newest) … .3
SETTINGS = "settings.json"

CHECKOUT_STATE = "kb"  # under the checkout's git common dir
DERIVED_CACHE = "derived"
GIT_DIR = ".git"


def is_release_name(name: str) -> bool:
    """Whether an entry of a device's releases/ (or a checkout's derived/) named `name` can
    be a release: never one being staged (``<tag>.staging``) nor any dot-named one (a
    release on its way out, ``.<tag>.deleting``, or whatever else is hidden there)."""
    return bool(name) and not (name.startswith(".") or name.endswith(STAGING_SUFFIX))


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

    def written(self) -> tuple[int, int] | None:
        """Which write of the manifest is there (inode, modification time; None without
        one): a build directory served as it is (``kb serve --index dist``, ``kb mcp``) is
        replaced under the same name by the next `kb build` or `kb watch`, and a process
        following it opens the new one when this changes."""
        try:
            st = self.manifest.stat()
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns

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
    def synonyms(self) -> Path:
        return self.data / SYNONYMS

    @property
    def no_answer(self) -> Path:
        return self.data / NO_ANSWER

    def pages(self, model: str) -> Path:
        return self.data / PAGE_DIR / f"{model}.npy"

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

    @property
    def bm25_tf(self) -> Path:
        return self.bm25 / BM25_TF

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

    @property
    def query_log(self) -> Path:
        return self.root / QUERY_LOG

    @property
    def query_log_lock(self) -> Path:
        return self.root / QUERY_LOG_LOCK

    def query_log_rotated(self, n: int) -> Path:
        """The n-th rotated query log (1 = the newest)."""
        return self.root / f"{QUERY_LOG}.{n}"

    def query_logs(self) -> list[Path]:
        """Every query log file present, oldest first."""
        files = [self.query_log_rotated(n) for n in range(QUERY_LOG_KEEP, 0, -1)]
        return [p for p in [*files, self.query_log] if p.is_file() and not p.is_symlink()]

    @property
    def settings(self) -> Path:
        return self.root / SETTINGS

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
        target = self.current_target()
        if target is None:
            return None
        head, _, name = target.partition("/")
        if head != RELEASES or not is_release_name(name) or "/" in name:
            return None
        release = self.releases / name
        if self.releases.is_symlink() or release.is_symlink():
            return None
        return release if ReleaseLayout(release).is_release() else None

    def current_target(self) -> str | None:
        """What `current` names: the symbolic link's target, or, on a file system without
        symbolic links (FAT, exFAT), the one line of the regular file `current` (written by
        `kbtools.ship.device.switch_to`); None when there is neither."""
        try:
            return os.readlink(self.current)
        except OSError as exc:
            if exc.errno != errno.EINVAL:  # EINVAL: there, but not a link
                return None
        try:
            text = read_beneath(self.root, CURRENT, MAX_POINTER_BYTES).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        lines = text.splitlines()
        return lines[0] if len(lines) == 1 else None

    def release_dirs(self) -> dict[str, Path]:
        """Verified local releases by tag name (real directories only, never links)."""
        if not self.releases.is_dir() or self.releases.is_symlink():
            return {}
        return {p.name: p for p in self.releases.iterdir()
                if p.is_dir() and not p.is_symlink() and is_release_name(p.name)}


def unfinished_release(path: Path) -> Path | None:
    """The device whose releases/ holds `path` as what an interrupted sync, rollback or
    prune left (``releases/<tag>.staging``, ``releases/.<tag>.deleting``: never verified,
    or on its way out), or None. Such a directory is no release: nothing opens, lists or
    compares it, and the next `kb sync` removes it (`kbtools.ship.device.clean_staging`)."""
    path = path.absolute()
    if path.parent.name == RELEASES and not is_release_name(path.name):
        device = path.parent.parent
        if DeviceLayout(device).is_device():
            return device
    return None


UNFINISHED = ("not a release: a release `kb sync` (or rollback) is staging or deleting on a "
              "device, or what an interrupted one left there; the next `kb sync` removes it; "
              "pass the device directory or one of its releases")


def device_of_release(root: Path) -> Path | None:
    """The device directory that a release directory belongs to (``DIR/releases/<tag>`` or
    ``DIR/current``), or None for a release outside a device (a build's ``dist/``) and for
    what is no release in a device's releases/ (`is_release_name`: staged, or dot-named
    like a release being deleted; `unfinished_release` names their device)."""
    if root.name == CURRENT and DeviceLayout(root.parent).is_device():
        return root.parent
    if root.parent.name == RELEASES and is_release_name(root.name):
        device = root.parent.parent
        if DeviceLayout(device).is_device():
            return device
    return None


def device_release_tag(root: Path) -> str | None:
    """The tag release directory `root` of a device (``DIR/releases/<tag>``, or
    ``DIR/current`` naming one) was installed as: `kb sync` names the directory by the tag
    it verified. What a release whose release.json is gone (synced by an older kb, or
    removed by hand) is named by; None for a release outside a device."""
    device = device_of_release(root)
    if device is None:
        return None
    target = DeviceLayout(device).current_target() if root.name == CURRENT else root.name
    name = Path(target).name if target else ""
    return name if RELEASE_TAG_RE.match(name) else None  # a directory named otherwise: none


@dataclass(frozen=True)
class CheckoutLayout:
    """The paths kb uses for a git checkout of a release: `root` is the work tree, `git_dir`
    its git common directory (shared by all work trees of the clone)."""

    root: Path
    git_dir: Path

    @staticmethod
    def looks_like_checkout(path: Path) -> bool:
        """A directory holding a ``.git`` and release files at its top (release.json or
        manifest.json, so a checkout missing one is still recognised and refused by name):
        no git is run here; `kbtools.ship.checkout` confirms it."""
        top = ReleaseLayout(path)
        try:
            return (path / GIT_DIR).exists() and (top.release_json.is_file()
                                                  or top.manifest.is_file())
        except OSError:  # a name too long for the OS: no checkout (the reader says why)
            return False

    @staticmethod
    def holds_release(path: Path) -> bool:
        """A directory holding a ``.git`` and both release.json and manifest.json at its top,
        as every release commit does: what finding a checkout from the current directory
        asks (no path given), where `looks_like_checkout`'s one file of the two would take a
        repository with a manifest.json of its own (a web app's) for a broken release."""
        top = ReleaseLayout(path)
        try:
            return ((path / GIT_DIR).exists() and top.release_json.is_file()
                    and top.manifest.is_file())
        except OSError:
            return False

    @property
    def state(self) -> Path:
        """Where kb keeps derived indexes, pinned keys and logs (plays a device directory's
        part for `kbtools.ship.trust` and `kbtools.ship.devicelock.locked`)."""
        return self.git_dir / CHECKOUT_STATE

    @property
    def derived_root(self) -> Path:
        return self.state / DERIVED_CACHE

    def derived(self, manifest_sha256: str) -> Path:
        """The verified release directory (with index/) derived for one manifest."""
        return self.derived_root / manifest_sha256

    def staging(self, manifest_sha256: str) -> Path:
        return self.derived_root / f"{manifest_sha256}{STAGING_SUFFIX}"

    def derived_dirs(self) -> dict[str, Path]:
        """Derived release directories by manifest hash (real directories only)."""
        root = self.derived_root
        if not root.is_dir() or root.is_symlink():
            return {}
        return {p.name: p for p in root.iterdir()
                if p.is_dir() and not p.is_symlink() and is_release_name(p.name)}


def default_device_dir(explicit: Path | None = None) -> Path:
    """--to DIR, else $KB_INDEX, else <kb_home>/device."""
    if explicit is not None:
        return explicit
    env = os.environ.get("KB_INDEX")
    return Path(env) if env else kb_home() / "device"


def tree_identity(path: Path) -> tuple[int, int, int]:
    """The identity of the directory at `path` (device, inode, change time). A build's swap
    puts another directory at the name (`fsutil.replace_dir`): a reader of a dist/ that
    another build may replace (`kb watch` and a `kb build` in a terminal) took its files
    from one tree when the identity is the same after the reads as before."""
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_ctime_ns
