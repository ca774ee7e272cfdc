"""The JSON API under ``/api/``: thin handlers over `kbtools.serve.ops`.

``search`` returns exactly what `kb query --json` prints (`SearchResponse.to_dict()`);
``read`` and ``table/evaluate`` what the MCP tools ``read`` and ``evaluate_table`` return;
``releases`` the served release and the device's kept ones; ``diff`` what changed between
two releases of the device (`kbtools.ship.changes`, as `kb diff --json`); ``healthz`` whether a release is
served (and, from an engine, the releases published there). Every search is recorded in the device's query log (`kbtools.query.log`, interface
``api``; a no-op off a device): a GET search is tagged (`held.AnswerTags`, as a results page),
and asked again with its tag is a 304, not searched nor logged again; the other GETs are
tagged with their body's hash (`staticfiles.revalidated`). A search response's ``Server-Timing`` header says how long it waited for the
worker and the release's search lock (``queue``) and how long it searched (``search``). Every failure is ``{"error": {"status", "message"}}`` with a one-line message (a filter's
naming the ``where`` parameter, `API_FILTERS`, not the CLI's ``--where``) and the
HTTP status of `ops.status_of` / `ops.ApiError`. The endpoints are described in
`kbtools.serve.openapi` (served at ``/api/openapi.json``).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Scope

from kbtools.agents.arguments import TABLE_INSTEAD, section_over
from kbtools.agents.asked import asked_search
from kbtools.agents.cited_read import read_cited
from kbtools.agents.cited_table import evaluate_cited
from kbtools.agents.named import named
from kbtools.errors import (
    API_FILTERS,
    EngineError,
    IndexLoadError,
    KbError,
    UsageError,
    one_line,
    surface_message,
)
from kbtools.query.log import record_question
from kbtools.serve import ops
from kbtools.serve.held import AnswerTags
from kbtools.serve.i18n import browser_lang, error_zh
from kbtools.serve.openapi import openapi_document
from kbtools.serve.security import is_api_path
from kbtools.serve.source import Served, ServedIndex, Workers
from kbtools.serve.staticfiles import asked_tags, revalidated

log = logging.getLogger("kbtools.serve")
ApiError = ops.ApiError

# Every answer of the API is asked for again, never served from a cache: it is of the
# release served now (a search, a read, the releases), which a sync or rollback switches
# without a restart; `private`: a proxy between keeps no device's questions or answers.
NOT_KEPT = {"cache-control": "private, no-cache"}
MAX_BODY_BYTES = 64 * 1024  # a JSON request body
MAX_BODY_DEPTH = 32  # lists and objects nested in it (no endpoint needs more than 3)
_TOO_DEEP = f"the request body is not a JSON object: it nests deeper than {MAX_BODY_DEPTH} levels"


class Json(JSONResponse):
    """JSON as UTF-8 (Chinese stays readable), never NaN."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode("utf-8")


def error_response(status: int, message: str, said: str | None = None) -> Json:
    """A failure as JSON; a 408 (the body came too slowly) also ends the connection. `said`:
    the message in the language the request asked for (`asked_lang`) when it has words
    there: then ``message`` says it and ``message_en`` keeps the English."""
    error: dict[str, Any] = {"status": status, "message": one_line(said or message)}
    if said:
        error["message_en"] = one_line(message)
    headers = {**NOT_KEPT, "vary": "Accept-Language"}  # its words follow the header
    return Json({"error": error}, status_code=status,
                headers={**headers, "connection": "close"} if status == 408 else headers)


def asked_lang(request: Request) -> str:
    """The language a caller asks the API's errors in: the one of Chinese and English its
    ``Accept-Language`` prefers (a browser's page, a Chinese client), else English (a
    program that names none gets the messages it always got)."""
    return browser_lang(request.headers.get("accept-language", "")) or "en"


def said_in(lang: str, exc: Exception) -> str | None:
    """`exc` in `lang` when that is not English and it has words there, else None."""
    if lang != "zh":
        return None
    if isinstance(exc, ApiError):
        return exc.zh
    return error_zh(exc) if isinstance(exc, KbError) else None


Handler = Callable[[Request], Awaitable[Response]]
Endpoint = Callable[[Request, dict[str, Any]], Any]


def guarded(fn: Endpoint, *, search: bool = False) -> Handler:
    """`fn` run on a worker thread (a search's when `search`; it may read files) with the
    request and, for a POST, its JSON body; its result as JSON, its errors as one-line JSON
    errors."""
    async def handler(request: Request) -> Response:
        try:
            if request.method == "POST" and (extra := sorted(set(request.query_params)
                                                             - {"token"})):
                # read from the body alone: `POST /api/search?k=3` gave 5 results
                raise ApiError(400, f"{one_line(extra[0], 40)!r} is in the query string: a "
                                    f"POST to {request.url.path} takes its parameters in the "
                                    "JSON body")
            ops.check_address_text(request.scope.get("query_string", b""))
            body = await read_body(request) if request.method == "POST" else {}
            request.state.arrived = time.perf_counter()
            workers: Workers = request.app.state.workers
            result = await workers.run(fn, request, body, search=search)
        except ops.ApiError as exc:
            return error_response(exc.status, exc.message, said_in(asked_lang(request), exc))
        except KbError as exc:
            return error_response(ops.status_of(exc), surface_message(exc, API_FILTERS),
                                  said_in(asked_lang(request), exc))
        except Exception as exc:  # a bug: one line to the client, the traceback to the log
            log.exception("%s %s failed", request.method, request.url.path)
            return error_response(500, f"internal error ({type(exc).__name__}); see the server log")
        response = result if isinstance(result, Response) else Json(result)
        for key, value in NOT_KEPT.items():
            response.headers.setdefault(key, value)
        return revalidated(request, response)
    return handler


async def read_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, at most MAX_BODY_BYTES and MAX_BODY_DEPTH levels deep
    (ApiError otherwise)."""
    body = await ops.read_bounded(request, MAX_BODY_BYTES, "request body")
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        data = json.loads(body.decode("utf-8-sig"))  # a file saved by Windows tools: a BOM
    except RecursionError:  # deeper than the interpreter's stack allows
        raise ApiError(400, _TOO_DEEP) from None
    except UnicodeDecodeError as exc:
        if not _json_type(ctype):
            raise _not_json(ctype) from None
        at = exc.start + len(body) - len(exc.object)  # after a byte order mark
        raise ApiError(400, f"the request body is not UTF-8 (byte 0x{body[at]:02X} at "
                            f"byte {at + 1}): send JSON as UTF-8") from None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise (_not_json(ctype) if not _json_type(ctype)
               else ApiError(400, "the request body is not a JSON object"))
    if json_depth(data) > MAX_BODY_DEPTH:
        raise ApiError(400, _TOO_DEEP)
    return data


def _json_type(ctype: str) -> bool:
    """Whether a body sent as `ctype` (its media type; none said: "") may be JSON."""
    return ctype in ("", "application/json") or ctype.endswith("+json")


def _not_json(ctype: str) -> ApiError:
    """415 for a body sent as another type that is not a JSON object (a form's fields): a
    JSON object is read whatever its type says (``curl -d '{…}'`` sends it as a form)."""
    return ApiError(415, f"the request body is {one_line(ctype, 60)}, not a JSON object: "
                         "send a JSON object with Content-Type: application/json")


def json_depth(value: Any) -> int:
    """How deeply `value` (parsed JSON) nests lists and objects (a scalar is 0), counted
    without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        children = (item.values() if isinstance(item, dict) else
                    item if isinstance(item, list) else None)
        if children is not None:
            deepest = max(deepest, depth)
            todo.extend((child, depth + 1) for child in children)
    return deepest


def _served(request: Request) -> Served:
    source: ServedIndex = request.app.state.source
    return source.get()


# the parameters each endpoint takes (a search's question as `q` or `query`)
SEARCH_PARAMS = ("q", "query", "k", "where", "verified_only", "commit", "release")
READ_PARAMS = ("doc", "heading_path", "line_start", "line_end", "commit", "release")
TABLE_PARAMS = ("doc", "inputs", "table", "policy", "commit", "release")
DIFF_PARAMS = ("old", "new")


def search(request: Request, body: dict[str, Any]) -> Any:
    given = body if request.method == "POST" else request.query_params
    ops.check_names(given, SEARCH_PARAMS, "/api/search", repeatable=("where",))
    if "q" in given and "query" in given:  # a GET read `q` and a POST `query`: give one
        raise ApiError(400, "the question is given twice, as 'q' and as 'query'; give one")
    if request.method == "POST":
        q, k, where, verified = (body.get("query", body.get("q")), body.get("k"),
                                 body.get("where"), body.get("verified_only"))
        commit, release = body.get("commit"), body.get("release")
    else:
        params = request.query_params
        q, k = params.get("q", params.get("query")), params.get("k")
        where, verified = params.getlist("where"), params.get("verified_only")
        commit, release = params.get("commit"), params.get("release")
    if q is None:
        raise ApiError(400, "missing 'q' (the question)")
    waited = (time.perf_counter() - request.state.arrived) * 1000  # for a worker
    source: ServedIndex = request.app.state.source
    served = source.get()
    # a blank one was searched: 200 with nothing found
    question = ops.check_question(q, "query" if "query" in given else "q")
    k, where = ops.check_k(k), ops.check_where(where)
    verified_only = ops.check_flag(verified, "verified_only")
    tags: AnswerTags = request.app.state.answer_tags
    answer = None if request.method == "POST" else json.dumps(
        [served.index.release.to_dict(), sorted(request.query_params.multi_items())],
        ensure_ascii=False, default=str)
    try:  # an earlier release a result cited (MCP's `search` takes the same)
        with asked_search(served.index, commit, release, source.device(),
                          opened=source.earlier) as idx:
            kept = None if answer is None else tags.answered(
                asked_tags(request), answer)
            if kept is not None:  # asked again (a retry on a patchy link): not searched,
                # nor logged, again
                return Response(status_code=304, headers={"etag": kept, **NOT_KEPT})
            response, queued, ran = ops.timed_search(
                served, question, k=k, where=where, verified_only=verified_only,
                index=None if idx is served.index else idx)
            # a HEAD reads no answer: not a question asked (as a 304 is not)
            record_question(idx, "api", q, response, enabled=request.method != "HEAD")
    except KbError as exc:
        if exc.key == "release_gone":
            raise ApiError(404, exc.message) from None
        raise
    queued += waited
    timing = {"server-timing": f"queue;dur={queued:.2f}, search;dur={ran:.2f}"}
    return Json(response.to_dict(),
                headers=timing if answer is None else {**timing, "etag": tags.tag(answer)})


def read(request: Request, body: dict[str, Any]) -> Any:
    params = request.query_params
    ops.check_names(params, READ_PARAMS, "/api/read", repeatable=("heading_path",))
    doc = params.get("doc")
    if not doc:
        raise ApiError(400, "missing 'doc' (a document path as cited)")
    source: ServedIndex = request.app.state.source
    served = source.get()
    # repeated, the headings of a path one by one (as a list is sent in a query string), as
    # the MCP tool takes a list: the last one alone was read, under whatever parents
    given = params.getlist("heading_path")
    heading: str | list[str] | None = (given if len(given) > 1 else given[0] or None
                                       if given else None)
    if (over := section_over(heading, "heading_path")) is not None:
        raise ApiError(400, over)
    start = ops.check_line(params.get("line_start"), "line_start")
    end = ops.check_line(params.get("line_end"), "line_end")
    try:  # a citation or a link names the section, a commit or a tag the release (MCP's)
        read = read_cited(served.knowledge, doc, heading, start, end,
                          commit=params.get("commit"), release=params.get("release"),
                          device=source.device(), opened=source.earlier)
    except UsageError:
        raise
    except KbError as exc:  # no such document (said as the other pages say it, unless
        if exc.key == "no_document" and "moved" not in exc.values:  # it names where its
            ops.document(served, named(doc).doc)  # section is now), or no such section
        raise ApiError(404, exc.message) from None
    return read.to_dict()


def table_evaluate(request: Request, body: dict[str, Any]) -> Any:
    ops.check_names(body, TABLE_PARAMS, "/api/table/evaluate", instead=TABLE_INSTEAD)
    doc = body.get("doc")
    if not isinstance(doc, str) or not doc:
        raise ApiError(400, "missing 'doc' (a document path as cited)")
    table = body.get("table")
    if table is not None and (isinstance(table, bool) or not isinstance(table, (str, int, list))
                              or isinstance(table, list) and not all(isinstance(h, str)
                                                                     for h in table)):
        raise ApiError(400, "'table' must be a name, a section (a heading, a heading path "
                            "or its number) or a 1-based number")
    if (over := section_over(table, "table")) is not None:
        raise ApiError(400, over)
    policy = body.get("policy")
    if policy is not None and policy not in ("first", "all"):
        raise ApiError(400, "'policy' must be 'first' or 'all'")
    inputs = ops.check_inputs(body.get("inputs"))
    source: ServedIndex = request.app.state.source
    served = source.get()
    try:  # a citation or a link names the table, a commit or a tag the release (MCP's)
        result = evaluate_cited(served.knowledge, doc, inputs, table, commit=body.get("commit"),
                                release=body.get("release"), device=source.device(),
                                policy=policy, opened=source.earlier)
    except UsageError:
        raise
    except KbError as exc:  # no such document (said as the other pages say it, unless
        if exc.key == "no_document" and "moved" not in exc.values:  # it names where its
            ops.document(served, named(doc).doc, section_arg="table")  # section is now)
        if exc.key in ("no_document", "release_gone"):
            raise ApiError(404, exc.message) from None
        raise
    return result.to_dict()


def releases(request: Request, body: dict[str, Any]) -> Any:
    ops.check_names(request.query_params, (), "/api/releases")
    source: ServedIndex = request.app.state.source
    served = source.get()
    return ops.releases(served, source.device(), source.published(), source.where())


def diff(request: Request, body: dict[str, Any]) -> Any:
    source: ServedIndex = request.app.state.source
    params = request.query_params
    ops.check_names(params, DIFF_PARAMS, "/api/diff")
    return ops.diff(source.device(), params.get("old") or None, params.get("new") or None,
                    source.get())


def healthz(request: Request, body: dict[str, Any]) -> Any:
    try:
        served = _served(request)
    except (IndexLoadError, EngineError) as exc:
        return error_response(503, exc.format())
    return {"status": "ok", "release": served.index.release.to_dict()}


def openapi(request: Request, body: dict[str, Any]) -> Any:
    ops.check_names(request.query_params, (), "/api/openapi.json")
    return openapi_document()


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such route 404, wrong method 405) in the API's shape
    under /api/, as plain text elsewhere."""
    status = int(getattr(exc, "status_code", 500))
    headers = dict(getattr(exc, "headers", None) or {})
    if is_api_path(request.url.path):
        # a 405 keeps its Allow header (HTTP requires it) and names the methods in its words
        allowed = next((v for k, v in headers.items() if k.lower() == "allow"), "")
        message = (f"no API endpoint {request.url.path}" if status == 404 else
                   f"{request.method} is not allowed here"
                   + (f"; {request.url.path} takes {allowed}" if allowed else "")
                   if status == 405 else str(getattr(exc, "detail", "error")))
        zh = (f"没有这个 API 接口：{request.url.path}" if status == 404 else
              f"这里不接受 {request.method} 请求" + (f"；{request.url.path} 接受 {allowed}"
                                                    if allowed else "")
              if status == 405 else None)
        response = error_response(status, message, zh if asked_lang(request) == "zh" else None)
        response.headers.update(headers)
        return response
    return PlainTextResponse(f"{status}: {getattr(exc, 'detail', '')}\n", status_code=status,
                             headers=headers or None)


def refusal(scope: Scope, status: int, message: str, zh: str) -> Response:
    """A request `security.Guard` refused before any handler ran (a query string too long,
    a wrong Host, another site's request, no token) to an API address: as every API error,
    its words in the language the request asks for."""
    return error_response(status, message, zh if asked_lang(Request(scope)) == "zh" else None)


def routes() -> list[Route]:
    return [
        Route("/api/search", guarded(search, search=True), methods=["GET", "POST"]),
        Route("/api/read", guarded(read), methods=["GET"]),
        Route("/api/table/evaluate", guarded(table_evaluate), methods=["POST"]),
        Route("/api/releases", guarded(releases), methods=["GET"]),
        Route("/api/diff", guarded(diff), methods=["GET"]),
        Route("/api/healthz", guarded(healthz), methods=["GET"]),
        Route("/api/openapi.json", guarded(openapi), methods=["GET"]),
    ]
