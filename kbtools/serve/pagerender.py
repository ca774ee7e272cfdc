"""One page request of the web app (`pages`): the language it is answered in, its words, and
the templates (package data, autoescaped Jinja2) it is rendered with.

The language is the server's choice (`i18n.pick_lang`): ``?lang=``, else the reader's
cookie, else the browser's. Every page says on its ``<body>`` the interface language
(``data-ui``) and whether the reader chose it (``data-ui-chosen``: the address's ``?lang=``
or the cookie, not the browser's languages): the offline copies' worker keeps a page's copy
under its address and that language, and asks for a copy in the language the server would
answer in (`static/offline.js`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from jinja2 import DictLoader, Environment, select_autoescape
from markupsafe import Markup
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import HTMLResponse

from kbtools.serve import ops
from kbtools.serve.i18n import (
    HTML_LANG,
    LANG_COOKIE,
    LANGS,
    error_word,
    knowledge_words,
    no_answer_line,
    not_in_knowledge_line,
    other_lang,
    pick_lang,
    reason_translator,
    translator,
)
from kbtools.serve.scriptruns import runs_html
from kbtools.serve.security import local_path
from kbtools.serve.source import Served
from kbtools.serve.staticfiles import package_files, static_url

ApiError = ops.ApiError


ENV = Environment(loader=DictLoader({name: data.decode("utf-8") for name, data
                                     in package_files("templates").items()}),
                  autoescape=select_autoescape(default=True, default_for_string=True))
ENV.globals["static_url"] = static_url  # the stylesheet's and script's versioned addresses


def _runs(text: object, own: str) -> Markup:
    """``{{ title|runs(lang) }}``: knowledge text outside Markdown (a title, a heading path)
    with each run of the other script in its own `lang` (`scriptruns.runs_html`)."""
    return Markup(runs_html(str(text), own))


ENV.filters["runs"] = _runs


def front_matter_value(value: object, *, nested: bool = False) -> str:
    """``{{ v|front_matter }}``: a front-matter value as YAML writes it, not as Python
    prints it: ``verified: false`` reads ``false`` (not ``False``), an unquoted date or time
    ``2026-11-02T10:15:00+00:00`` (not ``2026-11-02 10:15:00+00:00``), a key without a value
    ``—`` (not ``None``); a list its items joined by commas, a mapping ``key: value`` pairs
    (a list or mapping inside another in brackets or braces, as YAML's flow style)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "—"
    if isinstance(value, dt.date):  # datetime too
        return value.isoformat()
    if isinstance(value, Mapping):
        pairs = ", ".join(f"{front_matter_value(k, nested=True)}: "
                          f"{front_matter_value(v, nested=True)}" for k, v in value.items())
        return "{" + pairs + "}" if nested else pairs
    if isinstance(value, (list, tuple)):
        items = ", ".join(front_matter_value(v, nested=True) for v in value)
        return "[" + items + "]" if nested else items
    return str(value)


ENV.filters["front_matter"] = front_matter_value


class Page:
    """One page request: its language, words, and the template renderer."""

    def __init__(self, request: Request):
        self.request = request
        self.params: QueryParams = request.query_params  # a held question's fields instead
        self.pasted_chars: int | None = None  # a held question cut from a longer paste
        self.gone = False  # asked for a held question that is no longer held
        given = request.query_params.get("lang")
        cookie = request.cookies.get(LANG_COOKIE)
        self.lang = pick_lang(given, cookie, request.headers.get("accept-language"))
        self.remember = given == self.lang
        self.chosen = given in LANGS or cookie in LANGS  # not the browser's languages
        self.t = translator(self.lang)

    def knowledge(self, served: Served) -> None:
        """Say the words the served release's knowledge base sets for itself (its name, its
        example question: `knowledge_words`) instead of the neutral ones."""
        serve = served.index.manifest["config"].get("serve") or {}
        self.t = translator(self.lang, knowledge_words(serve, self.lang))

    def lang_url(self, anchor: str = "") -> str:
        """This page in the other language, scrolled to `anchor` (the cited lines, a
        decision) as this one was: a phone switching language lands where the reader was."""
        params = [(k, v) for k, v in self.request.query_params.multi_items() if k != "lang"]
        params.append(("lang", other_lang(self.lang)))
        return (local_path(self.request.url.path) + "?" + urlencode(params)
                + (f"#{anchor}" if anchor else ""))

    def error(self, status: int, detail: str, served: Served | None = None,
              zh: str | None = None, original: bool = False,
              suggestions: list[dict[str, Any]] | None = None,
              look_for: dict[str, str] | None = None) -> HTMLResponse:
        """The error page of HTTP `status`: what went wrong in the page's language, the
        details kept below it: `zh` on a Chinese page when given, else `detail` (English:
        a library message naming the file, line or value), and then `detail` as well when
        `original` (a library message said in Chinese: the English names the files for
        whoever looks after the device); its footer names the release `served` (none when no
        release was read: no page, an index that did not open)."""
        release = served.index.release.to_dict() if served is not None else None
        chinese = self.lang == "zh" and zh is not None
        return self.render("error.html", status, message=self.t(error_word(status)),
                           detail=zh if chinese else detail,
                           detail_lang=HTML_LANG["zh" if chinese else "en"],
                           original=detail if chinese and original else None, release=release,
                           suggestions=suggestions or [], look_for=look_for)

    def refused(self, exc: ApiError, served: Served | None = None) -> HTMLResponse:
        return self.error(exc.status, exc.message, served, exc.zh)

    def render(self, template: str, status: int = 200, anchor: str = "",
               **values: Any) -> HTMLResponse:
        return self.respond(self.html(template, anchor, **values), status)

    def html(self, template: str, anchor: str = "", **values: Any) -> str:
        return ENV.get_template(template).render(t=self.t, lang=self.lang, html_lang=HTML_LANG,
                                                 other_lang=other_lang(self.lang),
                                                 reason=reason_translator(self.lang),
                                                 no_answer=no_answer_line(self.lang),
                                                 not_in_knowledge=not_in_knowledge_line(
                                                     self.lang),
                                                 lang_url=self.lang_url(anchor),
                                                 here=local_path(self.request.url.path),
                                                 lang_chosen=self.chosen, **values)

    def respond(self, html: str | bytes, status: int = 200) -> HTMLResponse:
        response = HTMLResponse(html, status_code=status,
                                headers={"cache-control": "private, no-cache"})
        if self.remember:
            response.set_cookie(LANG_COOKIE, self.lang, max_age=365 * 86400, samesite="strict")
        return response
