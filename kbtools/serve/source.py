"""The release a running `kb serve` answers from, followed on every request.

`ServedIndex.get()` resolves `--index` (a release directory, ``dist/``, a device directory or
a git checkout of a release, as `kb query` does) each time it is called: on a device that is one ``readlink`` of
``current``, so a `kb sync` or `kb rollback` switches what the next request sees without a
restart. A release is opened (and one question asked, so the embedding models are loaded)
by the first request that needs it; opened releases are cached by their directory and the
write of its manifest (so a ``dist/`` rebuilt under the same name is opened anew; `KbIndex`
holds its files open, and its directory: documents and files are read from the tree it
opened, so a release pruned by a sync or a build replaced keeps answering the requests
already running on it, or says it was replaced, never reading the new tree in its place). The last `KEEP_OPEN` are kept open; an older one stays open while a request still runs on it. Each
HTTP request runs inside `ServedIndex.request()` (the `PinRequests` middleware): every
`get()` of the request, on whichever worker thread, returns the release its first one did,
so two `kb sync`s or rollbacks in quick succession cannot close the release a page, a table
or a read is using, nor mix two releases in one answer; a release replaced meanwhile is
closed when the last request on it has its response ready (not when the client has read
it: one that stops reading would keep it open). `EngineServedIndex` does the same for a
release published in Milvus, following the engine's alias instead of ``current``. An earlier
release a request asks for by tag or commit (`/api/search`, `/api/read`, `/api/table/
evaluate`) is kept open for the next one that asks for it too (`ServedIndex.earlier`,
`kbtools.agents.opened`), let go once a sync pruned it.

The work of a request (searching, reading and rendering documents) runs on a small pool of
worker threads (`Workers`, one by default), not on one thread per request: that work is
mostly Python holding the GIL, so more threads would only make each request slower while
they take turns, and a search measured under load would no longer cost what it costs
alone. Searches on one release also run one at a time (`Served.search_lock`), since the
query stack (SQLite connection, BM25, tokenizer, embedder) is shared. Searches and the rest
(documents, tables, release files, the release page, the health check) have threads of
their own: the rest never takes the search lock, and would otherwise wait behind every
search queued for it (a document page ~0.4 s behind three searches, a health check timing
out under load). More throughput comes from replicas over the same release (docs/serve.md).
"""

from __future__ import annotations

import functools
import os
import stat
import struct
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import anyio.to_thread
from anyio import CapacityLimiter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kbtools.agents.opened import OpenedReleases
from kbtools.agents.read import Knowledge, open_knowledge
from kbtools.beneath import read_fd_regular
from kbtools.check.aliases import alias_key, note_aliases
from kbtools.check.names import disk_key
from kbtools.embed.base import embed_question
from kbtools.embed.registry import get_embedder
from kbtools.engine.bases import of_base
from kbtools.engine.lineage import Seen, served_releases
from kbtools.engine.milvus import P_BASE
from kbtools.engine.remote import EngineReader
from kbtools.errors import IndexLoadError, SyncError
from kbtools.index.layout import DeviceLayout, ReleaseLayout
from kbtools.index.reader import KbIndex, open_index
from kbtools.query.search import keep_warm
from kbtools.query.search import search as run_search
from kbtools.render.images import HEAD_BYTES
from kbtools.render.pixels import picture_size, svg_size
from kbtools.render.svg_sanitize import MAX_SVG_BYTES
from kbtools.serve.pagecache import PageCache, Prepared
from kbtools.ship.checkout import resolve_index_path

T = TypeVar("T")
WARM_UP = "warm up 预热"  # a question asked once when a release is opened
KEEP_OPEN = 2  # releases kept open at once (the served one and the one before a switch)
MAX_FILE_BYTES = 20 * 1024 * 1024  # a release file served over HTTP


@dataclass
class Served:
    """One opened release with what the pages derive from it once."""

    index: KbIndex
    knowledge: Knowledge
    search_lock: threading.Lock = field(default_factory=threading.Lock)
    cache: dict[str, Any] = field(default_factory=dict)
    pages: PageCache = field(default_factory=PageCache)  # its rendered document pages
    prepared: Prepared[Any] = field(default_factory=Prepared)  # what they are rendered from

    @property
    def root(self) -> Path:
        return Path(self.index.root)

    def data_file(self, rel: str, limit: int = MAX_FILE_BYTES) -> bytes:
        """The bytes of ``data/<rel>`` of the tree the release was opened on (no link
        followed, regular files only); OSError if not (`KbIndex.read_data`)."""
        return self.index.read_data(rel, limit)

    def has_data_file(self, rel: str) -> bool:
        """Whether the release holds ``data/<rel>`` as a regular file, not a symlink (a
        formula's SVG): looked up once per release, as `picture_size` (a page of 300
        formulas asked the disk twice per formula on every view)."""
        held: dict[str, bool] = self.cache.setdefault("data_files", {})
        if rel not in held:
            path = ReleaseLayout(self.root).data / rel
            held[rel] = path.is_file() and not path.is_symlink()
        return held[rel]

    def files_named(self, key: str) -> list[str]:
        """The files of ``data/source`` (documents, shipped pictures and files) whose name is
        `key` as disks compare names (`disk_key`), repository-relative: what an Obsidian
        wikilink on a page names (`kbtools.serve.wikilinks`). Listed once per release."""
        names: dict[str, list[str]] | None = self.cache.get("files_named")
        if names is None:
            names = {}
            source = ReleaseLayout(self.root).data / "source"
            for folder, _dirs, files in os.walk(source):
                for name in sorted(files):
                    path = Path(folder, name)
                    if path.is_file() and not path.is_symlink():
                        names.setdefault(disk_key(name), []).append(
                            path.relative_to(source).as_posix())
            self.cache["files_named"] = names
        return names.get(key, [])

    def aliased(self, key: str) -> list[str]:
        """The documents whose front matter `aliases` hold the name `key` (`alias_key`):
        what an Obsidian wikilink `[[泵手册]]` on a page names. Listed once per release."""
        found: dict[str, list[str]] | None = self.cache.get("aliased")
        if found is None:
            found = {}
            for rec in self.index.docs():
                for alias in note_aliases(rec.get("metadata") or {}):
                    found.setdefault(alias_key(alias), []).append(str(rec["doc"]))
            self.cache["aliased"] = found
        return found.get(key, [])

    def picture_size(self, rel: str) -> tuple[int, int] | None:
        """(width, height) in CSS pixels that the picture ``data/<rel>`` declares (a photo's
        header, a formula SVG's root: `kbtools.render.pixels`), read once per release; None
        when it declares none or cannot be read. A page gives its pictures these sizes, so
        that the text does not move under the reader while they load."""
        sizes: dict[str, tuple[int, int] | None] = self.cache.setdefault("picture_sizes", {})
        if rel not in sizes:
            sizes[rel] = self._read_picture_size(rel)
        return sizes[rel]

    def _read_picture_size(self, rel: str) -> tuple[int, int] | None:
        try:
            fd = self.index.open_data(rel)
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            if rel.lower().endswith(".svg"):
                size = svg_size(read_fd_regular(fd, MAX_SVG_BYTES, rel))
            else:
                size = picture_size(os.pread(fd, HEAD_BYTES, 0),
                                    lambda at, n: os.pread(fd, n, at))
        except (OSError, ValueError, struct.error):
            return None
        finally:
            os.close(fd)
        if size is None or not (size[0] >= 0.5 and size[1] >= 0.5):
            return None
        return round(size[0]), round(size[1])


def warm_up(idx: KbIndex) -> None:
    """Load every embedding model of the release and ask one question, so that the first
    user of a release does not wait for model loading (seconds to tens of seconds); then
    keep it warm as `kb mcp` does after its first search (`query.search.keep_warm`)."""
    for model in sorted(idx.manifest.get("models", {})):
        embed_question(get_embedder(model), WARM_UP)  # the question path (packed weights)
    run_search(idx, WARM_UP, k=1)
    keep_warm(idx)


class ServedIndex:
    """Follows the configured index location; see the module docstring."""

    def __init__(self, index: Path | None):
        self.index = index
        self._open: OrderedDict[Any, Served] = OrderedDict()
        self._lock = threading.Lock()  # opening, switching, pin counts
        self._retired: list[Served] = []  # no longer kept; closed once no request uses them
        self._users: dict[int, int] = {}  # id(Served) → requests pinned to it
        self._pins: ContextVar[Pins | None] = ContextVar("kb_serve_pins", default=None)
        self.earlier = OpenedReleases()  # releases a request asked for by tag or commit

    def device(self) -> Path | None:
        """The device directory being followed, when the location is one."""
        if self.index is not None and DeviceLayout(self.index).is_device():
            return Path(self.index)
        return None

    def published(self) -> list[dict[str, Any]] | None:
        """The releases of the engine being followed (None: not an engine)."""
        return None

    def where(self) -> str | None:
        """The engine's URL when serving from one."""
        return None

    def _locate(self) -> tuple[Any, Callable[[], KbIndex]]:
        """What is served now: a key naming it and how to open it."""
        try:  # a git checkout of a release is verified (and derived once) here
            root = resolve_index_path(self.index).resolve()
        except SyncError as exc:  # a checkout that is not exactly a signed release
            raise IndexLoadError(exc.message, path=exc.path, key=exc.key,
                                 values=exc.values) from None
        return (root, ReleaseLayout(root).written()), lambda: open_index(root)

    def latest(self) -> Served | None:
        """The release used last, none opened for it (None: none is open yet): for a page
        that needs only its words, an address no route answers (`pages.http_error`)."""
        with self._lock:
            return next(reversed(self._open.values()), None)

    def get(self) -> Served:
        """The release served now (IndexLoadError or EngineError when there is none). Inside
        `request()`, the release the request read first, kept open until it ends."""
        pins = self._pins.get()
        if pins:
            return pins[0]
        if pins is not None and pins.done:  # its response is on its way: nothing to pin
            pins = None
        key, opener = self._locate()
        with self._lock:
            served = self._open.get(key)
            if served is not None:
                self._open.move_to_end(key)
                return self._pin(served, pins)
        idx = opener()
        warm_up(idx)
        served = Served(idx, open_knowledge(idx=idx))
        with self._lock:
            if key in self._open:  # another request opened it meanwhile
                if self._open[key].index is not idx:
                    idx.close()
                return self._pin(self._open[key], pins)
            self._open[key] = served
            self.earlier.sweep(Path(idx.root))  # a switch: it may have pruned one, or serve one
            while len(self._open) > KEEP_OPEN:
                self._retired.append(self._open.popitem(last=False)[1])
            self._pin(served, pins)
            self._close_retired()
        return served

    @contextmanager
    def request(self) -> Iterator[Callable[[], None]]:
        """One request: every `get()` in it (on any worker thread: the context goes with
        the work) returns the release the first one did, until the request ends or calls
        the function yielded (its response is complete: nothing reads the release any more);
        a release replaced meanwhile is closed when the last request on it let it go."""
        pins = Pins()
        token = self._pins.set(pins)

        def unpin() -> None:
            with self._lock:
                if pins.done:
                    return
                pins.done = True
                for served in pins:
                    self._users[id(served)] -= 1
                    if not self._users[id(served)]:
                        del self._users[id(served)]
                pins.clear()
                self._close_retired()
        try:
            yield unpin
        finally:
            self._pins.reset(token)
            unpin()

    def _pin(self, served: Served, pins: Pins | None) -> Served:
        """`served`, pinned to the running request if there is one (under `_lock`)."""
        if pins is not None:
            pins.append(served)
            self._users[id(served)] = self._users.get(id(served), 0) + 1
        return served

    def _close_retired(self) -> None:
        """Close the releases no longer kept that no request runs on (under `_lock`)."""
        for old in [r for r in self._retired if id(r) not in self._users]:
            self._retired.remove(old)
            with old.search_lock:  # nor a search outside any request (`run`'s first one)
                old.index.close()

    def close(self) -> None:
        with self._lock:
            for served in [*self._open.values(), *self._retired]:
                served.index.close()
            self._open.clear()
            self._retired.clear()
        self.earlier.close()


class Pins(list[Served]):
    """The releases one request holds open; ``done`` once it let them go."""

    done = False


class PinRequests:
    """ASGI middleware: each HTTP request runs inside `ServedIndex.request()`, so what it
    reads of a release stays open until its response starts: every response is whole in
    memory by then (no response streams from a release), and a client that stops reading
    (a sleeping tablet, a pipelining client that never reads) kept a release a sync had
    replaced open, files, maps and all, for as long as its connection lived."""

    def __init__(self, app: ASGIApp, source: ServedIndex):
        self.app, self.source = app, source

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with self.source.request() as unpin:
            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start":
                    unpin()
                await send(message)
            await self.app(scope, receive, sending)


class EngineServedIndex(ServedIndex):
    """The release a Milvus alias serves (`kb serve --engine`), followed on every request as
    a device's ``current`` is: `get()` asks the engine where the alias points (one call), so
    a `kb publish --engine` or `kb rollback --engine` shows on the next request. Each
    release is opened once, with its files copied from the engine (`kbtools.engine.cache`);
    a request that began on the previous release finishes on it. An engine that is down,
    an alias that is missing or a release dropped underneath are EngineError (HTTP 503)."""

    def __init__(self, reader: EngineReader):
        super().__init__(None)
        self.reader = reader
        self._seen = Seen(reader.engine)  # what the release page read of each publication

    def device(self) -> Path | None:
        return None

    def where(self) -> str | None:
        return str(self.reader.engine.url)

    def published(self) -> list[dict[str, Any]] | None:
        engine = self.reader.engine
        served = engine.alias_target(self.reader.alias)
        # the releases of the knowledge base served, not every one in the database
        base = ((engine.listed_properties(served) or {}).get(P_BASE) or None) if served \
            else None
        # an unnamed twin's (of its first commit) only when the commits show it is this
        # one's history, as `kb rollback --engine` run here would go back to (`lineage`)
        mine, _ = served_releases(engine, of_base(
            [r for r in engine.releases() if r["complete"]], base), served, base, (Path.cwd(),),
            self._seen)
        rows = [{**r, "current": r["collection"] == served,
                 "published_at": datetime.fromtimestamp(r["published"], UTC).isoformat(
                     timespec="seconds") if r["published"] else None}
                for r in mine]
        return rows[::-1]  # newest first, in `Engine.releases` order (a local build by time)

    def _locate(self) -> tuple[Any, Callable[[], KbIndex]]:
        idx = self.reader.current()
        return idx.collection, lambda: idx


class Workers:
    """The threads request work runs on (see the module docstring): `count` for searches,
    as many for everything else."""

    def __init__(self, count: int = 1):
        if count < 1:
            raise ValueError("at least one worker")
        self.searches = CapacityLimiter(count)
        self.others = CapacityLimiter(count)

    async def run(self, fn: Callable[..., T], *args: Any, search: bool = False) -> T:
        """`fn(*args)` on a worker thread: a search's (`search`) or another request's."""
        return await anyio.to_thread.run_sync(
            functools.partial(fn, *args), limiter=self.searches if search else self.others)
