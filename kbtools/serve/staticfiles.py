"""The package's own files for the browser (``static/``: the stylesheet and the search
box's script) and how they are cached.

Both are read once when the server starts (`package_files`), with the page templates: a
server running while `pip install -U kbtools` replaces them keeps serving its own version.
Each is sent under a versioned address, `static_url` (``/static/style.css?v=<hash>``, the
hash of what this server sends): a browser keeps the file for a year without asking
(``immutable``), so a page on a slow link costs no round trip for its stylesheet and
script. After an upgrade (and restart) the pages, which are never kept without asking
(``no-cache``), name the new hash: the browser fetches the new files and never runs an
older script with newer HTML. An address without the current hash (none, or an older
one) is answered with the current file, ``no-cache`` and its ETag, so it is never kept
under a name that is not its own; a browser revalidating it gets a 304 while it is
unchanged.
"""

from __future__ import annotations

import hashlib
import mimetypes
from importlib.resources import files

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

VERSION_PARAM = "v"
IMMUTABLE = "public, max-age=31536000, immutable"
MAX_TAGS_HEADER = 4096  # the characters of an If-None-Match header read
ANY_TAG = "*"  # ``If-None-Match: *``: any representation the server has


def package_files(folder: str) -> dict[str, bytes]:
    """The files of the package folder `folder` (``templates``, ``static``) by name, read
    when the server starts: a running server renders and serves its own version's files
    after `pip install -U kbtools` replaced them on disk (it read each template again once
    its file changed, and a newer template calling what the running code does not give
    failed with a 500 until the server was restarted)."""
    return {f.name: f.read_bytes() for f in files("kbtools.serve").joinpath(folder).iterdir()
            if f.is_file()}


# each static file as this kbtools ships it, and its version (a hash of its bytes)
STATIC = {name: (data, hashlib.sha256(data).hexdigest()[:32])
          for name, data in package_files("static").items()}


def static_url(name: str) -> str:
    """The versioned address of the static file `name` (the templates' links to it)."""
    return f"/static/{name}?{VERSION_PARAM}={STATIC[name][1]}"


def asked_tags(request: Request) -> str:
    """The request's ``If-None-Match`` tags, comma-separated, at most `MAX_TAGS_HEADER`
    characters: of every line the header is sent on (a list may be sent as several lines,
    as a proxy or Go's ``Header.Add`` sends it: the tags of the second were not read)."""
    return ",".join(request.headers.getlist("if-none-match"))[:MAX_TAGS_HEADER]


def holds(request: Request, etag: str) -> bool:
    """Whether the request's ``If-None-Match`` names `etag` (compared weakly: a tag sent
    weak, as `kbtools.serve.compress` sends it with a compressed body, matches too), or is
    ``*`` (any copy the client holds: a GET of an existing resource is "not modified")."""
    held = {t.strip().removeprefix("W/") for t in asked_tags(request).split(",")}
    return etag.removeprefix("W/") in held or ANY_TAG in held


def revalidated(request: Request, response: Response) -> Response:
    """A page or an API answer of 200 to a GET without a tag of its own (a document, a
    decision table, the release page, the search form; ``/api/read``, ``/api/releases``,
    …) tagged with its body's hash, and a 304 when the client's copy has it: a reload on a
    slow link costs a round trip, not the answer again (both are ``no-cache``: the client
    always asks). A results page and a GET ``/api/search`` keep their own tag
    (`held.AnswerTags`: asked again, the question is not searched nor logged again)."""
    if request.method not in ("GET", "HEAD") or response.status_code != 200 \
            or "etag" in response.headers:
        return response
    etag = '"' + hashlib.sha256(response.body).hexdigest()[:32] + '"'
    if not holds(request, etag):
        response.headers["etag"] = etag
        return response
    kept = Response(status_code=304, headers={"etag": etag,
                                              "cache-control": response.headers.get(
                                                  "cache-control", "no-cache")})
    for key, value in response.raw_headers:  # the language cookie a ?lang= link sets
        if key == b"set-cookie":
            kept.raw_headers.append((key, value))
    return kept


async def static_file(request: Request) -> Response:
    """A file of the package's static folder: cached for a year under its versioned
    address, revalidated on every use under any other (see the module docstring)."""
    found = STATIC.get(request.path_params["name"])
    if found is None:
        raise HTTPException(404)
    data, version = found
    etag = f'"{version}"'
    current = request.query_params.get(VERSION_PARAM) == version
    headers = {"etag": etag, "cache-control": IMMUTABLE if current else "no-cache"}
    if holds(request, etag):
        return Response(status_code=304, headers=headers)
    kind = mimetypes.guess_type(request.path_params["name"])[0] or "application/octet-stream"
    return Response(data, media_type=kind, headers=headers)


WORKER = "offline.js"  # the offline copies' service worker (static/offline.js)


async def worker_file(request: Request) -> Response:
    """The offline copies' service worker at the root of the site (``/offline.js``): a
    worker's scope is the folder it is served from, and it is in charge of every page.
    ``no-cache``: a browser checks it on every registration, so an upgraded server's
    worker replaces the one it kept."""
    data, version = STATIC[WORKER]
    etag = f'"{version}"'
    headers = {"etag": etag, "cache-control": "no-cache"}
    if holds(request, etag):
        return Response(status_code=304, headers=headers)
    return Response(data, media_type="text/javascript", headers=headers)
