"""What the web app and the JSON API do, as plain functions over the served release.

Pages (`kbtools.serve.pages`) and the API (`kbtools.serve.api`) call the same functions, which
call the same library as `kb query`, `kb table eval` and the MCP tools: `query.search.search`,
`agents.read.read_section`, `decision` and `ship.operate`. Inputs from the network are checked
here (`ApiError` carries the HTTP status and a one-line message); a library `KbError` is
mapped to a status by `status_of`.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes

import anyio
from markdown_it.token import Token
from pydantic import TypeAdapter, ValidationError
from starlette.datastructures import QueryParams
from starlette.requests import ClientDisconnect, Request

from kbtools.agents.arguments import (
    MAX_INPUT_CHARS,
    MAX_INPUTS,
    MAX_LINE,
    MAX_QUESTION_CHARS,
    filters,
    flag,
    is_digits,
    whole_number,
)
from kbtools.agents.citation_text import NARROW_DIGITS
from kbtools.agents.parameters import filter_list, filter_object
from kbtools.config import MAX_K
from kbtools.corpus import SourceDoc
from kbtools.decision.documents import document_tables
from kbtools.decision.matching import input_value
from kbtools.decision.model import DecisionTable
from kbtools.errors import EngineError, IndexLoadError, KbError, TableError, UsageError, one_line
from kbtools.index.layout import ReleaseLayout
from kbtools.index.reader import KbIndex
from kbtools.index.verdicts import LAST_LINE
from kbtools.markdown.doctree import parse
from kbtools.markdown.figures import tags_hidden
from kbtools.markdown.parser import Env
from kbtools.query import freshness
from kbtools.query.filters import Condition
from kbtools.query.question import is_blank, refuse_blank
from kbtools.query.results import SearchResponse
from kbtools.query.search import search as run_search
from kbtools.serve.callout_frame import as_read
from kbtools.serve.i18n import error_zh
from kbtools.serve.source import Served
from kbtools.ship.changes import diff_releases
from kbtools.ship.checkout import clone_of_derived
from kbtools.ship.devicestate import read_json, rollback_into
from kbtools.ship.git import parse_serial
from kbtools.ship.operate import local_releases
from kbtools.ship.release import age_days, clock_behind
from kbtools.ship.sync_record import last_sync
from kbtools.ship.tagged import diff_tags

_TAG = re.compile(r"^kb-r[0-9]{1,9}$")  # a release tag given to /api/diff
BODY_SECONDS = 30.0  # a request body (at most 64 KiB) arrives within this, from its headers
ZH_WHAT = {"form": "表单", "request body": "请求内容"}  # what `read_bounded` reads, in Chinese


class ApiError(Exception):
    """A request the server refuses: HTTP `status` and a one-line `message` (English: the
    JSON API's ``error.message``), and `zh`, the same in Chinese for a Chinese page (every
    refusal a page can meet has one; None for the API's own)."""

    def __init__(self, status: int, message: str, zh: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = one_line(message)
        self.zh = one_line(zh) if zh is not None else None

    def message_in(self, lang: str) -> str:
        """The message in a page's `lang` (English when it has no Chinese)."""
        return self.zh if lang == "zh" and self.zh is not None else self.message


async def read_bounded(request: Request, limit: int, what: str) -> bytes:
    """The request's body, at most `limit` bytes: ApiError 413 naming `what` otherwise, on
    its declared length before anything is read, else as it streams in; ApiError 400 when
    the client goes before sending all of it (a dropped connection is no server failure to
    log with a traceback); ApiError 408 when it has not sent all of it within the app's
    ``body_seconds`` (`BODY_SECONDS`): a client that stalls half-way would otherwise hold
    its connection, one of the server's few, for ever."""
    declared = request.headers.get("content-length")
    if declared is not None and (not is_digits(declared) or int(declared) > limit):
        raise ApiError(413, f"{what} larger than {limit} bytes",
                       f"提交的{ZH_WHAT.get(what, what)}超过 {limit} 字节")
    seconds = getattr(request.app.state, "body_seconds", BODY_SECONDS)
    body = bytearray()
    try:
        with anyio.fail_after(seconds):
            async for part in request.stream():
                body += part
                if len(body) > limit:
                    raise ApiError(413, f"{what} larger than {limit} bytes",
                                   f"提交的{ZH_WHAT.get(what, what)}超过 {limit} 字节")
    except ClientDisconnect:
        raise ApiError(400, f"the client closed the connection before sending the whole "
                            f"{what}", f"{ZH_WHAT.get(what, what)}还没传完，连接就断开了") from None
    except TimeoutError:
        raise ApiError(408, f"the {what} did not arrive within {seconds:g} seconds",
                       f"{ZH_WHAT.get(what, what)}没有在 {seconds:g} 秒内传完") from None
    return bytes(body)


def status_of(exc: KbError) -> int:
    """The HTTP status of a library error."""
    if isinstance(exc, (IndexLoadError, EngineError)):
        return 503
    return 400


# --- checks on request values ------------------------------------------------------------

def check_address_text(query: bytes) -> None:
    """ApiError 400 when a field of the address's query string (its raw bytes, before
    Starlette decodes them, which turns a byte that is not UTF-8 into U+FFFD and the
    question into another one, or into none) is not UTF-8 text: naming the field and the
    byte, as a percent-encoded question from a client in another encoding (GBK: ``%D0%A1``)
    would otherwise be searched as what it is not."""
    for part in query.split(b"&"):
        name, _, value = part.partition(b"=")
        for piece in (name, value):
            raw = unquote_to_bytes(piece.replace(b"+", b" "))
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                field = one_line(unquote_to_bytes(name).decode("utf-8", "replace"), 40)
                raise ApiError(
                    400, f"{field!r} in the address is not UTF-8 text (byte "
                         f"0x{raw[exc.start]:02X} at byte {exc.start + 1}): percent-encode "
                         "it as UTF-8",
                    f"地址中的 {field!r} 不是 UTF-8 文字（第 {exc.start + 1} 个字节为 "
                    f"0x{raw[exc.start]:02X}），请按 UTF-8 编码") from None


def check_question(q: Any, named: str = "q", *, blank: bool = False) -> str:
    """The question given as `named` (``q`` or ``query``), a string of at most
    `MAX_QUESTION_CHARS`; a blank one (`question.is_blank`: spaces, control or invisible
    characters alone) refused as MCP `search` and `kb query` refuse it, unless `blank`
    (the search page's empty box: the form, nothing searched)."""
    if not isinstance(q, str):
        raise ApiError(400, f"{named!r} (the question) must be a string",
                       f"问题（{named}）必须是文字")
    if len(q) > MAX_QUESTION_CHARS:
        raise ApiError(400, f"question longer than {MAX_QUESTION_CHARS} characters",
                       f"问题超过 {MAX_QUESTION_CHARS} 个字符")
    if not blank and is_blank(q):
        try:
            refuse_blank(q, f"{named!r} (the question)")
        except UsageError as exc:
            raise ApiError(400, exc.message, f"问题（{named}）是空的：请输入要问的内容") from None
    return q


def check_k(k: Any, default: int = 5) -> int:
    """The number of results a request asks for: `default` when it gives none (left out,
    null, or blank: ``k=``, ``k=%20``, as a search page reads it, `nearest_k`); 400 for
    anything but a whole number from 1 to `MAX_K`."""
    if k is None or isinstance(k, str) and not k.strip():
        return default
    value = whole_number(k, 1, MAX_K)
    if value is None:
        raise ApiError(400, f"'k' must be a whole number from 1 to {MAX_K}",
                       f"结果条数（k）必须是 1 到 {MAX_K} 之间的整数")
    return value


def nearest_k(k: str | None, default: int) -> tuple[int, bool]:
    """The number of results a search page shows for its address's ``k``, and whether that
    is not the ``k`` asked: the nearest allowed (``0``, ``-1`` → 1; ``10000`` → `MAX_K`;
    ``7.6`` → 8), or `default` for no number (``abc``). A page says so next to its results
    and keeps its question; /api/search refuses what `check_k` refuses."""
    if k is None or k.strip() == "":
        return default, False
    if (exact := whole_number(k, 1, MAX_K)) is not None:
        return exact, False
    try:
        number = float(k.strip().translate(NARROW_DIGITS).replace("\u2212", "-"))
    except ValueError:
        return default, True
    if not math.isfinite(number):
        return (MAX_K if number > 0 else 1 if number < 0 else default), True
    return min(max(round(number), 1), MAX_K), True


def check_where(where: Any) -> list[str]:
    """The filters a search's `where` gives, read as the MCP tool `search` reads it
    (`agents.arguments.filters`): one string, a list of strings, or an object with one
    filter per key (``{"crop": "小麦", "功率": ">5kW"}``), which was refused here as "must be
    a list" while MCP searched it. Bounded by the tool's own types (`bounded`); ApiError
    400 naming what is wrong, a value of another type refused by `filters` naming its key."""
    if where is None:
        return []
    if isinstance(where, str):
        where = [where]
    if isinstance(where, Mapping):
        bounded(filter_object(), where)
        return filters(where)
    if not isinstance(where, list) or not all(isinstance(w, str) for w in where):
        raise ApiError(400, "'where' must be a list of KEY=VALUE strings or an object "
                            "{KEY: VALUE}",
                       "筛选条件（where）必须是 KEY=VALUE 形式的字符串列表或 {键: 值} 对象")
    bounded(filter_list(), where)
    return filters(where)


def bounded(model: TypeAdapter[Any], where: list[str] | Mapping[str, Any]) -> None:
    """ApiError 400 when `where` holds more filters, or a text longer, than `model` (the MCP
    tool's `parameters.FilterObject` or `FilterList`) allows: the bounds live there alone.
    The refusal names the object's key whose values are too many or too long (``where.crop``);
    a value of another type is `filters`' to refuse, naming its key."""
    try:
        model.validate_python(where)
    except ValidationError as exc:
        for error in exc.errors():
            loc, most = error["loc"], (error.get("ctx") or {}).get("max_length")
            at = f".{one_line(str(loc[0]), 40)}" \
                if isinstance(where, Mapping) and loc and loc[-1] != "[key]" else ""
            if error["type"] == "too_long":
                raise ApiError(400, f"at most {most} 'where{at}' filters",
                               f"筛选条件（where{at}）最多 {most} 个") from None
            if error["type"] == "string_too_long":
                raise ApiError(400, f"a 'where{at}' filter longer than {most} characters",
                               f"筛选条件（where{at}）有一个超过 {most} 个字符") from None


def check_flag(value: Any, name: str) -> bool | None:
    """`value` of the true/false parameter `name` (named when refused: the API's client
    sending several is told which one was wrong)."""
    read = flag(value)
    if read is None or isinstance(read, bool):
        return read
    text = str(value).strip().lower()
    raise ApiError(400, f"{name!r} must be true or false, not {one_line(text, 40)!r}",
                   f"{name} 的值只能是 true 或 false，不能是“{one_line(text, 40)}”")


def check_names(given: Any, takes: Sequence[str], endpoint: str,
                repeatable: Sequence[str] = (), instead: Mapping[str, str] = {}) -> None:
    """Refuse a parameter `endpoint` does not take (`takes`), naming it and the ones it
    takes, as the MCP tools refuse an argument they do not take: one was dropped without a
    word (``/api/read?heading=3.2`` returned the whole document as if it were the section,
    ``top_k`` gave the default number of results). ``token`` is the server's own (a
    browser's first visit, `kbtools.serve.security`), never a parameter of an endpoint.
    In a query string (`given` a QueryParams), a parameter not `repeatable` may be given
    once: the last of two was read (``doc=a.md&doc=b.md`` read b.md). `instead`: what to
    send for a parameter another endpoint takes (`agents.arguments.TABLE_INSTEAD`), said
    as the MCP tool says it."""
    unknown = sorted(set(given) - set(takes) - {"token"})
    if unknown:
        hint = instead.get(unknown[0])
        raise ApiError(400, f"unknown parameter {one_line(unknown[0], 40)!r} ({endpoint} "
                            f"takes {', '.join(takes) or 'none'})" + (f"; {hint}" if hint else ""))
    if isinstance(given, QueryParams):
        twice = [k for k in takes if k not in repeatable and len(given.getlist(k)) > 1]
        if twice:
            raise ApiError(400, f"'{twice[0]}' given {len(given.getlist(twice[0]))} times; "
                                "give it once")


def check_line(value: Any, name: str) -> int | None:
    if value is None or value == "":
        return None
    line = whole_number(value, 1, MAX_LINE)
    if line is None:
        raise ApiError(400, f"'{name}' must be a line number from 1 to {MAX_LINE}")
    return line


# --- operations --------------------------------------------------------------------------

def search(served: Served, q: str, *, k: int = 5, where: list[str] | None = None,
           conditions: Sequence[Condition] = (),
           verified_only: bool | None = None) -> SearchResponse:
    """One search on the served release (one at a time per release, see `source`): filters
    typed as text (`where`, the API's) and chosen as (key, op, value) (`conditions`, the
    search page's menus: a value is never parsed as text)."""
    return timed_search(served, q, k=k, where=where, conditions=conditions,
                        verified_only=verified_only)[0]


def timed_search(served: Served, q: str, *, k: int = 5, where: list[str] | None = None,
                 conditions: Sequence[Condition] = (), verified_only: bool | None = None,
                 index: KbIndex | None = None) -> tuple[SearchResponse, float, float]:
    """`search`, with the milliseconds spent waiting for the release's search lock and
    searching (the API reports both in a ``Server-Timing`` header). `index`: an earlier
    release asked for (`agents.asked.asked_search`, kept open by `agents.opened`), searched
    instead of the served one, under the same lock (the embedders and tokenizer are the
    process's)."""
    t0 = time.perf_counter()
    with served.search_lock:
        t1 = time.perf_counter()
        response = run_search(served.index if index is None else index, q, k=k,
                              where=where or None, conditions=conditions,
                              verified_only=verified_only)
    t2 = time.perf_counter()
    return response, (t1 - t0) * 1000, (t2 - t1) * 1000


def document(served: Served, doc: str, section_arg: str = "heading_path",
             exactly: bool = False) -> SourceDoc:
    """The shipped source of `doc` (UsageError for a refused path, 404 when absent);
    `section_arg` and `exactly` as `Knowledge.resolve` takes them."""
    kn = served.knowledge
    try:
        path = kn.resolve(doc, section_arg, exactly)
    except UsageError:
        raise
    except KbError as exc:
        raise ApiError(404, exc.message,
                       error_zh(exc) or f"本发布版本中没有这个文档：{doc}") from None
    return kn.read(path)


def passage_markdown(served: Served, doc: str, text: str, first: int, last: int) -> str:
    """The Markdown a result's passage is shown from: `doc`'s file lines `first`-`last` as
    written when `text` (a chunk's text) is those whole lines, else `text`. Chunk text is
    what a reader sees (`&lt;` reads `<`, a comment or a tag is left out), not the Markdown
    written: the source lines render as the document's page renders them (their edges read
    as chunk text reads them: a callout's title line without its `[!type]` marker, a line
    of HTML without its tags but pictures, `figures.tags_hidden`). A passage that
    starts or ends inside a line (a long paragraph cut at a sentence), or a source not on
    this device, is shown from its text."""
    try:
        src = document(served, doc)
    except (KbError, ApiError):
        return text
    lines = src.text.split("\n")[first - 1:last] if 0 < first <= last else []
    shown = text.strip().split("\n")
    if len(lines) != last - first + 1 \
            or not _same_edge(as_read(tags_hidden(lines[0])), shown[0], start=True) \
            or not _same_edge(as_read(tags_hidden(lines[-1])), shown[-1], start=False):
        return text
    return "\n".join(lines)


EDGE_CHARS = 8  # a passage is its whole lines when its first and last lines begin and end alike


def _same_edge(written: str, shown: str, start: bool) -> bool:
    """Whether a source line and a passage's line begin (`start`) or end alike: their
    first or last `EDGE_CHARS` characters but backslashes (an escape at the line's edge)."""
    a, b = written.strip().replace("\\", ""), shown.strip().replace("\\", "")
    n = min(EDGE_CHARS, len(a), len(b))
    return n > 0 and (a[:n] == b[:n] if start else a[-n:] == b[-n:])


def doc_chunks(served: Served, doc: str) -> list[dict[str, Any]]:
    """The chunk records of `doc` in the served release, in line order (by first line, then
    chunk number)."""
    return served.index.store.overlapping(doc, 1, LAST_LINE)


def table_chunk(served: Served, doc: str, line: int) -> dict[str, Any] | None:
    """The whole-table chunk of `doc` holding file line `line` (a table row's table; the
    innermost when tables nest)."""
    tables = [c for c in served.index.store.overlapping(doc, line, line) if c["kind"] == "table"]
    return tables[-1] if tables else None


def review_status(served: Served, src: SourceDoc, today: date | None = None,
                  chunks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A document's review state: verified by whom and when, the passages changed after the
    review and those whose review could not be checked (per chunk, from the release), and
    whether it is past its ``valid_until`` on `today` (default: the local date, as search
    decides it: `query.freshness`). It is verified only when it says so and the
    release serves every one of its passages as verified (a build outside Git, or from a
    shallow clone, serves a declared review as unchecked). `chunks`: its chunk records when
    the caller read them already (`doc_chunks`: a manual's cost tens of ms to read)."""
    meta = src.meta
    declared = meta.get("verified") is True
    chunks = doc_chunks(served, src.rel) if chunks is None else chunks
    lapsed: list[dict[str, Any]] = []
    unchecked: list[dict[str, Any]] = []
    for c in chunks:
        if c.get("verified"):
            continue
        review = c.get("verification") or {}
        entry = {"lines": [c["line_start"], c["line_end"]],
                 "heading_path": list(c.get("heading_path") or []),
                 "reason": review.get("reason")}
        (lapsed if review.get("status") == "lapsed" else unchecked).append(entry)
    return {"verified": declared and bool(chunks) and not lapsed and not unchecked,
            "declared_verified": declared,
            "verified_by": meta.get("verified_by"), "verified_at": meta.get("verified_at"),
            "changed_after_review": lapsed,
            "not_checked": unchecked if declared else [],
            "outdated": freshness.is_outdated(meta, freshness.today_or(today))}


def decision_tables(served: Served, doc: str) -> tuple[SourceDoc, list[DecisionTable | TableError]]:
    src = document(served, doc, section_arg="table", exactly=True)  # a table is chosen by
    # `table`; a page's address naming it otherwise is redirected (`serve.nearest`)
    return src, tables_of(served, src)


def tables_of(served: Served, src: SourceDoc, tokens: list[Token] | None = None,
              env: Env | None = None) -> list[DecisionTable | TableError]:
    """The tables of `src` (a document of the release `served`) read as decision tables,
    once per opened release (it never changes): a manual's 87 tables cost its page 0.3 s of
    condition parsing on every request, to know whether to offer a decision table at all.
    `tokens` and `env`: `src.body`'s parse made already (`docparts`: the page renders the
    same tokens), read unchanged, so that a document's first view parses it once, not twice
    (a 300-formula handbook's second parse was half of its first view)."""
    tables: dict[str, list[DecisionTable | TableError]] = served.cache.setdefault(
        "decision_tables", {})
    if src.rel not in tables:
        tables[src.rel] = document_tables(src, None if tokens is None else
                                          parse(src, tokens, env))
    return tables[src.rel]


def decision_table_at(tables: list[DecisionTable | TableError], line: int) -> int | None:
    """The number (1-based, as `select_table` counts: among the document's decision tables)
    of the decision table spanning file line `line`; None when the Markdown table there is
    not a decision table, or is a malformed one (choosing it is an error)."""
    for n, t in enumerate(tables, 1):
        if isinstance(t, DecisionTable) and t.line_start <= line <= t.line_end:
            return n
    return None


def first_decision_table(tables: list[DecisionTable | TableError]) -> int | None:
    """The number of the document's first well-formed decision table; None when it has none."""
    return next((n for n, t in enumerate(tables, 1) if isinstance(t, DecisionTable)), None)


def check_inputs(inputs: Any) -> dict[str, str]:
    """The ``inputs`` object of a table evaluation as column → text (`decision.input_value`:
    strings as given, numbers exactly, booleans / NaN / ±infinity refused)."""
    if not isinstance(inputs, dict):
        raise ApiError(400, "'inputs' must be an object of column: value")
    if len(inputs) > MAX_INPUTS:
        raise ApiError(400, f"at most {MAX_INPUTS} inputs")
    out = {}
    for key, value in inputs.items():
        if len(key) > MAX_INPUT_CHARS or (isinstance(value, str) and len(value) > MAX_INPUT_CHARS):
            raise ApiError(400, f"an input longer than {MAX_INPUT_CHARS} characters")
        try:
            out[key] = input_value(value, key)
        except TableError as exc:
            raise ApiError(400, exc.message) from None
    return out


def release_info(served: Served) -> dict[str, Any]:
    """What is served: tag, serial, source commit, when it was released and by whom signed;
    `clock_behind`, what to say when this machine's clock reads before that release was made
    (`kbtools.ship.release.clock_behind`), else None."""
    layout = ReleaseLayout(served.root)
    rel = read_json(layout.release_json)
    ver = read_json(layout.verified)
    created = rel.get("created")
    age = age_days(created)
    return {**served.index.release.to_dict(), "created": created,
            "age_days": round(age, 2) if age is not None else None,
            "clock_behind": clock_behind(created),
            "signed_by": ver.get("signed_by"), "verified_at": ver.get("verified_at"),
            "documents": len(served.index.docs()), "chunks": served.index.store.count()}


def comparable(device: Path | None, served: Served) -> bool:
    """Whether the index served has releases to compare: a device's, or a git checkout's
    release tags."""
    return device is not None or clone_of_derived(Path(served.index.root)) is not None


def diff(device: Path | None, old: str | None = None, new: str | None = None,
         served: Served | None = None) -> dict[str, Any]:
    """What changed between two releases of the device (default: the served one and the one
    before it), as `kb diff --json` prints it; of a git checkout of a release, `served`,
    two of its release tags (default: the one served and the tag before it)."""
    clone = clone_of_derived(Path(served.index.root)) if device is None and served else None
    if device is None and clone is None:
        raise ApiError(404, "not serving a device directory: there are no releases to compare",
                       "这里提供的不是设备目录，没有可比较的版本")
    for name, value in (("old", old), ("new", new)):
        if value is not None and not _TAG.match(value):
            raise ApiError(400, f"'{name}' must be a release tag such as kb-r3",
                           f"“{name}”必须是 kb-r3 这样的版本号")
    if device is not None:
        return diff_releases(device, old, new, paths=False).to_dict()
    tag = served.index.release.tag if served is not None else None
    return diff_tags(*clone, old, new or tag).to_dict() if clone is not None else {}


def releases(served: Served, device: Path | None, published: list[dict[str, Any]] | None = None,
             engine: str | None = None) -> dict[str, Any]:
    """The served release and, on a device, the releases it keeps (newest first) and the
    `kb rollback` that switched to the served one (`rollback`: at, from, user, `forward`
    when it undid a rollback, else None), and its last sync when it failed or what serves
    changed since (`sync_record.last_sync`: its `statement` of what served then and now); when serving from an engine, the releases
    published there (`published`, newest first)."""
    kept = local_releases(device) if device is not None else published or []
    tag = served.index.release.tag
    entry = rollback_into(device, tag) if device is not None else None
    rollback = None if entry is None else {
        "from": entry.get("from"), "at": entry.get("at"), "user": entry.get("user"),
        "why": entry.get("why"), "cause": entry.get("cause"),
        "forward": (parse_serial(str(entry.get("from") or "")) or 0) < (parse_serial(tag or "") or 0)}
    return {"served": release_info(served), "device": device is not None, "engine": engine,
            "releases": kept, "rollback": rollback,
            "last_sync": last_sync(device) if device is not None else None}
