"""The rules every `kb serve` response follows, as one ASGI middleware.

- **Headers**: a Content-Security-Policy that allows nothing from another origin (pages load
  only this server's stylesheet, images and scripts (the search box's ``/static/search.js``;
  no inline script, no handler attribute, no ``eval``), submit forms only here);
  SVG files get a stricter one (``sandbox``, no script, no loads), and so do PDFs (the
  page's plus ``sandbox``: Chromium's viewer still shows them, and a document that is no
  PDF could run nothing in the app's origin). Plus ``nosniff`` (a release's picture or PDF
  is never run as a script), no referrer, no framing.
- **Bounds**: a query string longer than `MAX_QUERY_STRING` (`QUERY_BOUNDS` for an address
  whose parameters need more) is refused (414) before any
  handler runs (a page address with an error page in the reader's language, ``refusal_page``); JSON bodies are bounded by the API (`kbtools.serve.api.MAX_BODY_BYTES`).
- **Host**: only the names in `allowed_hosts` may appear in the ``Host`` header (on loopback,
  the loopback names), so a web page elsewhere cannot reach a localhost server through DNS
  rebinding.
- **Other sites**: a request the browser says another site's page made (``Sec-Fetch-Site``
  cross-site or same-site) is refused (403) unless it follows a link (a GET navigation):
  a page elsewhere cannot post questions into the device's query log or fetch its API.
- **Token**: with a token configured, every request except ``/api/healthz`` and
  ``/static/`` must carry it, as ``Authorization: Bearer <token>`` (programs) or the
  ``kb_token`` cookie, which a browser gets by opening any page once with ``?token=<token>``
  (then redirected to the same URL without it). Compared in constant time.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, quote, unquote_plus

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kbtools.agents.arguments import MAX_SECTION_CHARS

# connect-src: the search page's script sends its form itself (to say on the page when it
# does not arrive), to this server only
PAGE_CSP = ("default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
PDF_CSP = PAGE_CSP + "; sandbox"
MAX_QUERY_STRING = 8192
# /api/read's GET carries a heading path of up to MAX_SECTION_CHARS characters, each 9
# bytes percent-encoded when Chinese (12 for one outside the BMP), beside its document and
# lines: 8192 bytes answered 414 at ~900 Chinese characters, before the API's own bound
# could say what is wrong (the head stays under uvicorn's `app.MAX_HEADER_BYTES`)
QUERY_BOUNDS = {"/api/read": 12 * MAX_SECTION_CHARS + 2048}
TOKEN_COOKIE = "kb_token"
OPEN_PATHS = ("/api/healthz", "/static/")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
_PATH_SAFE = "/!$&'()*+,;=:@-._~"  # RFC 3986 path characters (a backslash is escaped)
_QUERY_SAFE = _PATH_SAFE + "?%"  # and a query's own escapes kept as they came
# A refusal's body for a page address: (scope, status, English message, Chinese) -> HTML
RefusalPage = Callable[[Scope, int, str, str], bytes]
# A refusal for an API address, as every API error is answered: (same) -> an ASGI response
ApiRefusal = Callable[[Scope, int, str, str], ASGIApp]
# each refusal: its status, its message (English: the API's) and its Chinese for a page
WRONG_HOST = (421, "this server does not answer for that host name", "这个服务器不接受这个主机名")
OTHER_SITE = (403, "refused: a request another site's page made (Sec-Fetch-Site: cross-site); "
              "open this server's own pages", "拒绝：这个请求来自其他网站的页面，请直接打开本服务器的页面")
NO_TOKEN = (401, "a valid token is required (Authorization: Bearer <token>, or open the page "
            "once with ?token=<token>)", "需要有效的令牌（Authorization: Bearer <令牌>，或用 "
            "?token=<令牌> 打开一次页面）")


def too_long(bound: int) -> tuple[int, str, str]:
    """The refusal of a query string longer than `bound` bytes."""
    return 414, f"query string longer than {bound} bytes", f"网址中的查询部分超过 {bound} 字节"


def security_headers(content_type: str) -> list[tuple[bytes, bytes]]:
    csp = SVG_CSP if content_type.startswith("image/svg") else \
        PDF_CSP if content_type.startswith("application/pdf") else PAGE_CSP
    return [(b"content-security-policy", csp.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"x-frame-options", b"DENY"),
            (b"cross-origin-resource-policy", b"same-origin")]


class Guard:
    """ASGI middleware applying the module's rules around `app`."""

    def __init__(self, app: ASGIApp, *, token: str | None = None,
                 allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
                 refusal_page: RefusalPage | None = None,
                 api_refusal: ApiRefusal | None = None):
        self.app = app
        self.token = token
        self.allowed = {h.lower() for h in allowed_hosts}
        self.refusal_page = refusal_page  # a page address's refusal (plain text without)
        self.api_refusal = api_refusal  # an API address's (a bare JSON error without)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        query = scope.get("query_string", b"")
        path: str = scope.get("path", "/")
        refusal = None
        if len(query) > (bound := QUERY_BOUNDS.get(path, MAX_QUERY_STRING)):
            refusal = too_long(bound)
        elif "*" not in self.allowed and _host(headers.get("host", "")) not in self.allowed:
            refusal = WRONG_HOST
        elif _from_another_site(scope.get("method", "GET"), headers):
            refusal = OTHER_SITE
        elif self.token is not None and not path.startswith(OPEN_PATHS):
            given = _given_token(headers, query)
            if given is None or not secrets.compare_digest(given.encode(), self.token.encode()):
                refusal = NO_TOKEN
        if refusal is not None:
            await self._refuse(send, scope, receive, *refusal)
            return
        if self.token is not None and not path.startswith(OPEN_PATHS):
            if _query_token(query) is not None:
                await _redirect_without_token(send, path, query, self.token)
                return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                raw = list(message.get("headers", []))
                ctype = next((v.decode("latin-1") for k, v in raw
                              if k.lower() == b"content-type"), "")
                message = {**message, "headers": raw + security_headers(ctype)}
            await send(message)

        await self.app(scope, receive, send_with_headers)


    async def _refuse(self, send: Send, scope: Scope, receive: Receive, status: int,
                      message: str, zh: str) -> None:
        """A refusal: JSON for an API address (as the API answers its own errors), plain
        text for /static/, an error page (in the reader's language) for a page address."""
        path: str = scope.get("path", "/")
        if self.api_refusal is not None and is_api_path(path):
            async def with_headers(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message = {**message, "headers": [*message.get("headers", []),
                                                      *security_headers("application/json")]}
                await send(message)

            await self.api_refusal(scope, status, message, zh)(scope, receive, with_headers)
            return
        if self.refusal_page is None or is_api_path(path) or path.startswith("/static/"):
            await _plain(send, status, message, path)
            return
        body = self.refusal_page(scope, status, message, zh)
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/html; charset=utf-8"),
                                (b"content-length", str(len(body)).encode()),
                                (b"cache-control", b"no-store"), *security_headers("text/html")]})
        await send({"type": "http.response.body", "body": body})


def is_api_path(path: str) -> bool:
    """Whether `path` is an address of the JSON API (``/api/…``, ``/api`` itself, and with
    its slashes doubled: ``//api/search``), whose every answer, a refusal too, is JSON."""
    bare = path.lstrip("/")
    return bare == "api" or bare.startswith("api/")


def _from_another_site(method: str, headers: dict[str, str]) -> bool:
    """Whether the browser says another site's page made this request, other than by a
    link followed (a GET navigation): a form it posted or a script's or image's fetch. Such
    a request reaches a server on loopback, or one serving `--open`, with nothing to stop it
    and writes the question into the device's query log. From the browser's
    ``Sec-Fetch-Site``, which a reverse proxy leaves as it is (an ``Origin`` would name the
    proxy's host, not the ``Host`` it passes); a client that sends none is not refused.
    Browsers send it to loopback and HTTPS addresses; over plain HTTP elsewhere the token's
    ``SameSite=Strict`` cookie keeps another site's requests out."""
    if headers.get("sec-fetch-site", "").strip().lower() not in ("cross-site", "same-site"):
        return False
    navigation = headers.get("sec-fetch-mode", "").strip().lower() == "navigate"
    return not (navigation and method in ("GET", "HEAD"))


def _host(value: str) -> str:
    value = value.strip().lower()
    if value.startswith("["):
        return value[:value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _query_token(query: bytes) -> str | None:
    for key, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if key == "token":
            return value
    return None


def _given_token(headers: dict[str, str], query: bytes) -> str | None:
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header is no token
        cookie = SimpleCookie()
    if TOKEN_COOKIE in cookie:
        return cookie[TOKEN_COOKIE].value
    return _query_token(query)


def local_path(path: str) -> str:
    """`path` (a request's, percent-encoded) as a link that stays on this server: its
    leading slashes and backslashes one ``/``. A browser takes ``//evil.example/x`` (and
    ``/\\evil.example/x``) for another host, and a request for that path reaches this server
    as any other (a page not found, with links to itself in the other language)."""
    return "/" + path.lstrip("/\\")


def location_without_token(path: str, query: bytes) -> str:
    """The same-origin URL of `path` and `query` less its ``token`` parameters: the path
    percent-encoded (a document's Chinese name, a CR or LF, make no invalid or extra
    header), its leading slashes and backslashes one ``/`` (``//evil.example/`` is another
    host to a browser, and so is ``/\\evil.example``), the other parameters byte for byte."""
    where = local_path(quote(path, safe=_PATH_SAFE))
    rest = [part for part in query.split(b"&")
            if part and unquote_plus(part.split(b"=", 1)[0].decode("latin-1")) != "token"]
    return where + ("?" + quote(b"&".join(rest), safe=_QUERY_SAFE) if rest else "")


async def _redirect_without_token(send: Send, path: str, query: bytes, token: str) -> None:
    location = location_without_token(path, query)
    cookie = f"{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", location.encode("latin-1")),
                            (b"set-cookie", cookie.encode("latin-1")),
                            (b"content-length", b"0"), *security_headers("")]})
    await send({"type": "http.response.body", "body": b""})


async def _plain(send: Send, status: int, message: str, path: str) -> None:
    """A refusal: JSON under /api/, plain text elsewhere."""
    body: Any
    if is_api_path(path):
        body = json.dumps({"error": {"status": status, "message": message}}).encode()
        ctype = b"application/json"
    else:
        body = f"{status}: {message}\n".encode()
        ctype = b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", ctype),
                            (b"content-length", str(len(body)).encode()), *security_headers("")]})
    await send({"type": "http.response.body", "body": body})
