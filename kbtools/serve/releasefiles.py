"""A release's files the pages show, served from the release being served: ``/formulas/
<sha256>.svg`` (sanitised at build, kept a year: its name is its content) and
``/asset/<path>`` (the pictures and PDFs a release ships), each tagged with its content's
hash (a reload is a 304 while the served release holds the same file)."""

from __future__ import annotations

import hashlib
import posixpath
import re
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from kbtools.errors import KbError, one_line
from kbtools.render.images import SHIPPED_TYPES, shipped_path
from kbtools.serve import ops
from kbtools.serve.source import ServedIndex, Workers
from kbtools.serve.staticfiles import holds

_FORMULA_NAME = re.compile(r"^[0-9a-f]{64}\.svg$")


def _source(request: Request) -> ServedIndex:
    source: ServedIndex = request.app.state.source
    return source


async def formula_file(request: Request) -> Response:
    name = request.path_params["name"]
    if not _FORMULA_NAME.match(name):
        return Response("no such formula\n", 404, media_type="text/plain")
    return await _data_file(request, f"formulas/{name}", "image/svg+xml",
                            "public, max-age=31536000, immutable")


async def asset_file(request: Request) -> Response:
    rel = request.path_params["path"]  # decoded once: a file may be named "a%20b.png"
    if shipped_path("", quote(rel)) != rel:  # normalised, relative, a picture or a PDF
        return Response("no such file\n", 404, media_type="text/plain")
    ctype = SHIPPED_TYPES[rel[rel.rfind("."):].lower()]
    # a PDF opens in the browser's viewer, saved under its own name (not "asset")
    headers = {} if ctype.startswith("image/") else {
        "content-disposition": f"inline; filename*=UTF-8''{quote(posixpath.basename(rel))}"}
    return await _data_file(request, f"source/{rel}", ctype, "no-cache", headers)


async def _data_file(request: Request, rel: str, ctype: str, cache: str,
                     headers: dict[str, str] | None = None) -> Response:
    """A release file, tagged with its content's hash: a picture or PDF of a page reloaded
    (``no-cache``) is a 304 while the served release holds the same file, not sent again."""
    def read() -> tuple[bytes, str] | Response:
        try:
            data = _source(request).get().data_file(rel)
        except OSError:
            return Response("not found\n", 404, media_type="text/plain")
        except KbError as exc:  # nothing served now (no release, the engine is down)
            return Response(one_line(exc.format()) + "\n", ops.status_of(exc),
                            media_type="text/plain")
        return data, '"' + hashlib.sha256(data).hexdigest()[:32] + '"'
    workers: Workers = request.app.state.workers
    found = await workers.run(read)
    if isinstance(found, Response):
        return found
    data, etag = found
    sent = {"cache-control": cache, "etag": etag, **(headers or {})}
    if holds(request, etag):
        return Response(status_code=304, headers=sent)
    return Response(data, media_type=ctype, headers=sent)


def routes() -> list[Route]:
    return [Route("/formulas/{name}", formula_file), Route("/asset/{path:path}", asset_file)]
