"""`kb serve`'s JSON API as HTTP on a device's patchy link: its GET answers revalidated as the
pages are (an ETag, ``private, no-cache``, a 304 when the client's copy holds), and every
refusal, one the server makes before any handler runs too, JSON in the API's one shape."""

from __future__ import annotations

import json
import socket
import time
from urllib.parse import quote

import pytest
from servefixtures import app_client, error_of, make_served_repo, threaded_server

from kbtools.serve.app import create_app

pytestmark = pytest.mark.slow

SCAB = "knowledge/crops/wheat-scab.md"


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    return make_served_repo(tmp_path_factory.mktemp("apihttp") / "kr") / "dist"


@pytest.fixture(scope="module")
def client(dist):
    yield from app_client(dist)


@pytest.mark.parametrize("url", [
    "/api/search?q=%E8%B5%A4%E9%9C%89%E7%97%85",
    f"/api/read?doc={SCAB}",
    "/api/releases",
    "/api/openapi.json",
])
def test_a_get_asked_again_with_its_etag_is_a_304(client, url):
    """`/api/search` (and the API's other GETs) answered without an ETag: a client asking
    again on patchy 4G was sent the whole answer again; the pages' rules hold for it now."""
    first = client.get(url)
    assert first.status_code == 200, first.text
    tag = first.headers["etag"]
    assert first.headers["cache-control"] == "private, no-cache"
    again = client.get(url, headers={"if-none-match": tag})
    assert again.status_code == 304 and not again.content
    assert again.headers["etag"] == tag and again.headers["cache-control"] == "private, no-cache"
    assert client.get(url, headers={"if-none-match": '"other"'}).status_code == 200
    # several tags: in one line, or on a line each (a list field may be sent so, as a proxy
    # or Go's Header.Add sends it: the second line's tag was not read, 200 and the whole
    # answer again); ``*``: any copy held (RFC 9110 13.1.2), not modified
    for sent in ([("if-none-match", '"other", ' + tag)],
                 [("if-none-match", '"other"'), ("if-none-match", tag)],
                 [("if-none-match", "*")]):
        held = client.get(url, headers=sent)
        assert held.status_code == 304 and not held.content, sent
        # (a search's tag is of the second it is given: ``*`` is given the tag of now)
        assert client.get(url, headers={"if-none-match": held.headers["etag"]}).status_code == 304


def shape(resp) -> tuple[str, str, bool, str, bytes]:
    """What every API error has in common: its content type, caching, Vary and JSON
    spelling (compact: the body as the API writes it)."""
    body = resp.json()
    return (resp.headers["content-type"], resp.headers["cache-control"],
            "Accept-Language" in resp.headers["vary"],
            ",".join(sorted(body["error"])),
            json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode())


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_refusal_before_any_handler_is_an_api_error_of_the_apis_shape(client, lang):
    """A query string over the server's limit (a spaced JSON filter, a long question sent by
    GET) was refused (414) with JSON of another spelling than the API's errors, no caching
    rule and English only; under `/api` itself or `//api/…` with an HTML page. It is now
    the API's error, in the language the client asks for, as a 400 is."""
    headers = {"accept-language": lang}
    spaced = json.dumps({"where": ["crop = 小麦"] * 300}, indent=2)
    too_long = client.get("/api/search", params={"q": "赤霉病", "where": spaced},
                          headers=headers)
    bad = client.get("/api/search", params={"q": "赤霉病", "k": "x"}, headers=headers)
    assert too_long.status_code == 414 and bad.status_code == 400
    assert shape(too_long)[:4] == shape(bad)[:4]
    assert too_long.content == shape(too_long)[4]
    message = too_long.json()["error"]["message"]
    assert ("8192" in message) and (("字节" in message) == (lang == "zh-CN"))
    for url in ("/api", "/api?q=" + "x" * 9000, "http://127.0.0.1//api/search?q=x"):
        resp = client.get(url)
        assert resp.headers["content-type"] == "application/json", (url, resp.text[:80])
        error_of(resp, resp.status_code)


def test_a_bad_parameter_is_one_error_naming_it(client):
    """`verified_only=maybe` was "a true/false flag must be true or false" (which flag?),
    and `/api/releases` and `/api/openapi.json` answered a parameter they do not take as if
    it were not there (a misspelt one is dropped silently)."""
    for resp in (client.get("/api/search", params={"q": "赤霉病", "verified_only": "maybe"}),
                 client.post("/api/search", json={"q": "赤霉病", "verified_only": "maybe"})):
        assert error_of(resp, 400) == "'verified_only' must be true or false, not 'maybe'"
    zh = client.get("/api/search", params={"q": "赤霉病", "verified_only": "maybe"},
                    headers={"accept-language": "zh-CN"}).json()["error"]["message"]
    assert zh.startswith("verified_only ")
    for url in ("/api/releases", "/api/openapi.json"):
        message = error_of(client.get(url, params={"serial": "2"}), 400)
        assert message == f"unknown parameter 'serial' ({url} takes none)"
        assert client.get(url, params={"token": "x" * 20}).status_code == 200


def sent_in_pieces(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """`request` sent as a patchy link delivers it (3,000 bytes at a time), and the answer
    read to the connection's end: (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        for at in range(0, len(request), 3000):
            try:
                sock.sendall(request[at:at + 3000])
            except OSError:  # answered and closed before the rest was sent
                break
            time.sleep(0.02)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), fields, body


@pytest.fixture(scope="module")
def server(dist):
    yield from threaded_server(create_app(dist))


def test_an_address_too_long_for_the_server_to_read_is_answered_as_its_api_error(server):
    """A GET whose address is over the server's 16 KiB of headers, arriving in several TCP
    segments (a long spaced question on patchy 4G; whole, it is the 414 above) was answered
    by uvicorn itself: "400 Invalid HTTP request received." in plain text, to an API client
    too. It is a 414 in the API's shape (a page address: an error page), headers too large a
    431."""
    port = server[1]
    question = b"%20".join([b"%E8%B5%A4%E9%9C%89%E7%97%85"] * 1000)
    status, fields, body = sent_in_pieces(port, b"GET /api/search?q=" + question
                                          + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert status == 414 and fields["content-type"] == "application/json"
    assert fields["cache-control"] == "private, no-cache"
    message = json.loads(body)["error"]["message"]
    assert json.loads(body) == {"error": {"status": 414, "message": message}}
    assert "16384 bytes" in message and "POST" in message
    status, fields, body = sent_in_pieces(port, b"GET /?q=" + question
                                          + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert status == 414 and fields["content-type"].startswith("text/html")
    assert b"16384" in body and b'<html lang="zh-CN">' in body
    status, fields, body = sent_in_pieces(port, b"GET /api/healthz HTTP/1.1\r\nHost: "
                                          b"127.0.0.1\r\nX-Log: " + b"a" * 20000
                                          + b"\r\n\r\n")
    assert status == 431 and json.loads(body)["error"]["status"] == 431
    status, fields, body = sent_in_pieces(port, b"GET /api/search?q=x HTTP/1.1\r\n"
                                          b"Host 127.0.0.1\r\n\r\n")  # no colon
    assert status == 400 and json.loads(body)["error"]["status"] == 400
    status, fields, _ = sent_in_pieces(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                       b"Connection: close\r\n\r\n")
    assert status == 200  # the next connection's request read as ever


def test_a_long_chinese_heading_path_meets_the_apis_own_bound(server):
    """`/api/read` with a heading path of ~900 Chinese characters (9 bytes each percent-
    encoded) was answered 414 for its query string before the API's own bound of 1,000
    characters could say what is wrong: through the real server (h11's bound on the head
    too), the API's bound is what a caller meets, in its JSON words."""
    from kbtools.agents.arguments import MAX_SECTION_CHARS

    port = server[1]

    def read(heading: str) -> tuple[int, dict]:
        query = f"doc={quote(SCAB)}&heading_path={quote(heading)}".encode()
        status, _, body = sent_in_pieces(port, b"GET /api/read?" + query + b" HTTP/1.1\r\n"
                                         b"Host: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return status, json.loads(body)

    status, body = read("病" * (MAX_SECTION_CHARS + 1))
    assert status == 400, body
    assert body["error"]["message"] == (f"heading_path: at most {MAX_SECTION_CHARS} characters, "
                                        f"not {MAX_SECTION_CHARS + 1}")
    status, body = read("\U00020000" * MAX_SECTION_CHARS)  # 12 bytes each: still read
    assert status == 404 and "heading_path" not in body["error"]["message"], body
