"""Responses sent gzip-compressed to a client that accepts it, as one ASGI middleware.

A tablet on a slow, lossy 4G link waits for every byte: a document's page of ~700 KB of
HTML, a table's CSV, a search's JSON shrink several times over when compressed, and cost
the server a few milliseconds. What is compressed: a complete (not streamed) body of at
least `MIN_BYTES` whose type is text (`COMPRESSED_TYPES`: HTML, CSS, JavaScript, JSON, CSV,
SVG, plain text), to a request whose ``Accept-Encoding`` takes gzip (``gzip;q=0`` refuses
it). Never pictures and PDFs, which are compressed already (compressing them again costs
time and saves nothing), a body already encoded, or a partial (206) response.

HTTP caching stays right with two byte streams per page:

- every response whose body could be compressed says ``Vary: Accept-Encoding`` (a cache
  keeps the compressed and the plain copy apart), its 304s too;
- to a client that accepts gzip, an ETag is sent weak (``W/"…"``): a strong tag promises the
  same bytes, and the plain and compressed bodies are not, so the strong form names only
  the plain body sent to a client that does not take gzip. Revalidation compares tags
  weakly (``If-None-Match``), so a reload still gets its 304; `kbtools.serve.held` and
  `kbtools.serve.staticfiles` read a tag with or without its ``W/``. The gzip stream has no
  time stamp in it (``mtime=0``): one body always compresses to the same bytes.

BREACH (a compressed body's size leaking a secret, guessed through input the attacker puts
in the same body): no body `kb serve` sends holds a secret. The access token travels in a
header (``Authorization``, the ``Set-Cookie`` of the redirect, whose body is empty) and
never in a page or JSON; there is no CSRF value (other sites' requests are refused by
`security.Guard` instead) and no cookie value is written into a body. Should one ever be,
its response must be left out of this middleware (docs/serve.md says so).

A large body is compressed on a thread (`THREAD_BYTES`): the event loop keeps answering
other clients meanwhile.
"""

from __future__ import annotations

import asyncio
import gzip

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# the types whose bodies shrink when compressed (the app sends no other text type)
COMPRESSED_TYPES = frozenset({
    "text/html", "text/css", "text/plain", "text/csv", "text/javascript",
    "application/javascript", "application/json", "image/svg+xml",
})
MIN_BYTES = 1024  # smaller bodies fit a packet or two anyway: gzip's header would be waste
LEVEL = 6  # zlib's default: level 9 takes about twice the time for a per cent or two less
THREAD_BYTES = 64 * 1024  # bodies at least this large are compressed off the event loop


def accepts_gzip(header: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip: named (or ``*``, gzip not named)
    with a quality above 0. ``gzip;q=0`` refuses it; a missing header takes no coding."""
    named: dict[str, float] = {}
    for item in header.split(","):
        coding, _, params = item.partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 0.0
        if coding.strip():
            named[coding.strip().lower()] = quality
    for coding in ("gzip", "x-gzip", "*"):
        if coding in named:
            return named[coding] > 0
    return False


def media_type(headers: MutableHeaders) -> str:
    """A response's content type without its parameters, lower case ('' when it has none)."""
    return headers.get("content-type", "").partition(";")[0].strip().lower()


def weak(etag: str) -> str:
    """`etag` as a weak tag (unchanged when it already is one)."""
    return etag if etag.startswith("W/") else "W/" + etag


class Compression:
    """ASGI middleware compressing `app`'s responses as the module says."""

    def __init__(self, app: ASGIApp, *, min_bytes: int = MIN_BYTES, level: int = LEVEL):
        self.app = app
        self.min_bytes = min_bytes
        self.level = level

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = b", ".join(v for k, v in scope.get("headers", []) if k.lower() == b"accept-encoding")
        gzip_ok = accepts_gzip(given.decode("latin-1"))
        held: list[Message] = []  # the response's start, until its body says how to send it

        async def send_compressed(message: Message) -> None:
            if message["type"] == "http.response.start":
                held.append(message)
                return
            if not held:
                await send(message)
                return
            start = held.pop()
            if message["type"] != "http.response.body":
                await send(start)
                await send(message)
                return
            headers = MutableHeaders(raw=list(start.get("headers", [])))
            kind = media_type(headers)
            if kind in COMPRESSED_TYPES or start["status"] == 304:
                headers.add_vary_header("Accept-Encoding")
            if gzip_ok and "etag" in headers:
                headers["etag"] = weak(headers["etag"])
            body: bytes = message.get("body", b"")
            if (gzip_ok and kind in COMPRESSED_TYPES and len(body) >= self.min_bytes
                    and not message.get("more_body", False) and start["status"] != 206
                    and "content-encoding" not in headers):
                body = await self.compress(body)
                headers["content-encoding"] = "gzip"
                headers["content-length"] = str(len(body))
                message = {**message, "body": body}
            await send({**start, "headers": headers.raw})
            await send(message)

        await self.app(scope, receive, send_compressed)

    async def compress(self, body: bytes) -> bytes:
        """`body` gzipped (on a thread when it is large), the same bytes for the same body."""
        if len(body) < THREAD_BYTES:
            return gzip.compress(body, self.level, mtime=0)
        return await asyncio.to_thread(gzip.compress, body, self.level, mtime=0)
