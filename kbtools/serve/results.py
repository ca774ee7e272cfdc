"""A search result as the results page shows it: its title with the matched terms marked, its
passage rendered (a table cut to the rows around the cited one, a note for the rest; a long
passage cut at a line), its badges, the decision table it belongs to (a button to that table's
form, filled with the question's values) and the evaluation on the question's values in the
page's language; and the link to its document page, carrying the question or its terms."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote_plus, urlencode

from markupsafe import Markup

from kbtools.decision.given import InputError
from kbtools.decision.matching import NO_MATCH_MESSAGE, NO_MATCH_ZH, match_rules
from kbtools.decision.model import DecisionTable
from kbtools.errors import KbError, TableError
from kbtools.query.wording import is_cjk
from kbtools.serve import ops
from kbtools.serve.callout_frame import Callout, document_callouts, framed
from kbtools.serve.docview import render_markdown
from kbtools.serve.i18n import HTML_LANG, content_lang, content_word, error_zh, translator
from kbtools.serve.marks import terms_pattern
from kbtools.serve.passes import RenderContext, app_url
from kbtools.serve.scriptruns import runs_html
from kbtools.serve.source import Served

SNIPPET_CHARS = 1500  # a result's passage shown in full up to this, else cut at a line
# A table result shows its header and the rows within this many of its cited row (21 rows,
# moved in at the table's ends): the neighbours a reader compares the row with (the next
# fault codes, the adjacent ranges of a decision table), about a tablet screen, and a page
# of ten results in tens of kilobytes however long the table. A note stands for the rest.
TABLE_ROWS_AROUND = 10
OMIT_AT_LEAST = 3  # fewer rows than this are shown rather than noted (a note costs a row)
# a result's link carries the question (its terms are highlighted on the document page) up
# to this many bytes encoded; a longer question gives the terms the result matched instead
LINK_QUESTION_BYTES = 2048


def render_context(served: Served, doc: str, **kw: Any) -> RenderContext:
    return RenderContext(doc=doc, has_formula=served.has_data_file,
                         has_asset=lambda rel: served.has_data_file(f"source/{rel}"),
                         size_of=served.picture_size, files_named=served.files_named,
                         aliased=served.aliased,
                         url=app_url, **kw)



def _decision_table(served: Served, doc: str, line: int) -> tuple[int, DecisionTable] | None:
    """The decision table spanning `line` of `doc` and its number as the form counts them
    (decision tables only); None when the Markdown table there is not a decision table. A
    document's tables are parsed once per opened release (it never changes)."""
    tables: dict[str, list[DecisionTable | TableError]] = served.cache.setdefault(
        "decision_tables", {})
    if doc not in tables:
        tables[doc] = ops.decision_tables(served, doc)[1]
    n = ops.decision_table_at(tables[doc], line)
    dt = tables[doc][n - 1] if n is not None else None
    return (n, dt) if n is not None and isinstance(dt, DecisionTable) else None


def columns_key(dt: DecisionTable) -> str:
    """A decision table's columns as its form numbers its fields (``in.<i>``): a hash of its
    header and of which columns are inputs. A form's address carries it (``cols``), so that
    values given by position are never decided against other columns: a result's link or a
    form left open while a sync reordered, added or renamed the table's columns."""
    text = "\x1f".join(dt.header) + "\x1e" + ",".join(map(str, dt.inputs))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _table_url(n: int, dt: DecisionTable, doc: str, given: dict[str, str],
               matched: bool = False) -> str:
    """The form of table `n` of `doc`, filled with the values the question `given` it (column
    → value, as the evaluation above the result read them) and decided when none is
    missing, or when the evaluation `matched` without them (every row it chose takes any
    value of those): the form then shows the row the result shows, where it asked for the
    inputs no answer depends on."""
    params: list[tuple[str, Any]] = [("table", n)]
    if given and set(given) <= set(dt.header):
        params.append(("cols", columns_key(dt)))
        params += [(f"in.{i}", given[dt.header[i]]) for i in dt.inputs if dt.header[i] in given]
        if matched or all(dt.header[i] in given for i in dt.inputs):
            params.append(("go", 1))
    return app_url("table", doc) + "?" + urlencode(params)


def _evaluation_view(ev: dict[str, Any] | None, dt: DecisionTable | None,
                     lang: str, asked_in: str = "en") -> dict[str, Any] | None:
    """What a search result evaluated on the question's values says above its table: the
    matching row and its outputs with each input cell's reason (in the question's language,
    `asked_in`, as the evaluation words it), the inputs still to give, the rows a range
    given spans, or that no rule matches and why
    in the page's language (a value the table refused, `dt` judging the inputs again: ``it
    is in '°f', the column in '°C'``; a table's refusal, an empty cell read as "as above",
    in its Chinese words on a Chinese page)."""
    if ev is None:
        return None
    inputs = dict(ev.get("inputs") or {})
    message = str(ev.get("message") or "")
    # a value the table refused (湿度25度 in a column of %) is said alone, not as "no rule
    # matches": no rule was tried
    # (in the question's language: `query.answers.no_match_message`)
    said = next((m for m in (NO_MATCH_MESSAGE, NO_MATCH_ZH) if message.startswith(m)), "")
    refused = ev.get("status") == "no_match" and not said
    detail = message[len(said):].strip(" ()") if said else message if refused else ""
    if detail and dt is not None:
        try:
            match_rules(dt, inputs)
        except InputError as exc:
            detail, refused = exc.message_in(lang), True
        except TableError as exc:  # the table's refusal in the page's words when it has them
            detail = (error_zh(exc) if lang == "zh" else None) or detail
    rows = [{"row": r.get("row"), "outputs": dict(r.get("outputs") or {}),
             "cells": [{"column": c.get("column"), "reason": c.get("reason"),
                        "matched": bool(c.get("matched"))} for c in r.get("cells") or []]}
            for r in ev.get("rows") or []] or [{"row": ev.get("row"), "outputs": {}, "cells": []}]
    return {"status": ev.get("status"), "row": ev.get("row"), "rows": rows, "asked_in": asked_in,
            "missing": list(ev.get("missing") or []), "inputs": inputs, "detail": detail,
            "refused": refused,
            "conflicts": {k: list(v) for k, v in (ev.get("conflicts") or {}).items()},
            "approximate": dict(ev.get("approximate") or {}),
            "near_bound": dict(ev.get("near_bound") or {}),
            # how a value not taken as typed was read (1 200 as 1200, 湿度0.85 as 85 %)
            "readings": dict(ev.get("readings") or {}),
            "said_of_other": dict(ev.get("said_of_other") or {}),
            # the values given that no input took (压力3MPa on a table of 温度 and 湿度)
            "unused": list(ev.get("unused") or []),
            # a range given that these rows each hold part of (status spans_rows)
            "spans": {k: list(v) for k, v in (ev.get("spans") or {}).items()}}


@dataclass(frozen=True)
class TableExcerpt:
    """A table's header and delimiter lines and a run of its rows, as Markdown."""

    text: str
    line_map: tuple[int, ...]  # the file line of each line of `text`, then `last_line` + 1
    omitted: dict[int, int]  # text line → rows left out before it (one past the last: after)


def table_excerpt(text: str, first_line: int, last_line: int, focus: int,
                  around: int = TABLE_ROWS_AROUND) -> TableExcerpt | None:
    """The table `text` (its Markdown, file lines `first_line`-`last_line`: header,
    delimiter, one row a line) cut to the ``2·around + 1`` rows centred on the row on file
    line `focus`, moved in at the table's ends; None when it has no more rows than that
    (or its lines are not the table's: it is shown whole)."""
    lines = text.split("\n")
    end = len(lines)
    if end != last_line - first_line + 1:
        return None
    span = 2 * around + 1
    at = min(max(focus - first_line, 2), end - 1)
    lo = max(2, min(at - around, end - span))
    hi = min(end, lo + span)
    lo = 2 if lo - 2 < OMIT_AT_LEAST else lo
    hi = end if end - hi < OMIT_AT_LEAST else hi
    if lo == 2 and hi == end:
        return None
    kept = [0, 1, *range(lo, hi)]
    omitted = {2: lo - 2} if lo > 2 else {}
    if hi < end:
        omitted[len(kept)] = end - hi
    return TableExcerpt("\n".join(lines[i] for i in kept),
                        (*(first_line + i for i in kept), last_line + 1), omitted)


# the characters of a result's chunk id its link carries (`pages.cited_chunk`: the document
# page finds the passage again after a sync moved it)
CHUNK_PREFIX = 16


def result_view(served: Served, r: Any, q: str, lang: str) -> dict[str, Any]:
    terms = list(r.why.get("matched_terms") or [])
    lines = f"{r.line_start}-{r.line_end}"
    status = (r.verification or {}).get("status")
    declared = (r.metadata or {}).get("lang")
    # the title and each heading in its own language (the document's declared one, else the
    # language it is written in), not the passage's: an English notice quoted in a Chinese
    # manual is under Chinese headings; a run of the other script in one in its own
    title_lang = content_lang(declared, r.title)
    path_langs = [content_lang(declared, part) for part in [r.doc, *r.heading_path]]
    view = {"r": r, "title_html": Markup(runs_html(r.title, title_lang, terms_pattern(terms))),
            "path": [Markup(runs_html(part, own)) for part, own
                     in zip([r.doc, *r.heading_path], path_langs, strict=True)],
            "url": app_url("doc", r.doc) + "?" + urlencode({"lines": lines,
                                                            "chunk": r.chunk_id[:CHUNK_PREFIX],
                                                            "q": _link_question(q, terms)})
            + "#cited",
            "lang": content_lang(declared, r.text),
            "title_lang": title_lang, "path_langs": path_langs,
            "lapsed": status == "lapsed", "outdated": r.outdated,
            "table_url": None, "evaluation": None}
    text = ops.passage_markdown(served, r.doc, r.text, r.line_start, r.line_end)
    offset, cited = r.line_start - 1, (r.line_start, r.line_end)
    found = None
    excerpt = None
    if r.kind in ("table_row", "table"):
        table = ops.table_chunk(served, r.doc, r.line_start) if r.kind == "table_row" else \
            {"text": r.text, "line_start": r.line_start, "line_end": r.line_end}
        found = _decision_table(served, r.doc, r.line_start)
        if found is not None:
            given = dict((r.evaluation or {}).get("inputs") or {})
            matched = (r.evaluation or {}).get("status") == "match"
            view["table_url"] = _table_url(*found, r.doc, given, matched)
        if table is not None:
            text = ops.passage_markdown(served, r.doc, table["text"], table["line_start"],
                                        table["line_end"])
            offset = table["line_start"] - 1
            focus = r.line_start if r.kind == "table_row" else \
                _matched_line(r.evaluation, found[1] if found else None)
            excerpt = table_excerpt(text, table["line_start"], table["line_end"], focus)
    # (the evaluation words its reasons in Chinese for a question with any Chinese in it)
    asked_in = HTML_LANG["zh" if any(is_cjk(ch) for ch in q) else "en"]
    view["evaluation"] = _evaluation_view(r.evaluation, found[1] if found else None, lang,
                                          asked_in)
    if len(text) > SNIPPET_CHARS and r.kind not in ("table", "table_row"):
        cut = text.rfind("\n", 0, SNIPPET_CHARS)
        text = text[:cut if cut > 0 else SNIPPET_CHARS] + "\n\n…"
    notes: dict[int, str] = {}
    line_map: tuple[int, ...] = ()
    if excerpt is not None:
        t = translator(lang)
        text, line_map = excerpt.text, excerpt.line_map
        notes = {line: t("rows_omitted", n=n) for line, n in excerpt.omitted.items()}
    # a passage inside a callout is shown in its box, under its title, as its page shows it
    framed_text, framed_map = framed(text, offset + 1, line_map, _callouts(served, r.doc))
    if framed_text != text:
        head = framed_text.count("\n") - text.count("\n")  # the title lines put before it
        notes = {line + head: note for line, note in notes.items()}
        text, line_map = framed_text, framed_map
    ctx = render_context(served, r.doc, line_offset=offset, cited=cited, terms=terms,
                   missing_file=translator(lang)("file_not_on_device"), on_doc_page=False,
                   no_media_file=translator(lang)("media_no_file"),
                   ui_lang=HTML_LANG[lang], text_lang=view["lang"],
                   line_map=line_map, omitted=notes,
                   formula_word=content_word("formula", view["lang"]))
    ctx.marked[0] = True  # no scroll anchor inside a result list
    view["html"] = Markup(render_markdown(text, ctx))
    return view


def _callouts(served: Served, doc: str) -> tuple[Callout, ...]:
    """The callouts of `doc` (`callout_frame.document_callouts`), found once per opened
    release (it never changes); none when its source is not on this device."""
    found: dict[str, tuple[Callout, ...]] = served.cache.setdefault("callouts", {})
    if doc not in found:
        try:
            found[doc] = document_callouts(ops.document(served, doc))
        except (KbError, ops.ApiError):
            found[doc] = ()
    return found[doc]


def _link_question(q: str, terms: list[str]) -> str:
    """What a result's link carries of the question: all of it when short, else the terms the
    result matched (a long question's link would pass the query-string limit)."""
    return q if len(quote_plus(q)) <= LINK_QUESTION_BYTES else " ".join(terms)


def _matched_line(ev: dict[str, Any] | None, dt: DecisionTable | None) -> int:
    """The file line of the first row the evaluation of a whole-table result matched (0,
    the table's first rows, when it matched none)."""
    rows = [r.get("row") for r in (ev or {}).get("rows") or []] or [(ev or {}).get("row")]
    row = rows[0] if (ev or {}).get("status") == "match" else None
    return dt.line_of(row) if dt is not None and isinstance(row, int) else 0

