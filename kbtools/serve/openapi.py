"""The OpenAPI 3.1 description of `kb serve`'s JSON API, written as data.

Served at ``/api/openapi.json``. The schemas are deliberately loose where the payload is
another command's contract (a search response is `kb query --json`, documented in
docs/retrieval.md; a table result is `kb table eval --json`): the description names the fields a
client relies on and allows the rest.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from kbtools import __version__
from kbtools.agents.arguments import (
    FLAG_WORDS,
    MAX_HEADINGS,
    MAX_INPUT_CHARS,
    MAX_INPUTS,
    MAX_LINE,
    MAX_QUESTION_CHARS,
    MAX_SECTION_CHARS,
    MAX_TAG_CHARS,
    MAX_WHERE,
)
from kbtools.agents.citation_text import MAX_COMMIT_DIGITS, MIN_COMMIT_DIGITS
from kbtools.agents.docpath import MAX_CITED_CHARS, MAX_PATH_CHARS
from kbtools.agents.parameters import filter_list, filter_object
from kbtools.config import MAX_K
from kbtools.query.filters import MAX_WHERE_CHARS, WHERE_HELP
from kbtools.query.results import NAMES_SHOWN, QUERY_FORMAT
from kbtools.serve.security import QUERY_BOUNDS

_ERROR = {"description": "error", "content": {"application/json": {"schema": {
    "$ref": "#/components/schemas/Error"}}}}


def _json(ref: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {
        "$ref": f"#/components/schemas/{ref}"}}}}


def _param(name: str, description: str, schema: dict[str, Any], *,
           required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "description": description,
            "schema": schema}


# the words `kbtools.agents.arguments.flag` reads as true or false, any case, or blank
_FLAG_PATTERN = ("^\\s*(?:" + "|".join(
    "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)
    for word in sorted(FLAG_WORDS)) + ")?\\s*$")

# the release a search asks (MCP `search` takes the same: `kbtools.agents.cited_read`)
_SEARCH_COMMIT = ("the release to search, as an earlier result cited it, by its source commit "
                  f"({MIN_COMMIT_DIGITS} to {MAX_COMMIT_DIGITS} hexadecimal digits): searched while it is kept here (a device's releases, a "
                  "git clone's release tags), else 404 naming the releases kept")
_SEARCH_RELEASE = "the release to search, by its tag, as `commit`"

_BLANK_K = r"^\s*$"  # no number: the default (`ops.check_k`)
# A question the API takes (`kbtools.query.question.is_blank` refuses the rest): one
# character at least that is not a space, a control or an invisible format character, nor
# part of a terminal's colour code (`\x1b[31m`), as a validator checks it in ECMA-262's
# regular expressions (in the Basic Multilingual Plane: see `_NOT_BLANK_SAID`)
_BLANK = (r"\x00-\x20\x7f-\xa0\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u1680"
          r"\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff"
          r"\ufff9-\ufffb\ufffd")
_ANSI = r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])"
_NOT_BLANK = rf"^(?:{_ANSI}|(?!{_ANSI})[{_BLANK}])*[^{_BLANK}]"
_NOT_BLANK_SAID = ("refused (400) when blank: empty, or only spaces, control characters (a NUL), "
                   "invisible ones (a zero-width space, a BOM, a tag character) and terminal "
                   "colour codes")

# a heading path or a table's section (`agents.arguments.section_over`): a string, or its
# headings as a list
_SECTION_TEXT = {"type": "string", "maxLength": MAX_SECTION_CHARS}
_HEADINGS = {"type": "array", "items": _SECTION_TEXT, "maxItems": MAX_HEADINGS}
_LINE = {"type": "integer", "minimum": 1, "maximum": MAX_LINE}
_DOC = {"type": "string", "maxLength": MAX_CITED_CHARS}  # `docpath.check_doc_length`
# what /api/read's query string carries at most (`security.QUERY_BOUNDS`, 414 past it): a
# heading path of MAX_SECTION_CHARS characters, each 12 bytes percent-encoded at most
_READ_BYTES = QUERY_BOUNDS["/api/read"]
_QUERY_BOUND = (f"The whole query string is at most {_READ_BYTES} bytes percent-encoded (a "
                f"Chinese character takes 9): a heading path of {MAX_SECTION_CHARS} characters "
                "fits beside the document's path; past it the answer is 414. Headings given "
                "one by one share it.")
# a whole citation in `doc` is bounded in characters (MAX_CITED_CHARS), which a Chinese one
# cannot reach by GET: its query string passes `_READ_BYTES` first (a 414, not `doc`'s 400)
READ_CHINESE_CHARS = (_READ_BYTES - len("doc=")) // 9
_READ_DOC = (f"document path as cited, or a result's whole citation ('x.md:65-73 § A > B': its "
             f"section, or its lines), at most {MAX_CITED_CHARS} characters (a path at most "
             f"{MAX_PATH_CHARS}). By GET the query string's bound comes first for a Chinese "
             f"citation: {READ_CHINESE_CHARS} Chinese characters fill its {_READ_BYTES} bytes "
             "percent-encoded, and a longer one is answered 414: give its heading path as "
             "`heading_path`, the document's path alone as `doc`")
# a release by its commit (`agents.arguments.release_arguments`), as MCP's tools take it
_COMMIT = {"type": "string", "maxLength": MAX_COMMIT_DIGITS}
# a release by its tag, bounded as MCP's `release` is (the API refuses a longer one: 400)
_TAG = {"type": "string", "maxLength": MAX_TAG_CHARS}
_COMMIT_SAID = f"{MIN_COMMIT_DIGITS} to {MAX_COMMIT_DIGITS} hexadecimal digits"


_SEARCH_PARAMS = [
    _param("q", f"the question (Chinese or English), at most {MAX_QUESTION_CHARS} characters "
                f"(a longer one by POST: a query string holds at most 8192 bytes); a pasted "
                f"log is searched by its distinctive lines; {_NOT_BLANK_SAID}",
           {"type": "string", "maxLength": MAX_QUESTION_CHARS, "pattern": _NOT_BLANK},
           required=True),
    _param("k", "number of results (left out or blank: the default)",
           {"type": "integer", "minimum": 1, "maximum": MAX_K, "default": 5}),
    _param("where", f"a front-matter filter (repeatable: all must hold): {WHERE_HELP}",
           {"type": "array", "items": {"type": "string", "maxLength": MAX_WHERE_CHARS},
            "maxItems": MAX_WHERE}),
    _param("verified_only", "only verified passages: true/false, yes/no, on/off, 1/0",
           {"anyOf": [{"type": "boolean"}, {"type": "string", "pattern": _FLAG_PATTERN}]}),
    _param("commit", _SEARCH_COMMIT, _COMMIT),
    _param("release", _SEARCH_RELEASE, _TAG),
]

_SCHEMAS: dict[str, Any] = {
    "Error": {"type": "object", "required": ["error"], "properties": {"error": {
        "type": "object", "required": ["status", "message"], "properties": {
            "status": {"type": "integer"},
            "message": {"type": "string", "description": "one line, in English; in Chinese "
                        "when the request's Accept-Language prefers Chinese (zh) and the "
                        "error has Chinese words"},
            "message_en": {"type": "string", "description": "the English message, when "
                           "`message` is said in Chinese"}}}}},
    "Release": {"type": "object", "required": ["tag", "source_commit"], "properties": {
        "tag": {"type": ["string", "null"]}, "source_commit": {"type": "string"},
        "dirty": {"type": "boolean", "description": "the build read files the source commit "
                  "does not hold: cited lines are its working tree's, not the commit's"},
        "serial": {"type": ["integer", "null"]}}},
    "SearchResponse": {
        "type": "object", "description": "exactly `kb query --json`",
        "required": ["format", "query", "release", "no_answer", "filters", "results"],
        "properties": {
            "format": {"const": QUERY_FORMAT, "description": "the version of this format "
                       "(docs/retrieval.md)"},
            "query": {"type": "string"}, "release": {"$ref": "#/components/schemas/Release"},
            "no_answer": {"type": "boolean"},
            "filters": {"type": "object", "description": "what the search did with the "
                        "question: where, verified_only, routed, reranked_by, expanded, "
                        f"unknown_terms (the first {NAMES_SHOWN} terms the index never saw) "
                        "and unknown_terms_more (how many more, absent when none), "
                        "unheld (values of where filters no document holds while their "
                        "filter keeps others: [{filter, did_you_mean}], absent when none), "
                        "excludes_nothing (!= filters whose value no document holds nor "
                        "resembles, as key!=value: a note; absent when none), "
                        "fractions_left_out (document values an order on a percentage "
                        "left out, 湿度: 0.9 beside 湿度>=80%: a note; absent when none), "
                        "degrees_as_celsius (document values of 度 alone read as ℃, their "
                        "field holding a temperature, 角度: 30度 (doc) beside 角度: 25℃: a "
                        "note; absent when none)"},
            "reason": {"type": "string"}, "took_ms": {"type": "number"},
            "reason_values": {"type": "object", "description": "with reason \"no chunk "
                              "matches the filters\": filters (the filters that leave "
                              "nothing, as filters.where writes them; verified_only as "
                              "verified=true) and together (true: each leaves some, all "
                              "together none)",
                              "properties": {"filters": {"type": "array",
                                                         "items": {"type": "string"}},
                                             "together": {"type": "boolean"}}},
            "condensed": {"type": "object", "description": "a question longer than is "
                          "searched: question_chars, read_chars, searched_chars, "
                          "max_searched_chars (query is the part searched)"},
            "not_in_knowledge": {"type": "array", "items": {"type": "string"},
                                 "description": "the codes and names (settings, keys) of "
                                 "the question no document holds, as it writes them, also "
                                 "when the rest is answered (absent when none); the "
                                 f"first {NAMES_SHOWN} of them"},
            "not_in_knowledge_more": {"type": "integer", "minimum": 1,
                                      "description": "how many more such names the question "
                                      "holds than `not_in_knowledge` lists (absent when none)"},
            "results": {"type": "array", "items": {"type": "object", "required": [
                "rank", "score", "chunk_id", "doc", "heading_path", "line_start", "line_end",
                "text", "verified", "citation"], "properties": {"citation": {
                    "type": "string", "description": "'doc:12-20 § A > B', as MCP `search` "
                    "gives it; /api/read and /api/table/evaluate take it as `doc`"}}}}}},
    "Section": {"type": "object", "description": "as the MCP tool `read` returns it",
                "required": ["doc", "heading_path", "line_start", "line_end", "markdown",
                             "citation", "verified", "release"]},
    "TableRequest": {"type": "object", "required": ["doc", "inputs"], "properties": {
        "doc": {**_DOC, "description": "document path as cited, a result's whole "
                "citation ('x.md:65-73'): the decision table at those lines, or a link to a "
                "section ('x.md#32-风险等级判定表'): the decision table of that section; at "
                f"most {MAX_CITED_CHARS} characters (a path at most {MAX_PATH_CHARS})"},
        "table": {"anyOf": [_SECTION_TEXT, {"type": "integer"}, _HEADINGS], "description": (
            "a 1-based number, a name, or the section the table lies in as /api/read takes "
            "one: a heading, a heading path (a string, or a result's `heading_path` list), "
            "a section number ('4.4', 'section 4.4') or a link's anchor "
            "('#32-风险等级判定表')")},
        "policy": {"enum": ["first", "all"]},
        "commit": {**_COMMIT, "description": "the release the table was cited from, by its "
                   f"source commit ({_COMMIT_SAID}): its table while the device "
                   "keeps it, else the served release's with `release_gone` saying so"},
        "release": {**_TAG, "description": "the release the table was cited "
                    "from, by its tag, as `commit`"},
        "inputs": {"type": "object", "maxProperties": MAX_INPUTS,
                   "propertyNames": {"maxLength": MAX_INPUT_CHARS},
                   "additionalProperties": {"anyOf": [
                       {"type": "string", "maxLength": MAX_INPUT_CHARS},
                       {"type": "number"}]}}}},
    "TableResult": {"type": "object", "description": "exactly `kb table eval --json`",
                    "required": ["status", "message", "matches", "selected", "outputs",
                                 "citation"],
                    "properties": {"status": {"enum": ["match", "no_match"]}}},
    "Releases": {"type": "object", "required": ["served", "device", "releases"]},
    "Health": {"type": "object", "required": ["status", "release"]},
}


@cache
def _search_request() -> dict[str, Any]:
    """The SearchRequest schema, built when the document is first asked for: its `where` is
    the MCP tool `search`'s own types' schema (`parameters.filter_object`, `filter_list`), as
    `ops.check_where` bounds it."""
    # what `api.search` accepts in a body (`ops.check_k`, `check_where`, `check_flag`): the
    # question as `query` or `q` (one of them), a number as ASCII digits too, one filter as
    # a string, filters as an object, a flag as a word; null is the parameter left out
    where_object = {**filter_object().json_schema(), "description": (
        "one filter per key, {KEY: VALUE} for KEY=VALUE, its value a list for any of several "
        "or starting with its operator ({\"功率\": \">5kW\"}); a key with its operator and "
        f"all its values together at most {MAX_WHERE_CHARS} characters, as one filter")}
    return {
        "type": "object", "additionalProperties": False,
        "oneOf": [{"required": ["query"]}, {"required": ["q"]}],
        "properties": {
            "query": {"type": "string", "maxLength": MAX_QUESTION_CHARS, "pattern": _NOT_BLANK,
                      "description": f"the question, {_NOT_BLANK_SAID}"},
            "q": {"type": "string", "maxLength": MAX_QUESTION_CHARS, "pattern": _NOT_BLANK,
                  "description": f"the question, as GET names it (give `query` or `q`), "
                                 f"{_NOT_BLANK_SAID}"},
            "k": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": MAX_K},
                            {"type": "string", "pattern": r"^\s*[0-9０-９]{1,12}\s*$",
                             "description": f"a whole number from 1 to {MAX_K} in digits"},
                            {"type": "string", "pattern": _BLANK_K}, {"type": "null"}]},
            "where": {"anyOf": [
                filter_list().json_schema(),
                {"type": "string", "maxLength": MAX_WHERE_CHARS,
                 "description": "one filter"}, where_object, {"type": "null"}]},
            "verified_only": {"anyOf": [
                {"type": "boolean"}, {"enum": [0, 1]}, {"type": "null"},
                {"type": "string", "pattern": _FLAG_PATTERN,
                 "description": "a word: true/false, yes/no, on/off, 1/0 (any case)"}]},
            "commit": {"anyOf": [_COMMIT, {"type": "null"}], "description": _SEARCH_COMMIT},
            "release": {"anyOf": [_TAG, {"type": "null"}], "description": _SEARCH_RELEASE}}}


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document (a fresh dict each call)."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "kbtools kb serve", "version": __version__,
                 "description": "Search, read and decide over the release a device serves. "
                                "Errors are JSON with a one-line message."},
        "paths": {
            "/api/search": {
                "get": {"summary": "Search (the `kb query --json` contract)",
                        "parameters": _SEARCH_PARAMS,
                        "responses": {"200": _json("SearchResponse", "cited results"),
                                      "400": _ERROR, "404": _ERROR, "503": _ERROR}},
                "post": {"summary": "Search with a JSON body",
                         "requestBody": {"required": True, "content": {"application/json": {
                             "schema": {"$ref": "#/components/schemas/SearchRequest"}}}},
                         "responses": {"200": _json("SearchResponse", "cited results"),
                                       "400": _ERROR, "404": _ERROR, "413": _ERROR,
                                       "415": _ERROR, "503": _ERROR}}},
            "/api/read": {"get": {
                "summary": "Read a section of a document, or a line range",
                "description": _QUERY_BOUND,
                "parameters": [
                    _param("doc", _READ_DOC, _DOC, required=True),
                    _param("heading_path", "heading path ('A > B') or section number; "
                           "given once per heading (heading_path=A&heading_path=B), the "
                           "headings of the path as the MCP tool's list. " + _QUERY_BOUND,
                           _HEADINGS),
                    _param("line_start", "first line", _LINE),
                    _param("line_end", "last line", _LINE),
                    _param("commit", "the release a citation came from, by its source "
                           f"commit ({_COMMIT_SAID}): its text while the device keeps it, "
                           "else the served release's at its heading path with "
                           "`release_gone` saying so", _COMMIT),
                    _param("release", "the release a citation came from, by its tag, as "
                           "`commit`", _TAG)],
                "responses": {"200": _json("Section", "the section"), "400": _ERROR,
                              "404": _ERROR, "414": _ERROR, "503": _ERROR}}},
            "/api/table/evaluate": {"post": {
                "summary": "Evaluate a decision table for given inputs",
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/TableRequest"}}}},
                "responses": {"200": _json("TableResult", "the matching row, or no_match"),
                              "400": _ERROR, "404": _ERROR, "413": _ERROR, "415": _ERROR,
                              "503": _ERROR}}},
            "/api/releases": {"get": {
                "summary": "The served release (`rollback`: the `kb rollback` that switched to "
                           "it, else null), the device's last sync when it failed or what "
                           "serves changed since (`last_sync`: at, ok, error, `statement`: "
                           "served_then, serves_now, rollback; else null) and the releases "
                           "the device keeps (or, with `kb serve --engine`, the releases "
                           "published in the engine)",
                "responses": {"200": _json("Releases", "releases"), "503": _ERROR}}},
            "/api/diff": {"get": {
                "summary": "What changed between two releases of the device (`kb diff --json`)",
                "parameters": [
                    _param("old", "older release tag (default: the one before `new`)",
                           {"type": "string", "pattern": "^kb-r[0-9]+$"}),
                    _param("new", "newer release tag (default: the served one)",
                           {"type": "string", "pattern": "^kb-r[0-9]+$"})],
                "responses": {"200": {"description": "documents and verification changed"},
                              "400": _ERROR, "404": _ERROR, "503": _ERROR}}},
            "/api/healthz": {"get": {
                "summary": "Whether a release is served (no token needed)",
                "responses": {"200": _json("Health", "serving"), "503": _ERROR}}},
            "/api/openapi.json": {"get": {"summary": "This document",
                                          "responses": {"200": {"description": "OpenAPI"}}}},
        },
        "components": {
            "schemas": {**_SCHEMAS, "SearchRequest": _search_request()},
            "securitySchemes": {"token": {"type": "http", "scheme": "bearer",
                                          "description": "when started with --token-file"}},
        },
    }
