"""Open a built index for reading: the one way `kb query`, `kb eval`, the agents and MCP get at one.

`open_index(path)` finds the release to read (`resolve_index_path`), checks it (manifest,
required files, embedding models) and returns a `KbIndex`. Named `KbIndex` so it is never
confused with usearch's ``Index``, which it wraps per model. Every path comes from
`ReleaseLayout`.

`open_index` opens everything a search reads before it returns (`KbIndex.hold`): the SQLite
store (first page read, so its file descriptor is open), the BM25 matrices and the vector
graphs (memory-mapped). A `kb sync` that prunes the release meanwhile (`keep = 1`) removes
directory entries, not the files a reader holds open, so a query that is running completes
on the release it started with.
"""

from __future__ import annotations

import gc
import json
import os
import sqlite3
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.beneath import open_beneath, read_beneath
from kbtools.config import CONFIG_NAME, Config, find_root, kb_configs_in_repository, load_config
from kbtools.embed.registry import get_embedder
from kbtools.errors import IndexLoadError, KbError, plural
from kbtools.fsutil import is_staging_dir
from kbtools.index import vectors
from kbtools.index.bm25 import Bm25
from kbtools.index.layout import (
    CHECKOUT_STATE,
    DATA_DIR,
    DERIVED_CACHE,
    UNFINISHED,
    CheckoutLayout,
    DeviceLayout,
    ReleaseLayout,
    default_device_dir,
    device_of_release,
    device_release_tag,
    unfinished_release,
)
from kbtools.index.manifest import load_manifest
from kbtools.index.selfcheck import derivation_problem
from kbtools.index.store import Store
from kbtools.index.synonyms import Synonyms, parse
from kbtools.index.tokenize import shared_tokenizer


@dataclass(frozen=True)
class ReleaseInfo:
    """Which release an index is: tag and serial from release.json (written by `kb release`),
    and the knowledge commit it was built from. A local build has no tag.

    ``dirty``: the build read files that commit does not hold (uncommitted edits, untracked
    documents; the manifest's ``source.dirty``), so a citation's lines are those of the
    build's working tree, not of `source_commit`: every place that names the commit says so
    (``"dirty": true`` in the JSON, ``+ uncommitted changes`` in `kb query`)."""

    tag: str | None
    source_commit: str
    serial: int | None = None
    released: bool = False  # release.json was read: `serial` is part of the record
    dirty: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tag": self.tag, "source_commit": self.source_commit}
        if self.dirty:
            out["dirty"] = True
        if self.released:
            out["serial"] = self.serial
        return out

    def commit_text(self) -> str:
        """The source commit as people are shown it: 12 digits, and whether the build
        indexed more than the commit holds."""
        commit = (self.source_commit or "")[:12]
        return f"{commit} + uncommitted changes" if self.dirty and commit != "none" else commit


@dataclass(frozen=True)
class ChunkTable:
    """Per-chunk arrays, in chunk-number order, used to filter and boost candidates."""

    doc: np.ndarray  # index of the chunk's document in `KbIndex.docs()`
    kind: np.ndarray  # chunk kind (section, table_row, …)
    models: np.ndarray  # comma-separated embedding models that have a vector for the chunk
    verified: np.ndarray  # bool: the chunk is verified (per chunk, from review history)
    # number of the chunk whose vector the chunk shares, -1: its own (kbtools.query.inherit)
    parent: np.ndarray


class KbIndex:
    """One opened index release: its manifest, release info and lazily opened parts."""

    def __init__(self, layout: ReleaseLayout, manifest: dict[str, Any], release: ReleaseInfo):
        self.layout = layout
        self.manifest = manifest
        self.release = release
        self._store: Store | None = None
        self._bm25: Bm25 | None = None
        self._vectors: dict[str, Any] = {}
        self._chunk_table: ChunkTable | None = None
        self._docs: list[dict[str, Any]] | None = None
        self._facets: dict[str, set[str]] | None = None
        self._facet_docs: dict[str, dict[str, np.ndarray]] = {}
        self._synonyms: Synonyms | None = None
        self._no_answer: dict[str, Any] | None = None
        self._pages: dict[str, np.ndarray | None] = {}
        self._tree: int | None = None  # the release directory, held open (`pin`)
        self._unpin: weakref.finalize[Any, Any] | None = None

    @property
    def root(self) -> Path:
        return self.layout.root

    def pin(self) -> None:
        """Hold the release directory open, so that `read_data` reads the tree this index
        was opened on even after its name is given to another (a `kb build` swapping in a
        new ``dist/``, `kbtools.fsutil.replace_dir`): never one tree's source against the
        other's line numbers."""
        if self._tree is None:
            self._tree = os.open(self.layout.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            self._unpin = weakref.finalize(self, os.close, self._tree)

    def read_data(self, rel: str, limit: int) -> bytes:
        """The bytes of ``data/<rel>`` of the tree this index opened (no link followed,
        regular files only, at most `limit` bytes): OSError when it cannot be read;
        IndexLoadError when the tree is gone, replaced by another under its name."""
        name = f"{DATA_DIR}/{rel}"
        try:
            return read_beneath(self.layout.root, name, limit, dir_fd=self._tree)
        except FileNotFoundError:
            if self._tree is not None and self._replaced():
                raise IndexLoadError("the index was replaced (a new build or sync) while this "
                                     "request read it; ask again",
                                     path=str(self.layout.root), key="index_replaced") from None
            raise

    def open_data(self, rel: str) -> int:
        """A read-only descriptor of ``data/<rel>`` as `read_data` reads it (the caller
        closes it; it may name a FIFO: check before reading)."""
        return open_beneath(self.layout.root, f"{DATA_DIR}/{rel}", os.O_RDONLY | os.O_NONBLOCK,
                            dir_fd=self._tree)

    def _replaced(self) -> bool:
        """Whether the release directory's name now names another directory (or none): the
        held one cannot lend its inode number to a new tree while it is open."""
        assert self._tree is not None
        held = os.fstat(self._tree)
        try:
            now = os.stat(self.layout.root)
        except OSError:
            return True
        return (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino)

    # lazily opened parts -------------------------------------------------------------
    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.layout.store)
        return self._store

    @property
    def bm25(self) -> Bm25:
        if self._bm25 is None:
            self._bm25 = self._open_bm25(scoring=True)
        return self._bm25

    def bm25_terms(self) -> Bm25:
        """The BM25 terms and statistics (query_terms, idf, share) without its search, so
        without importing bm25s: the searching one when it is already open."""
        return self._bm25 if self._bm25 is not None else self._open_bm25(scoring=False)

    def _open_bm25(self, *, scoring: bool) -> Bm25:
        words = self.layout.dictionary.read_text(encoding="utf-8").split()
        cfg = self.manifest["config"]["values"]["bm25"]
        return Bm25(self.layout.bm25, shared_tokenizer(cfg["tokenizer"], tuple(words)),
                    scoring=scoring)

    def vectors(self, model: str) -> Any:
        """The usearch graph of `model` (memory-mapped)."""
        if model not in self._vectors:
            ef = self.manifest["config"]["values"]["index"]["expansion_search"]
            self._vectors[model] = vectors.load(self.layout.usearch(model), ef)
        return self._vectors[model]

    def keep_resident(self) -> bool:
        """For a long-lived process: every model's graph in anonymous memory on huge pages
        (`vectors.load_resident`) where the kernel offers them and the graphs fit, instead
        of mapped from their files. Searches give the same answers. Whether it was done (an
        index whose vectors live in an engine has no graphs here)."""
        paths = {m: p for m in sorted(self.manifest.get("models", {}))
                 if (p := self.layout.usearch(m)).is_file()}
        if not paths or not vectors.resident_fits(sum(p.stat().st_size for p in paths.values())):
            return False
        ef = self.manifest["config"]["values"]["index"]["expansion_search"]
        for model, path in paths.items():
            self._vectors[model] = vectors.load_resident(path, ef)
        return True

    def chunk_table(self) -> ChunkTable:
        if self._chunk_table is None:
            docs = {d["doc"]: i for i, d in enumerate(self.docs())}
            rows = self.store.con.execute(  # one scan: a row holds its texts, read with it
                f"SELECT doc, kind, models, {self.store.verified_column()}, "
                f"{self.store.parent_column()} FROM chunks ORDER BY num").fetchall()
            self._chunk_table = ChunkTable(
                doc=np.array([docs[r[0]] for r in rows], dtype=np.int32),
                kind=np.array([r[1] for r in rows], dtype=object),
                models=np.array([r[2] for r in rows], dtype=object),
                verified=np.array([bool(r[3]) for r in rows], dtype=bool),
                parent=np.array([-1 if r[4] is None else r[4] for r in rows], dtype=np.int64))
        return self._chunk_table

    # API for other adapters ------------------------------------------------------------
    def docs(self) -> list[dict[str, Any]]:
        """Document records (front matter in ``metadata``), sorted by path."""
        if self._docs is None:
            self._docs = self.store.docs()
        return self._docs

    def facets(self) -> dict[str, set[str]]:
        """Front-matter facet values by field."""
        if self._facets is None:
            self._facets = self.store.facets()
        return self._facets

    def facet_docs(self, field: str) -> dict[str, np.ndarray]:
        """Per casefolded string value of front-matter `field` (or of an item of its list),
        the indexes into `docs()` of the documents holding it, ascending. Made once per
        field: routing boosts look values up here instead of scanning every document."""
        if field not in self._facet_docs:
            found: dict[str, list[int]] = {}
            for i, d in enumerate(self.docs()):
                val = d["metadata"].get(field)
                for v in val if isinstance(val, list) else [val]:
                    if isinstance(v, str):
                        held = found.setdefault(v.casefold(), [])
                        if not held or held[-1] != i:
                            held.append(i)
            self._facet_docs[field] = {k: np.array(v, dtype=np.int64) for k, v in found.items()}
        return self._facet_docs[field]

    def synonyms(self) -> Synonyms:
        """The synonym groups the release ships (data/synonyms.txt; none when absent)."""
        if self._synonyms is None:
            path = self.layout.synonyms
            self._synonyms = parse(path.read_text(encoding="utf-8"))[0] if path.is_file() \
                else Synonyms()
        return self._synonyms

    def no_answer_record(self) -> dict[str, Any]:
        """The release's no-answer calibration record (data/no_answer.json; {} when absent),
        read as JSON only: `kbtools.query.calibration` gives it meaning."""
        if self._no_answer is None:
            path = self.layout.no_answer
            try:
                record = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
            except ValueError:
                raise IndexLoadError("not a JSON calibration record", path=str(path)) from None
            self._no_answer = record if isinstance(record, dict) else {}
        return self._no_answer

    def shipped_pages(self, model: str) -> np.ndarray | None:
        """The page vectors of `model` the release ships (data/pages/<model>.npy, one row
        per document of `docs()`), None when it has none (an older release): read only,
        `kbtools.query.pages` gives them meaning."""
        if model not in self._pages:
            path = self.layout.pages(model)
            try:
                self._pages[model] = np.load(path) if path.is_file() else None
            except (OSError, ValueError):
                raise IndexLoadError("not a page-vector file", path=str(path)) from None
        return self._pages[model]

    def published_links(self) -> dict[str, Any] | None:
        """The link graph and anchor texts published with a release in an engine
        (``graph``: per document the documents it links to; ``anchors``: per document its
        anchor texts); None for a release's local files, whose chunks they are derived
        from (`kbtools.query.neighbours`, `kbtools.query.anchors`)."""
        return None

    def source_path(self, doc: str) -> Path:
        """The shipped Markdown source of `doc` (not checked: see `kbtools.agents.read`)."""
        return self.layout.source / doc

    def hold(self) -> KbIndex:
        """Open every part a search reads now (store, BM25, each model's vectors, the
        per-chunk arrays), so the release directory may vanish afterwards."""
        self.store.count()  # SQLite opens its file on first use, not on connect
        self.bm25  # noqa: B018 - opens the matrices (memory-mapped)
        for key in self.manifest.get("models", {}):
            self.vectors(key)
            self.shipped_pages(key)
        self.docs()
        self.facets()
        self.chunk_table()
        self.synonyms()
        self.no_answer_record()
        return self

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
        if self._unpin is not None:
            self._unpin()


def resolve_index_path(path: Path | None,
                       sparse: Callable[[Path], bool] = lambda _: False,
                       near: Config | None = None) -> Path:
    """--index, else $KB_INDEX, else ./dist of the repo, else the default device dir.

    A device directory resolves to the release it serves now. `sparse` tells a sparse
    checkout of a release (`checkout_here`), named when `path` is a folder inside one;
    `near`, the configuration around the current directory when the caller has read it.
    """
    if path is None and os.environ.get("KB_INDEX"):
        path = Path(os.environ["KB_INDEX"])
    if path is None:  # with the configuration found here (the "no index here" hint's)
        path, near = implicit_index(near)
    if is_staging_dir(path.absolute()):
        raise IndexLoadError("an unfinished build's staging directory, not an index "
                             "(run `kb build`; it removes those a killed build left)",
                             path=str(path))
    if unfinished_release(path) is not None:
        raise IndexLoadError(UNFINISHED, path=str(path))
    if CheckoutLayout.looks_like_checkout(path):
        raise IndexLoadError("a git checkout of a release: open it with `kb query --index` "
                             "or `kbtools.open_index`, which verify it and derive its index",
                             path=str(path))
    if ReleaseLayout(path).is_release():
        return path
    device = DeviceLayout(device_of_release(path) or path)  # DIR/current may be a file
    if device.is_device():
        served = device.served_release()
        if served is None:
            raise IndexLoadError("device directory has no served release yet (run `kb sync`)",
                                 path=str(path), key="index_missing")
        return served
    top = checkout_above(path, sparse)
    if top is not None:  # `--index kb/data`: the index is the whole checkout
        raise IndexLoadError(f"a folder inside the git checkout of a release {top}: pass "
                             f"--index {top}", path=str(path), key="index_missing")
    raise IndexLoadError("no index here: run `kb build`, or `kb sync` on a device, or pass "
                         "--index" + (nearby_knowledge(near) if near else ""), path=str(path),
                         key="index_missing")


def implicit_index(near: Config | None = None) -> tuple[Path, Config]:
    """The index a client given none (no --index, no $KB_INDEX) reads: the knowledge
    repository's dist/ when it holds a build, else the default device directory; with the
    configuration found from the current directory (the "no index here" hint names it),
    `near` when the caller has read it."""
    near = near if near is not None else load_config(find_root())
    candidate = near.path("dist")
    return (candidate if ReleaseLayout(candidate).is_release() else default_device_dir()), near


def checkout_here(start: Path | None = None,
                  sparse: Callable[[Path], bool] = lambda _: False) -> Path | None:
    """The top of the git checkout of a release that the current directory (`start`) lies
    in, for a client command given no index (a user who cloned the artifacts repository and
    cd'd into it, or into a folder below): the nearest folder at or above it that holds one
    (`CheckoutLayout.holds_release`). None when a kb.toml lies as near or nearer (inside a
    knowledge repository its own dist/ is meant, even where its top holds files a release
    has) or there is none. `sparse` tells a sparse checkout of a release that leaves those
    files out of its work tree (`kbtools.ship.sparse`, which runs git)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_NAME).is_file():
            return None
        if CheckoutLayout.holds_release(folder) or sparse(folder):
            return folder
    return None


def checkout_above(path: Path, sparse: Callable[[Path], bool] = lambda _: False
                   ) -> Path | None:
    """The top of the git checkout of a release that `path` lies inside (a folder of it
    given as the index; `sparse` as for `checkout_here`), or None."""
    return next((p for p in path.absolute().parents
                 if CheckoutLayout.looks_like_checkout(p) or sparse(p)), None)


def nearby_knowledge(cfg: Config) -> str:
    """For `no index here` when neither `--index` nor $KB_INDEX was given: the knowledge
    base of the current directory (`cfg`, from kb.toml at or above it) has not been built,
    or, where there is none, the knowledge bases of the Git repository around it (a
    monorepo's docs/kb, when kb runs at its root) and where their index is; "" for none."""
    here = Path.cwd()
    broken = _broken_checkout(here.resolve())
    if broken is not None:  # a clone with a release file deleted: not taken, but named
        top, lacks = broken
        return (f"; {_shown(top, here)} is a git checkout of a release that lacks {lacks} "
                f"(`git status` there shows what changed; pass --index {_shown(top, here)} "
                "to have it checked)")
    if (cfg.root / CONFIG_NAME).is_file():
        where = "" if cfg.root.resolve() == here.resolve() else f" in {_shown(cfg.root, here)}"
        return (f"; the knowledge base{where} has no index in {_shown(cfg.path('dist'), here)}/ "
                f"yet: run `kb build`{where}")
    built: list[tuple[Path, Path]] = []
    unbuilt: list[tuple[Path, Path]] = []
    for config in kb_configs_in_repository(here):
        try:
            dist = load_config(config.parent).path("dist")
        except KbError:
            continue
        (built if ReleaseLayout(dist).is_release() else unbuilt).append((config.parent, dist))
    if built:
        root, dist = built[0]
        more = f" (and {plural(len(built) - 1, 'other')})" if len(built) > 1 else ""
        return (f"; this Git repository's knowledge base {_shown(root, here)}{more} has one: "
                f"pass --index {_shown(dist, here)}, or run kb in {_shown(root, here)}")
    if unbuilt:
        root = unbuilt[0][0]
        more = f" (and {plural(len(unbuilt) - 1, 'other')})" if len(unbuilt) > 1 else ""
        return (f"; this Git repository's knowledge base {_shown(root, here)}{more} has no "
                f"index yet: run `kb build` in {_shown(root, here)}")
    return ""


def _broken_checkout(here: Path) -> tuple[Path, str] | None:
    """(top, the release file it lacks) for a git checkout of a release at or above `here`
    that `checkout_here` passed over for want of release.json or manifest.json, nearer
    than any kb.toml; None otherwise. Its data/docs.jsonl tells it from a repository with
    a manifest.json of its own (a web app's), which is none."""
    for folder in (here, *here.parents):
        if (folder / CONFIG_NAME).is_file():
            return None
        if CheckoutLayout.holds_release(folder):
            return None  # an intact one (`kb publish` takes none): nothing lacking to name
        top = ReleaseLayout(folder)
        if CheckoutLayout.looks_like_checkout(folder) and top.docs.is_file():
            return folder, (top.release_json if not top.release_json.is_file()
                            else top.manifest).name
    return None


def _shown(path: Path, here: Path) -> str:
    """`path` relative to `here` when that takes at most two steps up, else as it is."""
    rel = Path(os.path.relpath(path.resolve(), here.resolve()))
    return str(path) if rel.parts[:3] == ("..",) * 3 else rel.as_posix()


OPEN_ATTEMPTS = 3  # a device may switch and prune releases, a build replace dist/, while we open one


def open_index(path: Path | None = None) -> KbIndex:
    """Resolve, check and open an index (IndexLoadError says what is missing or wrong).

    Everything a search reads is open when this returns (`KbIndex.hold`). Its files are read
    by path, so a directory replaced meanwhile (a `kb build` swapping in a new `dist/`, a
    `kb sync` pruning the release) would give parts of two trees (one's manifest and BM25,
    the other's store: wrong chunks cited): the directory's identity is taken before and
    after, and an open it changed under is retried on what is there then."""
    for _ in range(OPEN_ATTEMPTS):
        root = resolve_index_path(path)
        before = _identity(root)
        try:
            index = _open(ReleaseLayout(root))
        except (IndexLoadError, OSError, sqlite3.Error, ValueError) as exc:
            if before is not None and _identity(root) == before:  # still there: it is broken
                if isinstance(exc, IndexLoadError):
                    raise
                raise unreadable(root, exc) from None  # a broken release, not a replaced one
            continue
        if _identity(root) == before:
            return index
        index.close()
    raise IndexLoadError("the index was replaced again and again while it was being opened (a "
                         "build or sync loop?); ask again", path=str(path or root),
                         key="index_replaced")


def _identity(root: Path) -> tuple[int, int, int] | None:
    """Which directory `root` names now (device, inode, and its change time: a new tree may
    get the inode number of one deleted meanwhile); None when it names none."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_ctime_ns


def unreadable(root: Path, exc: BaseException) -> IndexLoadError:
    """The one-line error for an index whose files cannot be read (truncated, damaged: what
    SQLite, numpy, JSON or usearch said), with what repairs it where `root` lives."""
    where = exc.filename if isinstance(exc, OSError) and exc.filename else None
    reason = f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)
    return IndexLoadError(f"index/ unreadable: {reason}"
                          + (f" ({where})" if where and str(where) not in reason else "")
                          + f"; {repair(root)}", path=str(root))


def repair(root: Path) -> str:
    """What derives the index/ of release `root` again, where it lives: on a device `kb
    sync` (its up-to-date path checks the served index and derives a failing one from its
    verified data/), in a checkout a new derivation, else a build."""
    if device_of_release(root) is not None:
        return "run `kb sync` to re-derive it or `kb rollback`"
    if root.parent.name == DERIVED_CACHE and root.parent.parent.name == CHECKOUT_STATE:
        return f"remove {root} and ask again (the checkout's index is derived anew)"
    return "rebuild it (`kb build`)"


def settle() -> None:
    """For a long-lived process (`kb serve`, `kb mcp`) once it has opened a release and
    answered a first question (models and tokenizer dictionaries loaded): collect once, then
    move every object alive to the collector's permanent generation (`gc.freeze`). A full
    collection otherwise walks the tokenizers' and models' large dictionaries again, ~85 ms
    at 54k chunks, inside whichever search triggers it. What an earlier settle froze is
    unfrozen first, so a closed release's leftovers are collected."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _open(layout: ReleaseLayout) -> KbIndex:
    manifest = load_manifest(layout.root)
    for required in (layout.store, layout.bm25_vocab, layout.dictionary):
        if not required.is_file():
            raise IndexLoadError(f"index file missing: {_rel(layout, required)} (rebuild or re-sync)",
                                 path=str(layout.root), key="index_incomplete",
                                 values={"file": _rel(layout, required)})
    _check_models(manifest, layout)
    index = KbIndex(layout, manifest, load_release_info(layout, manifest))
    try:
        index.pin()  # `open_index` checks it is the tree the other files came from
        _check_tokens(index)
        return index.hold()
    except BaseException:
        index.close()
        raise


def _check_tokens(index: KbIndex) -> None:
    """index/ must hold the BM25 terms this kbtools makes of a question (the store records
    the tokenizer version that derived it); terms of another would match silently worse."""
    problem = derivation_problem(index.store.infos())
    if problem is not None:
        raise IndexLoadError(f"{problem}; {repair(index.layout.root)}",
                             path=str(index.layout.root))


def load_release_info(layout: ReleaseLayout, manifest: dict[str, Any]) -> ReleaseInfo:
    """Tag and serial from release.json when there is one; the commit from the manifest."""
    commit = manifest["source"]["commit"]
    dirty = manifest["source"].get("dirty") is True
    if not layout.release_json.is_file():  # a local build; or a device's release kept
        # without it, named by its tag all the same (not "the build of commit …")
        return ReleaseInfo(tag=device_release_tag(layout.root), source_commit=commit,
                           dirty=dirty)
    try:
        info = json.loads(layout.release_json.read_text(encoding="utf-8"))
    except ValueError:
        raise IndexLoadError("release.json is corrupted", path=str(layout.release_json)) from None
    if not isinstance(info, dict):
        raise IndexLoadError("release.json is corrupted", path=str(layout.release_json))
    return ReleaseInfo(tag=info.get("tag"), source_commit=commit, serial=info.get("serial"),
                       released=True, dirty=dirty)


def _check_models(manifest: dict[str, Any], layout: ReleaseLayout) -> None:
    """Refuse an index whose vectors came from a different model than we would load."""
    for key, meta in manifest["models"].items():
        if not layout.usearch(key).is_file():
            raise IndexLoadError(f"index file missing: {_rel(layout, layout.usearch(key))}",
                                 path=str(layout.root), key="index_incomplete",
                                 values={"file": _rel(layout, layout.usearch(key))})
        if key == "use":  # cheap to check eagerly; others are checked when first used
            fp = get_embedder(key).fingerprint()
            if fp != meta["fingerprint"]:
                raise IndexLoadError(
                    f"index was built with embedding model {meta['fingerprint']} but this "
                    f"machine has {fp}; rebuild the index or install the matching model",
                    path=str(layout.root), key="model_mismatch", values={"model": key})


def _rel(layout: ReleaseLayout, path: Path) -> str:
    return path.relative_to(layout.root).as_posix()
