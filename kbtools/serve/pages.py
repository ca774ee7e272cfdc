"""The web app's pages, rendered on the server with Jinja2 (autoescaped) from `ops` results.

``/`` search (facets from the release's front-matter vocabulary, verified-only; the form is POSTed
and redirected to a GET: a question that fits a URL to its link, a longer one to its key in
`held`), ``/doc/…``
a document with the cited lines highlighted, ``/table/…`` a decision-table form, ``/release``
what is served (the release files they show: `releasefiles`). Pages hold no script of
their own: each loads ``/static/search.js`` (on the search page the question box grows and
Enter searches; on every page, one the browser kept while a sync switched the release says
so), and works as well without it.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode

from markupsafe import Markup
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import Scope

from kbtools.agents.arguments import MAX_INPUT_CHARS, MAX_QUESTION_CHARS
from kbtools.config import MAX_K
from kbtools.decision.documents import select_table
from kbtools.decision.given import InputError
from kbtools.decision.headers import header_unit_start
from kbtools.decision.matching import match_rules
from kbtools.decision.model import DecisionTable
from kbtools.decision.units import GROUP_OF
from kbtools.errors import PAGE_FILTERS, KbError, TableError, UsageError, one_line, surface_message
from kbtools.query import freshness
from kbtools.query.filter_checks import check_filters
from kbtools.query.filter_fields import degrees_as_celsius, filter_keys
from kbtools.query.filter_text import values_of
from kbtools.query.filters import (
    Condition,
    checked_conditions,
    emptying_filters,
    fractions_left_out,
    meant_values,
    resolve_docs,
    unheld_values,
)
from kbtools.query.log import record_question
from kbtools.query.question import is_blank
from kbtools.query.results import NAMES_SHOWN, shown_title
from kbtools.query.search import matched_terms
from kbtools.serve import ops, releasefiles, whereform
from kbtools.serve.doclines import (
    citation_page,
    cited_chunk,
    cited_chunks,
    cited_in,
    markdown_named,
)
from kbtools.serve.docparts import doc_parts
from kbtools.serve.docview import render_prepared
from kbtools.serve.headings import first_heading_level
from kbtools.serve.held import AnswerTags, Held, HeldQuestions
from kbtools.serve.i18n import (
    HTML_LANG,
    changes_summary,
    changes_with_langs,
    content_lang,
    content_word,
    error_in,
    error_zh,
    meant_text,
    unknown_key_text,
)
from kbtools.serve.nearest import former_title, opened_for, suggestions
from kbtools.serve.pagerender import Page
from kbtools.serve.passes import app_url
from kbtools.serve.results import columns_key, render_context, result_view
from kbtools.serve.security import MAX_QUERY_STRING, local_path
from kbtools.serve.source import Served, ServedIndex, Workers
from kbtools.serve.staticfiles import asked_tags, revalidated
from kbtools.ship.sync_record import last_sync, rollback_why, statement_text

log = logging.getLogger("kbtools.serve")
ApiError = ops.ApiError

MAX_FACET_VALUES = 200  # values listed per facet
# The search form is POSTed (a pasted log of thousands of characters, a long Chinese question,
# do not fit a URL): its body holds a paste of up to MAX_PASTE_CHARS percent-encoded (a
# character is up to 4 UTF-8 bytes of 3 characters each) and the filters. The question is
# cut to the MAX_QUESTION_CHARS every surface reads, and the page says so. A question whose
# form fits a query string is redirected to its GET URL (a link to keep, reload and back as
# before), a longer one to its key in `held`.
MAX_PASTE_CHARS = 4 * MAX_QUESTION_CHARS
MAX_FORM_BYTES = 12 * MAX_PASTE_CHARS + 16 * 1024
HELD_PARAM = "held"
# How long the search page's script waits for a search's answer before saying on the page
# that the server did not answer (the question kept in the box): a first search on a slow
# device, a pasted log condensed, take seconds, not a minute.
SEARCH_WAIT_SECONDS = 60
# ... and after how long it says the answer is long in coming and offers to send it again
# (patchy 4G: a request lost on the way is never answered; waiting out the minute was the
# only choice)
SEARCH_PATIENCE_SECONDS = 8
SEARCH_K = 10  # the results a search page shows when its address asks no other number (`k`)
FILTER_PREFIX = "f."  # a search address's filter: f.KEY=VALUE
FORM_TYPE = "application/x-www-form-urlencoded"


def _source(request: Request) -> ServedIndex:
    source: ServedIndex = request.app.state.source
    return source


PageFn = Callable[[Page, Served], Response]


def page(fn: PageFn, *, search: bool = False) -> Callable[[Request], Any]:
    """`fn` run on a worker thread (a search's when `search`); a refused request or a
    library error as an error page."""
    async def handler(request: Request) -> Response:
        p = Page(request)
        if request.method == "POST":  # the search form
            try:
                form = await read_form(request)
            except ops.ApiError as exc:
                refused = p.refused(exc)
                if exc.status == 408:  # the form came too slowly: end the connection too
                    refused.headers["connection"] = "close"
                return refused
            return RedirectResponse(redirect_target(request, form), 303,
                                    headers={"cache-control": "no-store"})
        if HELD_PARAM in request.query_params:
            held = held_questions(request).get(request.query_params[HELD_PARAM])
            p.gone = held is None
            if held is not None:
                p.params = QueryParams([*held.fields, *((k, v) for k, v in request.query_params
                                        .multi_items() if k == "lang")])
                p.pasted_chars = held.pasted_chars

        def run() -> Response:
            served: Served | None = None
            try:
                ops.check_address_text(request.scope.get("query_string", b""))
                served = _source(request).get()
                p.knowledge(served)
                return fn(p, served)
            except ops.ApiError as exc:
                return p.refused(exc, served)
            except KbError as exc:
                return p.error(ops.status_of(exc), one_line(surface_message(exc, PAGE_FILTERS)), served,
                               error_zh(exc), original=True)
            except Exception as exc:  # a bug: one line on the page, the traceback in the log
                log.exception("page %s failed", request.url.path)
                return p.error(500, f"internal error ({type(exc).__name__})")
        workers: Workers = request.app.state.workers
        return revalidated(request, await workers.run(run, search=search))
    return handler


def held_questions(request: Request) -> HeldQuestions:
    held: HeldQuestions = request.app.state.held
    return held


def redirect_target(request: Request, form: QueryParams) -> str:
    """Where a POSTed search form is redirected: the GET link of its fields when they fit a
    query string, else a link to them held (`held`), the question cut to
    `MAX_QUESTION_CHARS` when the paste was longer (the page then says so)."""
    lang = request.query_params.get("lang")
    path = local_path(request.url.path)
    form = whereform.folded(form)  # the conditions' rows as the ``where=`` the API takes
    question = form.get("q", "")
    if len(question) <= MAX_QUESTION_CHARS:
        query = urlencode(link_fields(form, lang))
        if len(query) <= MAX_QUERY_STRING:
            return path + (f"?{query}" if query else "")
    fields = [(k, v[:MAX_QUESTION_CHARS] if k == "q" else v)
              for k, v in form.multi_items() if v and k != "lang"]
    cut = len(question) if len(question) > MAX_QUESTION_CHARS else None
    key = held_questions(request).put(Held(tuple(fields), cut))
    return path + "?" + urlencode([(HELD_PARAM, key), *([("lang", lang)] if lang else [])])


def link_fields(form: QueryParams, lang: str | None) -> list[tuple[str, str]]:
    """The fields of the GET link a POSTed search form is redirected to: those given a value
    (a filter left at "any" is sent empty: 14 of them on the example knowledge), and the
    language the form was posted in (``?lang=`` of its URL), which the form does not hold."""
    fields = [(k, v) for k, v in form.multi_items() if v]
    if lang and "lang" not in form:
        fields.append(("lang", lang))
    return fields


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals of a page address (no such page 404, wrong method 405) as an
    error page in the reader's language, not plain English text."""
    status = int(getattr(exc, "status_code", 500))
    detail = (f"no page {request.url.path}" if status == 404 else
              f"{request.method} is not allowed here" if status == 405 else
              str(getattr(exc, "detail", "error")))
    zh = (f"没有这个页面：{request.url.path}" if status == 404 else
          f"这里不接受 {request.method} 请求" if status == 405 else None)
    page = Page(request)
    if (served := _source(request).latest()) is not None:  # its name, nothing opened for it
        page.knowledge(served)
    response = page.error(status, detail, zh=zh)
    response.headers.update(getattr(exc, "headers", None) or {})
    return response


async def read_form(request: Request) -> QueryParams:
    """The fields of a POSTed form, at most MAX_FORM_BYTES (ApiError otherwise)."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != FORM_TYPE:
        raise ApiError(415, f"a form is sent as {FORM_TYPE}", f"表单应以 {FORM_TYPE} 格式提交")
    body = await ops.read_bounded(request, MAX_FORM_BYTES, "form")
    try:
        return QueryParams(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise ApiError(400, "the form is not UTF-8", "表单不是 UTF-8 编码") from None


# --- search ----------------------------------------------------------------------------

def search_page(p: Page, served: Served) -> Response:
    params = p.params
    q = ops.check_question(params.get("q", ""), blank=True)
    if (opened := citation_page(served, q, params.get("lang"))) is not None:
        return opened
    facets = {f: sorted(v)[:MAX_FACET_VALUES] for f, v in sorted(served.index.facets().items())}
    pairs = asked_filters(params)
    asked = dict(reversed(pairs))  # a key's menu shows its first value
    chosen = {f: asked.get(f, "") for f in facets} | asked
    # every filter asked is shown chosen, one no menu lists too (a value past the menu's
    # length, a front-matter key that is no facet, one the knowledge lacks): never "Any"
    facets |= {f: [v] for f, v in asked.items() if f not in facets}
    facets = {f: values if not chosen[f] or chosen[f] in values else [chosen[f], *values]
              for f, values in facets.items()}
    # as (key, op, value): a value is not text to parse (`<1 ha`, `"A"` are values)
    where: list[Condition] = [(f, "=", v) for f, v in pairs]  # all apply, a key given twice too (as --where)
    typed = whereform.asked(params)  # the conditions' rows: `--where` as the CLI reads it
    flag: str | None = None  # why the search is refused before it is run
    try:  # as /api/search reads it: `verified=true` was taken for "no" (every chunk searched)
        verified = bool(ops.check_flag(params.get("verified"), "verified"))
    except ApiError as exc:
        verified, flag = False, exc.message_in(p.lang)
    try:  # a typed condition the CLI refuses is refused here in its words
        where += whereform.parsed(ops.check_where(typed))
    except ApiError as exc:
        flag = flag or exc.message_in(p.lang)
    except UsageError as exc:
        flag = flag or error_in(exc, p.lang)
    note, refused = filter_note(p, served, where, verified, list(served.index.facets()))
    if flag is not None and not refused:
        note, refused = p.t("filter_refused", error=flag), True
    # a `k` the page cannot show (``k=abc``, ``0``, ``10000``): the nearest it can, said by
    # the results (the whole page was an error, the question gone from the box)
    k, k_changed = ops.nearest_k(params.get("k"), SEARCH_K)
    k_note = p.t("k_changed", asked=one_line(params.get("k", ""), 40), k=k, max=MAX_K) \
        if k_changed else None
    response = None
    results: list[dict[str, Any]] = []
    tag = None
    if not is_blank(q) and not refused:  # spaces or a NUL alone: the form, nothing asked
        answer = json.dumps([served.index.release.to_dict(), p.lang, p.pasted_chars,
                             sorted(params.multi_items())], ensure_ascii=False, default=str)
        tags: AnswerTags = p.request.app.state.answer_tags
        kept = tags.answered(asked_tags(p.request), answer)
        if kept is not None:  # a reload of the page this client was given: not asked again
            return Response(status_code=304, headers={"etag": kept,
                                                      "cache-control": "private, no-cache"})
        response = ops.search(served, q, k=k, conditions=where,
                              verified_only=verified or None)
        # a HEAD (a link checker, `curl -I`) reads no answer: not a question asked
        record_question(served.index, "web", q, response, enabled=p.request.method != "HEAD")
        results = [result_view(served, r, q, p.lang) for r in response.results]
        tag = tags.tag(answer)
    unfiltered = (unfiltered_url(p, q, k if "k" in params else None) if response is not None and response.no_answer
                  and (pairs or verified or typed) and note is None else None)
    # the box shows the question in its own language (a Chinese one in the English interface)
    q_lang = content_lang(None, q) if q.strip() else None
    page = p.render("search.html", 410 if p.gone else 400 if refused else 200, q=q,
                    q_lang=q_lang, k=k if "k" in params else None, k_note=k_note, facets=facets, chosen=chosen, picked=pairs, filter_note=note,
                    where_rows=whereform.rows(typed), where_shown=whereform.shown(typed),
                    operators=whereform.OPERATOR_SIGNS,
                    where_keys=sorted(filter_keys(served.index)),
                    verified=verified, max_question=MAX_QUESTION_CHARS, search_wait=SEARCH_WAIT_SECONDS,
                    search_patience=SEARCH_PATIENCE_SECONDS,
                    pasted_chars=p.pasted_chars, gone=p.gone, response=response,
                    results=results, unfiltered_url=unfiltered,
                    empty_release=served.index.store.count() == 0,
                    release=served.index.release.to_dict())
    if tag is not None:
        page.headers["etag"] = tag
    return page


def unfiltered_url(p: Page, q: str, k: int | None) -> str | None:
    """The same search without its filters and verified-only: what a page that found
    nothing with them offers (its number of results `k`, when asked, and language kept);
    None when the question does not fit an address (a held paste: the filter menus are
    there)."""
    kept = [(n, v) for n, v in p.request.query_params.multi_items() if n == "lang"]
    query = urlencode([("q", q), *([("k", k)] if k is not None else []), *kept])
    if p.pasted_chars is not None or len(query) > MAX_QUERY_STRING:
        return None
    return local_path(p.request.url.path) + "?" + query


def asked_filters(params: QueryParams) -> list[tuple[str, str]]:
    """The filters a search address asks for, ``f.KEY=VALUE``, as (key, value) in order, each
    once; those left at "any" (empty) left out."""
    asked = [(name[len(FILTER_PREFIX):], value) for name, value in params.multi_items()
             if name.startswith(FILTER_PREFIX) and value]
    return list(dict.fromkeys(asked))


def filter_note(p: Page, served: Served, where: Sequence[Condition], verified: bool,
                facets: list[str]) -> tuple[str | None, bool]:
    """What the search page says of the filters asked, in its language, and whether they are
    refused. As ``kb query --where`` and /api/search take them: a key the knowledge lacks, or
    a value a key can never have, refuses the search (it is not run without the filter,
    which would answer a wider question than was asked); filters that leave nothing are
    applied (nothing is found) and named, as the search names them (`emptying_filters`)."""
    try:
        checked = resolve_docs(served.index, checked_conditions(where))
        check_filters(served.index, checked)
    except UsageError as exc:
        if exc.key == "unknown_where_key":
            return p.t("filter_unknown", name=exc.values.get("key", ""), keys=", ".join(facets),
                       hint=unknown_key_text(p.lang, exc.values)), True
        return p.t("filter_refused", error=error_in(exc, p.lang)), True
    emptied, together = emptying_filters(served.index, checked, verified)
    if not emptied:  # a value of a list no document holds (crop=小麦,玉木): said, and applied
        unheld = [f + meant_text(p.lang, m) for f, m in unheld_values(served.index, checked)]
        notes = [p.t("filter_value_unheld", filters="; ".join(unheld))] if unheld else []
        if fractions := fractions_left_out(served.index, checked):  # 湿度: 0.9 beside >=80%
            notes.append(p.t("fractions_left_out", values="; ".join(fractions[:NAMES_SHOWN])))
        if degrees := degrees_as_celsius(served.index, checked):  # 角度: 30度 beside 25℃
            notes.append(p.t("degrees_as_celsius", values="; ".join(degrees[:NAMES_SHOWN])))
        return (" ".join(notes) or None), False
    named = "; ".join(f"{k} {op} {', '.join(values_of(v))}" for k, op, v in emptied) + \
        ("" if together else meant_text(p.lang, [m for c in emptied
                                                 for m in meant_values(served.index, c)]))
    return p.t("filter_none_together" if together else "filter_unheld", filters=named), False


# --- document ---------------------------------------------------------------------------

def doc_page(p: Page, served: Served) -> Response:
    """The document page, rendered once per release and request inputs (`pagecache`)."""
    if (moved := markdown_named(p.request, served, "doc")) is not None:
        return moved
    key = (p.request.url.path, p.lang, p.chosen, tuple(p.request.query_params.multi_items()),
           freshness.today_or(None).isoformat())
    try:
        return p.respond(served.pages.page(key, lambda: _doc_html(p, served)))
    except (ApiError, UsageError) as exc:
        return missing_document(p, served, "doc", exc)


def missing_document(p: Page, served: Served, kind: str, exc: ApiError | UsageError) -> Response:
    """The ``kind`` page of an address naming no document of the release (`exc`: its 404, or
    a name without ``.md`` no document has): the one document it names but for case and
    Unicode composition opened, else the error page naming the documents it most likely
    meant (`nearest`)."""
    if exc.status != 404 if isinstance(exc, ApiError) else exc.key != "doc_not_markdown":
        raise exc
    doc = p.request.path_params["path"]
    query = p.request.url.query
    device = _source(p.request).device()
    if (same := opened_for(served, doc, device)) is not None:
        return RedirectResponse(app_url(kind, same) + (f"?{query}" if query else ""), 307,
                                headers={"cache-control": "no-cache"})
    kept = urlencode([(k, v) for k, v in p.request.query_params.multi_items() if k in ("q", "lang")])
    found = [{"url": app_url("doc", s.doc) + (f"?{kept}" if kept else ""), "doc": s.doc,
              "title": s.title, "lang": content_lang(s.lang, s.title), "renamed": s.renamed}
             for s in suggestions(served, doc, device)]
    # a document a sync removed: its former title searched in the release served now
    title = None if any(s["renamed"] for s in found) else former_title(served, doc, device)
    look = {"title": title, "url": "/?" + urlencode([("q", title), *parse_qsl(kept)])} \
        if title else None
    if isinstance(exc, ApiError):
        return p.error(404, exc.message, served, exc.zh, suggestions=found, look_for=look)
    return p.error(400, one_line(surface_message(exc, PAGE_FILTERS)), served, error_zh(exc),
                   original=True, suggestions=found, look_for=look)


def _doc_html(p: Page, served: Served) -> str:
    doc = p.request.path_params["path"]
    src = ops.document(served, doc, exactly=True)  # else redirected (`missing_document`)
    params = p.request.query_params
    asked = params.get("lines", "")
    cited, lines_note = cited_in(p.t, asked, src.body_line,
                                  src.body_line + max(len(src.body.splitlines()), 1) - 1)
    q = ops.check_question(params.get("q", ""), blank=True)
    parts = doc_parts(served, src)
    chunks, doc_lang = parts.chunks, parts.lang
    if asked and (placed := cited_chunk(p.t, chunks, params.get("chunk", ""), asked, cited)):
        cited, lines_note = placed
    terms = matched_terms(served.index, q, cited_chunks(chunks, cited)) if q.strip() else []
    ctx = render_context(served, src.rel, line_offset=src.body_line - 1, cited=cited, terms=terms,
                         missing_file=p.t("file_not_on_device"), ui_lang=HTML_LANG[p.lang],
                         no_media_file=p.t("media_no_file"),
                         formula_word=content_word("formula", doc_lang))
    body = Markup(render_prepared(parts.tokens, ctx))
    review = ops.review_status(served, src, chunks=chunks)
    cited_reason = (served.knowledge.unverified_reason(src, *cited)
                    if cited and src.meta.get("verified") is True else None)
    first_table = ops.first_decision_table(ops.tables_of(served, src))
    meta = {k: v for k, v in src.meta.items() if k not in ("title",)}
    return p.html("doc.html", anchor="cited" if cited else "", doc=src.rel,
                    lines_note=lines_note, title_heading=first_heading_level(body) != 1,
                    title=shown_title(src.meta, src.rel), body=body, doc_lang=doc_lang,
                    meta=meta, review=review, cited=cited, cited_reason=cited_reason,
                    table_url=(app_url("table", src.rel) + "?" + urlencode({"table": first_table})
                               if first_table else None),
                    release=served.index.release.to_dict())


# --- decision tables ---------------------------------------------------------------------

def _unit(header: str) -> str:
    i = header_unit_start(header)
    return header[i:].strip().strip("()[]（）/ ") if i < len(header) else ""


# the scales of the units a value goes below zero in (℃, ℉; not kelvin)
_BELOW_ZERO_SCALES = frozenset({GROUP_OF["℃"], GROUP_OF["℉"]})


def _decimal_keypad(dt: DecisionTable, i: int) -> bool:
    """Whether column `i`'s field opens a phone's decimal keypad (``inputmode="decimal"``:
    on an iPhone digits and a point only, no minus, colon or letters, and no key to switch):
    a column of plain numbers, not of times of day or weekdays (``23:30`` needs a colon),
    none of whose bounds is below zero and not in degrees Celsius or Fahrenheit (``-5`` needs
    a minus: a frost morning could not be entered)."""
    if i not in dt.numeric:
        return False
    cells = [row[i] for row in dt.conditions]
    if any(c.clock or c.weekday for c in cells):
        return False
    if any(b < 0 for c in cells if c.numeric for b in (c.lo, c.hi) if math.isfinite(b)):
        return False
    return GROUP_OF.get(_unit(dt.header[i]).casefold()) not in _BELOW_ZERO_SCALES


def _table_view(dt: DecisionTable, n: int, values: dict[int, str]) -> dict[str, Any]:
    return {"n": n, "label": dt.label(), "header": dt.header, "rows": dt.rows,
            "cols": columns_key(dt),
            "inputs": [{"i": i, "name": dt.header[i], "unit": _unit(dt.header[i]), "value": values.get(
                i, ""), "numeric": _decimal_keypad(dt, i)}
                       for i in dt.inputs],
            "outputs": [dt.header[i] for i in dt.outputs]}


def table_page(p: Page, served: Served) -> Response:
    if (moved := markdown_named(p.request, served, "table")) is not None:
        return moved
    doc = p.request.path_params["path"]
    try:
        src, tables = ops.decision_tables(served, doc)
    except (ApiError, UsageError) as exc:
        return missing_document(p, served, "table", exc)
    params = p.request.query_params
    doc_lang = content_lang(src.meta.get("lang"), src.body)
    listing = [{"n": n, "label": t.label(), "lang": doc_lang} if isinstance(t, DecisionTable)
               else {"n": n, "label": p.t("malformed_table") + f" ({t.line})",
                     "lang": HTML_LANG[p.lang]} for n, t in enumerate(tables, 1)]
    if not tables:  # an old or mistyped link: pages offer the table only where there is one
        return p.render("table.html", 404, doc=src.rel, listing=[], table=None, result=None,
                        release=served.index.release.to_dict())
    chosen = params.get("table") or "1"
    n, dt = select_table(tables, chosen, src.rel)
    # values given for other columns than the table has now (a link made before a sync
    # changed them): not decided against these, nor shown in their fields
    stale = params.get("cols", columns_key(dt)) != columns_key(dt)
    values = {i: "" if stale else params.get(f"in.{i}", "").strip()[:MAX_INPUT_CHARS]
              for i in dt.inputs}
    result = None
    error = None
    refused: set[int] = set()  # the fields the error is about (marked invalid, described by it)
    if stale:
        error = p.t("table_changed")
    elif params.get("go") and any(values.values()):  # the library says which missing ones matter
        try:
            result = match_rules(dt, {dt.header[i]: v for i, v in values.items() if v},
                                 doc=src.rel, table_index=n,
                                 synonyms=served.knowledge.table_synonyms)
        except InputError as exc:
            error = one_line(exc.message_in(p.lang))
            refused = {i for i in dt.inputs if dt.header[i] == exc.column}
        except TableError as exc:
            error = error_in(exc, p.lang)
    elif params.get("go"):
        refused = {i for i, v in values.items() if not v}
        error = p.t("missing_inputs") + ": " + ", ".join(dt.header[i] for i in values if i in refused)
    selected = set(result.selected) if result else set()
    # an input the table cannot use is a refused request (400, as /api/table/evaluate
    # answers it): the form and the message inline, and scripts and the history see an error
    return p.render("table.html", 400 if error else 200,
                    anchor="result" if result or error else "", doc=src.rel,
                    listing=listing, table=_table_view(dt, n, values),
                    result=result, selected=selected, error=error, refused=refused,
                    doc_lang=doc_lang,
                    doc_url=app_url("doc", src.rel), release=served.index.release.to_dict())


# --- release ----------------------------------------------------------------------------

def release_page(p: Page, served: Served) -> HTMLResponse:
    source = _source(p.request)
    device = source.device()
    info = ops.releases(served, device, source.published(), source.where())
    last = info.get("last_sync")
    if last and not last["ok"] and p.lang == "zh" and device is not None:
        last = info["last_sync"] = last_sync(device, p.lang)  # its error in Chinese
    since = statement_text(last["statement"], p.lang) if last and last["statement"] else None
    why = rollback_why(info["rollback"], p.lang) if info.get("rollback") else None
    changes = ops.diff(device, served=served) if ops.comparable(device, served) else None
    if changes is not None:
        changes = changes_with_langs(changes, {d["doc"]: d.get("lang")
                                               for d in served.index.docs()})
        changes["summary"] = changes_summary(changes, p.lang)
    return p.render("release.html", info=info, changes=changes, since=since, why=why,
                    release=served.index.release.to_dict())


def routes() -> list[Route]:
    return [
        Route("/", page(search_page, search=True), methods=["GET", "POST"]),
        Route("/doc/{path:path}", page(doc_page)),
        Route("/table/{path:path}", page(table_page)),
        Route("/release", page(release_page)),
        *releasefiles.routes(),
    ]


def refusal_page(scope: Scope, status: int, message: str, zh: str) -> bytes:
    """The error page `security.Guard` answers a page address it refuses with (an address
    too long, a host name or a token refused), in the reader's language: ``?lang=`` kept
    from the address and nothing else of it (a link to the other language must not carry
    the over-long query again)."""
    query = scope.get("query_string", b"").decode("latin-1")  # its headers' size at most
    lang = [(k, v) for k, v in parse_qsl(query) if k == "lang"][:1]
    page = Page(Request({**scope, "query_string": urlencode(lang).encode()}))
    return bytes(page.error(status, message, zh=zh).body)
