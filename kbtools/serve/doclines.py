"""What a document page's address asks for, read against the document: the lines a link
cites (`cited_in`: none, past the end, in the front matter), where the passage a result's
link cites is now (`cited_chunk`: the link carries its chunk, so a link made before a sync
finds it moved, or says it changed), the chunks the cited lines hold (their terms are the
ones marked), and a document named without its ``.md`` or as a citation
(``knowledge/x.md:49-56``) sent to its page (`markdown_named`), and a citation pasted into
the search box opened at its lines (`citation_page`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from kbtools.agents.docpath import cited as as_citation
from kbtools.errors import KbError
from kbtools.serve.ops import ApiError, document
from kbtools.serve.passes import app_url
from kbtools.serve.source import Served

Translator = Callable[..., str]  # the page's words (`i18n.translator`)
_LINES = re.compile(r"^(\d{1,8})(?:-(\d{1,8}))?$")
_CHUNK = re.compile(r"[0-9a-f]{8,64}")


def cited_lines(value: str | None) -> tuple[int, int] | None:
    """The lines a link's ``lines`` names, first to last: ``49-56``, one line ``49``, or a
    range written backwards (``56-49``, a citation's numbers typed from its end) as the same
    lines; None for no range."""
    m = _LINES.match(value or "")
    if not m:
        return None
    a = int(m.group(1))
    b = int(m.group(2) or a)
    return (min(a, b), max(a, b))


def cited_in(t: Translator, asked: str, first: int,
             last: int) -> tuple[tuple[int, int] | None, str | None]:
    """The lines a link's `lines` cites in a document whose text runs from line `first` to
    `last`, and the note the page shows above it: no range, or one that holds none of the
    text (past its end, line 0, the front matter), cites nothing ("not in this document");
    one that runs past the end is marked up to it and says so (a link made for an older,
    longer version: what it cited may have moved)."""
    cited = cited_lines(asked)
    if not asked:
        return None, None
    if cited is None or cited[0] > last or cited[1] < first:
        return None, t("lines_not_here", lines=asked[:40])
    if cited[1] > last:
        return (cited[0], last), t("lines_past_end", lines=asked[:40], last=last)
    return cited, None


def cited_chunk(t: Translator, chunks: list[dict[str, Any]], chunk: str, asked: str,
                cited: tuple[int, int] | None) -> tuple[tuple[int, int] | None, str] | None:
    """The lines a result's link cites where its passage is now, and the page's note: a
    link carries the chunk its lines held (`results.CHUNK_PREFIX` characters of its id,
    which is its text's hash, not its lines'), so a link made before a sync that moved the
    passage (lines added above it) marks it where it is now, and one whose passage was
    changed or removed says that the lines may hold other text. None when the chunk is at
    the cited lines (or the link names none)."""
    if not _CHUNK.fullmatch(chunk):
        return None
    found = [c for c in chunks if str(c["id"]).startswith(chunk)]
    if not found:
        return cited, t("lines_changed", lines=asked[:40])
    now = (found[0]["line_start"], found[0]["line_end"])
    if cited is not None and cited[0] <= now[0] and now[1] <= cited[1]:
        return None
    return now, t("lines_moved", lines=asked[:40], a=now[0], b=now[1])


def cited_chunks(chunks: list[dict[str, Any]],
                 cited: tuple[int, int] | None) -> list[dict[str, Any]]:
    """The chunks a link to `cited` lines cites: those within the lines (a result's section
    and the finer chunks inside it), else those overlapping them (a row of a table chunk);
    every chunk of the document when no lines are cited or no chunk holds them."""
    if cited is None:
        return chunks
    lo, hi = cited
    within = [c for c in chunks if lo <= c["line_start"] and c["line_end"] <= hi]
    return within or [c for c in chunks if c["line_start"] <= hi and c["line_end"] >= lo] \
        or chunks


def markdown_named(request: Request, served: Served, kind: str) -> Response | None:
    """A redirect to the ``kind`` page (``doc``, ``table``) of the Markdown document the
    address names without its ``.md`` (a citation's path typed by hand, a link cut short),
    when the release holds exactly that document, and to the document page of a citation
    pasted as the path (``knowledge/x.md:49-56``, as `kb query` prints it) at its lines;
    None otherwise (the path is judged as given: no such document, or not a Markdown one,
    in the page's language)."""
    doc = request.path_params["path"].rstrip("/")
    if kind == "doc" and (given := as_citation(doc)) is not None and given.lines is not None \
            and "lines" not in request.query_params:
        a, b = given.lines
        query = urlencode([("lines", f"{a}-{b}"), *request.query_params.multi_items()])
        return RedirectResponse(app_url("doc", given.doc) + f"?{query}#cited", 307,
                                headers={"cache-control": "no-cache"})
    if not doc or doc.lower().endswith((".md", ".markdown")):
        return None
    for ext in (".md", ".markdown"):
        try:
            served.knowledge.resolve(doc + ext, exactly=True)
        except KbError:
            continue
        query = request.url.query
        return RedirectResponse(app_url(kind, doc + ext) + (f"?{query}" if query else ""), 307,
                                headers={"cache-control": "no-cache"})
    return None


def citation_page(served: Served, q: str, lang: str | None) -> Response | None:
    """A redirect to the document page, at its lines, of the citation `q` when the search
    box holds one (``knowledge/x.md:65-73 § A > B`` as `kb query`, the MCP tools and the
    results print it, with its release after it or as `Citation.display` shows it) of a
    document of the release: a citation shared in a chat and pasted into the box was
    searched as words, and the page said "no answer" beside "not in the knowledge:
    x.md". None for anything else (a question that names a document is searched);
    `lang`: the address's ``lang``, kept."""
    given = as_citation(q) if ".md" in q.lower() or ".markdown" in q.lower() else None
    if given is None or given.lines is None:
        return None
    try:
        src = document(served, given.doc)
    except (ApiError, KbError):
        return None
    a, b = given.lines
    query = urlencode([("lines", f"{a}-{b}")] + ([("lang", lang)] if lang else []))
    return RedirectResponse(app_url("doc", src.rel) + f"?{query}#cited", 303,
                            headers={"cache-control": "no-cache"})
