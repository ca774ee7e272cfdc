"""`kbtools.serve.security.Guard` on its own, around a stub application, called as an ASGI
server calls it: request targets a test client would rewrite (``//host/``, ``/\\host``)
reach it as a server passes them."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from kbtools.serve.app import create_app
from kbtools.serve.security import Guard

TOKEN = "s3cret-token-0123456789"


async def _ok(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})


def asgi_get(app: Any, path: str, query: bytes = b"") -> list[dict[str, Any]]:
    """The messages `app` sends for a GET of `path` and `query`, as a server passes them."""
    scope = {"type": "http", "method": "GET", "path": path, "query_string": query,
             "raw_path": path.encode(), "headers": [(b"host", b"127.0.0.1:8080")],
             "http_version": "1.1", "scheme": "http", "root_path": "",
             "server": ("127.0.0.1", 8080), "client": ("127.0.0.1", 50000)}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent


def call(path: str, query: bytes = b"") -> dict[str, Any]:
    """The response start message of a GET of `path` and `query` through the Guard."""
    return asgi_get(Guard(_ok, token=TOKEN), path, query)[0]


def location(path: str, query: bytes) -> str:
    start = call(path, query)
    assert start["status"] == 303
    headers = dict(start["headers"])
    assert headers[b"set-cookie"].startswith(f"kb_token={TOKEN};".encode())
    value: bytes = headers[b"location"]
    assert all(0x21 <= b <= 0x7e for b in value), value  # one visible ASCII header value
    return value.decode("ascii")


@pytest.mark.parametrize("path", ["//evil.example/", "///evil.example/x", "/\\evil.example",
                                  "/\\/evil.example", "//evil.example/doc/a.md"])
def test_the_token_redirect_stays_on_this_server(path):
    """A link `http://device//evil.example/?token=…` was redirected to `//evil.example/`,
    which a browser takes for another host (so is `/\\evil.example`): an open redirect
    from the device's own address, just after the technician handed it the token."""
    where = location(path, b"token=" + TOKEN.encode())
    assert where.startswith("/") and not where.startswith("//")
    assert "\\" not in where and "evil.example" in where  # the path kept, as a path here


def test_the_token_redirect_of_a_chinese_document_name():
    """`/doc/knowledge/水泵.md?token=…` was a 500: the path went into the Location header
    undecoded, which latin-1 cannot hold."""
    where = location("/doc/knowledge/水泵.md", f"token={TOKEN}&q=%E6%B0%B4&lines=3-5".encode())
    assert where == "/doc/knowledge/%E6%B0%B4%E6%B3%B5.md?q=%E6%B0%B4&lines=3-5"


def test_the_token_redirect_makes_no_second_header():
    where = location("/doc/x\r\nSet-Cookie: a=b", b"token=" + TOKEN.encode())
    assert where == "/doc/x%0D%0ASet-Cookie:%20a=b"


def test_the_token_redirect_keeps_the_other_parameters_as_sent():
    where = location("/", b"q=a+b%FF&token=" + TOKEN.encode() + b"&tok%65n=x&k=3&where=crop%3D")
    assert where == "/?q=a+b%FF&k=3&where=crop%3D"
    assert location("/release", b"token=" + TOKEN.encode()) == "/release"


def test_no_token_is_refused_and_a_right_one_passes():
    assert call("/")["status"] == 401
    assert call("/api/healthz")["status"] == 200


def fetch(method: str, **headers: str) -> int:
    scope = {"type": "http", "method": method, "path": "/", "query_string": b"q=x",
             "headers": [(b"host", b"127.0.0.1:8080"),
                         *((k.replace("_", "-").encode(), v.encode())
                           for k, v in headers.items())],
             "http_version": "1.1", "scheme": "http", "root_path": ""}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(Guard(_ok)(scope, receive, send))
    status: int = sent[0]["status"]
    return status


def test_another_sites_page_cannot_post_or_fetch():
    """A page on another site the technician had open posted questions to the server on
    loopback (its form auto-submitted, or an <img> of /api/search?q=…): each was answered
    and written to the device's query log. The browser says so in Sec-Fetch-Site."""
    assert fetch("POST", sec_fetch_site="cross-site", sec_fetch_mode="navigate") == 403
    assert fetch("GET", sec_fetch_site="cross-site", sec_fetch_mode="no-cors") == 403
    assert fetch("POST", sec_fetch_site="same-site", sec_fetch_mode="cors") == 403
    # a link followed from elsewhere, this server's own pages, and programs still work
    assert fetch("GET", sec_fetch_site="cross-site", sec_fetch_mode="navigate") == 200
    assert fetch("POST", sec_fetch_site="same-origin", sec_fetch_mode="navigate") == 200
    assert fetch("GET", sec_fetch_site="none", sec_fetch_mode="navigate") == 200
    assert fetch("POST") == 200


@pytest.mark.parametrize("path", ["//evil.example/x", "///evil.example/x", "/\\evil.example/x"])
def test_a_page_not_found_links_only_to_this_server(tmp_path, path):
    """`http://device//evil.example/x` showed the device's own "not found" page, whose
    language link was `//evil.example/x?lang=en`: another host, one tap away in a page the
    technician trusts."""
    sent = asgi_get(create_app(tmp_path / "none"), path)
    assert sent[0]["status"] == 404
    page = b"".join(m.get("body", b"") for m in sent[1:]).decode()
    links = re.findall(r'(?:href|action)="([^"]*)"', page)
    assert any("lang=en" in link for link in links)
    assert all(link.startswith(("/", "#")) and not link.startswith(("//", "/\\"))
               for link in links)  # (`#kb-main`: the skip link, in this page)
