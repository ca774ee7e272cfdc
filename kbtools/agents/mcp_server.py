"""`kb mcp`: the knowledge served to agents over MCP (stdio), as thin adapters.

Each tool calls the same library function as the CLI: `kbtools.query.search.search`,
`kbtools.agents.read.read_section`, `kbtools.agents.recent.recent`,
`kbtools.decision.documents.evaluate_table`
and (only with --allow-write) `kbtools.agents.draft.create_draft`.

Retrieved document text never becomes part of an instruction: it is returned inside a
structured result, in fields named ``text`` (search hits) or ``markdown`` (sections), next
to its citation, with a ``notice`` saying that these fields are quoted data. stdout belongs
to the protocol; every log line goes to stderr.

Every failure reaches the agent as one line saying why (`kbtools.agents.calls`): a KbError
as its message, arguments that fail the tool's schema as the fields and what is wrong with
them, a call without a tool name or with arguments that are no object as what is wrong with
it, anything unexpected as its type (the traceback goes to the server log on stderr) — never
a bare "Error executing tool". Messages are one line, escaped and bounded.
"""

from __future__ import annotations

import inspect
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from kbtools import __version__
from kbtools.agents.arguments import filters, refuse_blank
from kbtools.agents.asked import asked_search, release_name, release_named
from kbtools.agents.calls import (
    asked_in_chinese,
    call_shape,
    json_types,
    one_line_errors,
    text_kept,
    tool_error,
    tool_exception,
)
from kbtools.agents.citation_text import percent_decoded
from kbtools.agents.cited_read import read_cited
from kbtools.agents.cited_table import evaluate_cited
from kbtools.agents.docpath import check_doc_path, same_documents
from kbtools.agents.draft import create_draft, draft_config
from kbtools.agents.draft_git import ReleaseRead
from kbtools.agents.draft_photos import decoded_photos
from kbtools.agents.local_paths import places, unlocated, unlocated_fields, unlocated_values
from kbtools.agents.named import named
from kbtools.agents.opened import OpenedReleases
from kbtools.agents.parameters import (
    Author,
    Body,
    Count,
    Days,
    Doc,
    Filters,
    HeadingPath,
    LineEnd,
    LineStart,
    Location,
    Photos,
    Policy,
    Question,
    Quick,
    ReleaseCommit,
    ReleaseTag,
    ResultCount,
    SearchCommit,
    SearchRelease,
    TableChoice,
    TableCommit,
    TableInputs,
    TableRelease,
    Title,
    VerifiedOnly,
    category_parameter,
)
from kbtools.agents.read import open_knowledge
from kbtools.agents.recent import recent
from kbtools.agents.served_state import STATUS_DOC, served_state
from kbtools.agents.stdio import Wire
from kbtools.agents.tool_texts import (
    DATA_NOTICE,
    DRAFT_DOC,
    INSTRUCTIONS,
    READ_DOC,
    RECENT_DOC,
    SEARCH_DOC,
    TABLE_DOC,
)
from kbtools.config import CONFIG_NAME, MAX_K, find_root
from kbtools.decision import input_value
from kbtools.errors import (
    IndexLoadError,
    KbError,
    UsageError,
)
from kbtools.index.layout import ReleaseLayout
from kbtools.index.reader import KbIndex, ReleaseInfo
from kbtools.query.filters import shared_folders
from kbtools.query.log import record_question
from kbtools.query.search import keep_warm
from kbtools.query.search import search as run_search
from kbtools.schemas import categories
from kbtools.ship.checkout import open_index, resolve_index_path
from kbtools.ship.device import is_device_dir
from kbtools.words.error_words import said_to

log = logging.getLogger("kbtools.mcp")

# The tools' parameters (types, bounds, descriptions) are `kbtools.agents.parameters`; their
# descriptions and the server's instructions are `kbtools.agents.tool_texts`.


@dataclass
class Context:
    """What the tools read from: an index (lazily opened) and/or a repository.

    The SDK runs the tools in worker threads, several at once. Inside a tool call
    (`call()`), every `idx()` returns the release the call first read, so a `kb sync`
    meanwhile cannot mix two releases in one answer; a release replaced while calls still
    run on it is closed when the last of them ends (closing it under a running search
    crashed the server)."""

    index: Path | None = None
    root: Path | None = None
    query_log: bool = True  # record searches in a device's query log (`kbtools.query.log`)
    _idx: KbIndex | None = None
    _written: tuple[int, int] | None = None  # the write of _idx's manifest when opened
    _cache: dict[str, Any] = field(default_factory=dict)
    opener: Callable[[], KbIndex] | None = None  # an engine's served release (`kb mcp --engine`)
    _lock: threading.Lock = field(default_factory=threading.Lock)  # opening, switching, counts
    _calls: threading.local = field(default_factory=threading.local)  # this thread's call
    _users: dict[int, int] = field(default_factory=dict)  # id(index) → calls pinned to it
    _retired: list[KbIndex] = field(default_factory=list)  # replaced, closed once unused
    _held: dict[str, ReleaseInfo] = field(default_factory=dict)  # doc → last release with it
    earlier: OpenedReleases = field(default_factory=OpenedReleases)  # asked-for releases kept

    @contextmanager
    def call(self) -> Iterator[None]:
        """One tool call: the release it reads first is the one it reads throughout."""
        self._calls.pinned, self._calls.active = None, True
        try:
            yield
        finally:
            pinned: KbIndex | None = self._calls.pinned
            self._calls.pinned, self._calls.active = None, False
            if pinned is not None:
                with self._lock:
                    self._users[id(pinned)] -= 1
                    if not self._users[id(pinned)]:
                        del self._users[id(pinned)]
                    self._close_retired()

    def release_read(self) -> ReleaseRead | None:
        """The release the tools serve (its source commit and tag), None when they read a
        repository's files (no index)."""
        try:
            release = self.idx().release
        except IndexLoadError:  # none: the tools read the repository's own files
            return None
        return ReleaseRead(release.source_commit, release.tag, release.dirty)

    def idx(self) -> KbIndex:
        """The served index; reopened when the served release changes (after `kb sync`).
        Inside `call()`, the one the call read first."""
        pinned: KbIndex | None = getattr(self._calls, "pinned", None)
        if pinned is not None:
            return pinned
        with self._lock:
            served = self._served()
            if getattr(self._calls, "active", False):
                self._calls.pinned = served
                self._users[id(served)] = self._users.get(id(served), 0) + 1
        return served

    def _served(self) -> KbIndex:
        if self.opener is not None:
            served = self.opener()
            if served is not self._idx:
                self._idx = served
                self._note(served)
            return served
        root = resolve_index_path(self.index)  # IndexLoadError when there is none
        written = ReleaseLayout(root).written()  # a dist/ rebuilt under the same name
        if self._idx is None or (Path(self._idx.root).resolve(), self._written) != \
                (root.resolve(), written):
            old, self._idx, self._written = self._idx, open_index(root), written
            self._note(self._idx)
            if old is not None:
                self._retired.append(old)
                self._close_retired()
                self.earlier.sweep(root)  # a switch: it may have pruned one, or serve one
            log.info("serving index %s", self._idx.root)
        return self._idx

    def _note(self, idx: KbIndex) -> None:
        """Remember which documents release `idx` holds (under `_lock`), for `gone`."""
        for record in idx.docs():
            self._held[str(record["doc"])] = idx.release

    def gone(self, exc: KbError, doc: str) -> KbError:
        """`exc`, or when it says document `doc` is not in the index and a release this
        server served before held it, an error saying so in words: after a `kb sync` an
        agent reads again what an earlier answer cited, and "no such document" alone read
        as a wrong path (it retried spellings) rather than as knowledge the new release
        dropped. One a release the device keeps holds is said by `kept_elsewhere`."""
        if exc.key != "no_document" or not self._held or "kept" in exc.values:
            return exc
        names = [named(doc).doc]  # a citation's or a link's document
        rels = set()
        for name in [*names, *filter(None, map(percent_decoded, names))]:
            try:
                rels.add(check_doc_path(name))
            except KbError:  # refused as a path: not one a release held
                pass
        try:
            now = self.idx().release
        except IndexLoadError:  # none served now (dist/ removed): the error as it was
            return exc
        earlier = [path for path, release in self._held.items() if release != now]
        loose = {found for name in names for found in  # as a present one: but for case,
                 same_documents(name, earlier, shared_folders(self._held))}  # NFC, `.md`
        held = sorted({(path, self._held[path]) for path in earlier
                       if path in loose or any(path == rel or path.endswith("/" + rel)
                                               for rel in rels)}, key=lambda held: held[0])
        if len(held) != 1:
            return exc
        path, release = held[0]
        return KbError(f"{path} is not in the release served now ({release_name(now)}): it "
                       f"was in {release_name(release)}, which this server served before; "
                       "the knowledge was updated since and no longer holds it (removed or "
                       "renamed). Search again for what the release served now says, and do "
                       "not cite the earlier text as current" + exc.values.get("moved", ""),
                       key="doc_served_before",
                       values={**exc.values, "path": path, "now": release_named(now),
                               "before": release_named(release)})

    def _close_retired(self) -> None:
        """Close the replaced releases no call runs on any more (under `_lock`)."""
        for old in [r for r in self._retired if id(r) not in self._users]:
            self._retired.remove(old)
            old.close()

    def knowledge(self) -> Any:
        """The index's sources when an index is available (citations match), else the repo."""
        try:
            idx = self.idx()
        except IndexLoadError:
            if self.index is not None:
                raise
            return open_knowledge(self.root)
        cached = self._cache.get("kn")  # (index, its knowledge) of the latest release read
        if cached is None or cached[0] is not idx:
            cached = self._cache["kn"] = (idx, open_knowledge(idx=idx))
        return cached[1]

    def repo_root(self) -> Path:
        """The knowledge repo: the one around the working dir, else the one holding --index."""
        root = find_root(self.root)
        if not (root / CONFIG_NAME).is_file() and self.index is not None:
            root = find_root(Path(self.index).resolve())
        return root

    def device(self) -> Path | None:
        """The device directory given as the index, if it is one (its kept releases)."""
        return self.index if self.index is not None and is_device_dir(self.index) else None

    def release(self) -> dict[str, Any] | None:
        try:
            return self.idx().release.to_dict()
        except IndexLoadError:
            return None


# ----------------------------------------------------------------- tool cores (plain functions)

def tool_search(ctx: Context, query: str, k: int = 5,
                where: list[str] | str | Mapping[str, Any] | None = None,
                verified_only: bool | None = None, commit: str | None = None,
                release: str | None = None) -> dict[str, Any]:
    if isinstance(k, bool) or not 1 <= k <= MAX_K:  # the schema refuses it; a direct call too
        raise UsageError(f"'k' must be a whole number from 1 to {MAX_K}")
    refuse_blank(query, "'query' (the question)")  # nothing asked: as `kb query "  "`, the API
    try:  # one string is one filter, a blank one none, as the JSON API reads
        given = filters(where)
    except KbError as exc:  # said in the question's language, naming the key
        raise UsageError(tool_error(exc, zh=asked_in_chinese({"query": query})),
                         key=exc.key, values=exc.values) from None
    served = ctx.idx()
    with asked_search(served, commit, release, ctx.device(),  # an earlier release
                      opened=ctx.earlier) as idx:
        try:
            response = run_search(idx, query, k=k, where=given or None,
                                  verified_only=verified_only)
        except KbError as exc:
            record_question(idx, "mcp", query, None, enabled=ctx.query_log, error=exc.message)
            raise
        record_question(idx, "mcp", query, response, enabled=ctx.query_log)
    if idx is served and ctx._cache.get("settled") is not idx:  # its first search loaded
        keep_warm(idx)  # its models: as `kb serve` does after its warm-up question
        ctx._cache["settled"] = idx
    return {**response.to_dict(), "notice": DATA_NOTICE}


def tool_read(ctx: Context, doc: str, heading_path: list[str] | str | None = None,
              line_start: int | None = None, line_end: int | None = None,
              commit: str | None = None, release: str | None = None) -> dict[str, Any]:
    try:
        read = read_cited(ctx.knowledge(), doc, heading_path, line_start, line_end,
                          commit=commit, release=release, device=ctx.device(),
                          opened=ctx.earlier)
    except KbError as exc:  # said in Chinese to a Chinese asker, as `kb read` says it
        raise said_to(ctx.gone(exc, doc), (doc, heading_path)) from None
    out = read.to_dict()
    markdown = out.pop("markdown")
    out["notice"] = DATA_NOTICE
    out["markdown"] = markdown
    return out


def tool_recent(ctx: Context, days: int | None = None, n: int | None = None) -> dict[str, Any]:
    if ctx.index is None and ctx.root is not None:
        if (find_root(ctx.root) / "kb.toml").is_file():
            try:
                return recent(ctx.root, days=days, n=n)
            except IndexLoadError:
                pass
    return recent(ctx.root, idx=ctx.idx(), days=days, n=n)


def tool_status(ctx: Context, quick: bool | None = None) -> dict[str, Any]:
    return served_state(ctx.index, ctx.root, quick=quick, engine=ctx.opener is not None)


def tool_evaluate_table(ctx: Context, doc: str, inputs: dict[str, Any],
                        table: str | int | list[str] | None = None, policy: str | None = None,
                        commit: str | None = None, release: str | None = None) -> dict[str, Any]:
    values = {str(k): input_value(v, str(k)) for k, v in inputs.items()}
    try:  # a result's citation or a link names the table (`agents.named`), its release too
        result = evaluate_cited(ctx.knowledge(), doc, values, table, commit=commit,
                                release=release, device=ctx.device(), policy=policy,
                                opened=ctx.earlier)
    except KbError as exc:
        raise ctx.gone(exc, doc) from None
    return result.to_dict()


def tool_draft(ctx: Context, category: str, title: str, body: str, author: str | None = None,
               location: str | None = None, photos: list[Any] | None = None) -> dict[str, Any]:
    draft = create_draft(ctx.repo_root(), category, title, body, author=author, location=location,
                         source="agent report via kb mcp", photos=decoded_photos(photos),
                         read_from=ctx.release_read())
    if draft.merged:
        return {**draft.to_dict(), "verified": False,
                "next": "this report was already filed by an earlier call with the same "
                        "arguments and its draft has been merged since: nothing new was written"}
    done = ("this report was already filed by an earlier call with the same arguments (a "
            "retry): nothing new was written; " if draft.existing else "")
    moved = ("" if draft.read_from is None else
             "; its citations are of the release this server reads, built from uncommitted "
             "files: their lines may not be those of the draft's base, as its commit message "
             "says" if draft.read_from.dirty else
             "; its citations are of the release this server reads, not of the draft's "
             "base (the branch moved since): its commit message says so")
    return {**draft.to_dict(), "verified": False,
            "next": done + "a reviewer merges the draft branch after review (kb review)" + moved}


# ----------------------------------------------------------------- server

def build_server(*, index: Path | None = None, root: Path | None = None,
                 allow_write: bool = False, query_log: bool = True,
                 opener: Callable[[], KbIndex] | None = None) -> Any:
    """An MCPServer with the read tools, plus draft_report when writing is allowed."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool
    from mcp.types import ToolAnnotations

    ctx = Context(index=index, root=root or Path.cwd(), query_log=query_log, opener=opener)
    parameters: dict[str, tuple[str, ...]] = {}  # each tool's argument names, filled below
    optional: dict[str, dict[str, bool]] = {}  # those it has a default for (below)
    # the local places an agent is told of by their names: the knowledge repository (when
    # there is one), KB_HOME, … and an --index outside all of them
    repo = ctx.repo_root() if (ctx.repo_root() / CONFIG_NAME).is_file() else None
    local = places(repo)
    if index is not None and Path(unlocated(str(index.absolute()), local)).is_absolute():
        local = places(repo, (index, "$KB_INDEX"))
    server_class: type[MCPServer] = one_line_errors(MCPServer, parameters, optional, local)
    readonly = ToolAnnotations(read_only_hint=True, destructive_hint=False,
                               idempotent_hint=True, open_world_hint=False)

    def guarded(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        def call(*args: Any, **kwargs: Any) -> dict[str, Any]:
            try:
                with ctx.call():
                    return fn(ctx, *args, **kwargs)
            except KbError as exc:
                raise tool_exception(exc) from None
            except Exception as exc:  # a bug: say so in one line, keep the traceback here
                log.exception("tool %s failed unexpectedly", fn.__name__)
                raise tool_exception(exc) from None
        return call

    def search(query: Question, k: ResultCount = 5, where: Filters = None,
               verified_only: VerifiedOnly = None, commit: SearchCommit = None,
               release: SearchRelease = None) -> dict[str, Any]:
        return guarded(tool_search)(query, k, where, verified_only, commit, release)

    def read(doc: Doc, heading_path: HeadingPath = None, line_start: LineStart = None,
             line_end: LineEnd = None, commit: ReleaseCommit = None,
             release: ReleaseTag = None) -> dict[str, Any]:
        return unlocated_fields(guarded(tool_read)(doc, heading_path, line_start, line_end,
                                                    commit, release), local)

    def recent(days: Days = None, n: Count = None) -> dict[str, Any]:
        return guarded(tool_recent)(days, n)

    def evaluate_table(doc: Doc, inputs: TableInputs, table: TableChoice = None,
                       policy: Policy = None, commit: TableCommit = None,
                       release: TableRelease = None) -> dict[str, Any]:
        return unlocated_fields(guarded(tool_evaluate_table)(doc, inputs, table, policy,
                                                             commit, release), local)

    def status(quick: Quick = None) -> dict[str, Any]:  # all our words: no local paths
        return cast(dict[str, Any], unlocated_values(guarded(tool_status)(quick), local))

    tools: list[tuple[Callable[..., Any], str, ToolAnnotations]] = [
        (search, SEARCH_DOC, readonly), (read, READ_DOC, readonly),
        (recent, RECENT_DOC, readonly), (evaluate_table, TABLE_DOC, readonly),
        (status, STATUS_DOC, readonly)]
    if allow_write:
        writes = ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                 idempotent_hint=False, open_world_hint=False)
        try:  # no repository to file drafts in: say so now, not on every call
            known = categories(draft_config(ctx.repo_root()).path("schemas"))
        except KbError as exc:
            raise UsageError("--allow-write files drafts in the knowledge repository kb mcp "
                             f"starts in or the one holding --index: {exc.message}",
                             path=exc.path) from None

        def draft_report(category: str, title: Title, body: Body, author: Author = None,
                         location: Location = None, photos: Photos = None) -> dict[str, Any]:
            return guarded(tool_draft)(category, title, body, author, location, photos)

        draft_report.__annotations__["category"] = category_parameter(known)  # enum: known
        tools.append((draft_report, DRAFT_DOC + f"Known categories: {', '.join(known)}.\n",
                      writes))

    made = [text_kept(Tool.from_function(fn, description=doc, annotations=notes))
            for fn, doc, notes in tools]
    for (fn, _, _), tool in zip(tools, made, strict=True):
        params = inspect.signature(fn).parameters
        parameters[fn.__name__] = tuple(params)
        props = tool.parameters.get("properties", {})
        optional[fn.__name__] = {  # whether "" is left out too: the parameter takes no text
            p: "string" not in json_types(props.get(p, {})) for p, param in params.items()
            if param.default is not inspect.Parameter.empty}
    return server_class("kbtools", instructions=INSTRUCTIONS, version=__version__,
                        log_level="WARNING", tools=made, middleware=[call_shape(parameters)])


def serve(*, index: Path | None = None, allow_write: bool = False,
          query_log: bool = True, opener: Callable[[], KbIndex] | None = None) -> None:
    """Run the server on stdio until the client disconnects. Logs go to stderr. `opener`
    (an engine's `EngineReader.current`) replaces the index files. A client closing stdin
    gets an answer to every request it sent first (`kbtools.agents.stdio.Wire`).

    Ctrl-C ends the input as closing stdin does: the calls running finish, the server stops
    and the command exits 130 ("kb: interrupted"). Left to the event loop, it cancelled the
    SDK's tasks mid-message (an "unexpected error" and a crash log) or, with the stdin read
    still blocked, hung; a second Ctrl-C stops at once."""
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="kb mcp: %(message)s")
    server = build_server(index=index, allow_write=allow_write, query_log=query_log,
                          opener=opener)
    wire = Wire.open()
    interrupted: list[int] = []

    def on_interrupt(signum: int, frame: Any) -> None:
        interrupted.append(signum)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        wire.end()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, on_interrupt)
    log.info("kb mcp %s ready (write tools %s)", __version__,
             "enabled" if allow_write else "disabled")
    try:
        server.run("stdio")
    finally:
        wire.finish()
    if interrupted:
        raise KeyboardInterrupt  # `kb: interrupted`, exit 130 (kbtools/cli.py)
