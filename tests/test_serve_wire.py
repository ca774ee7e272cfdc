"""`kb serve` over a slow, lossy link (issue 13): what crosses the wire.

Pages, JSON, SVG and the app's stylesheet and script are sent gzip-compressed to a client
that accepts it (pictures, PDFs and tiny bodies never), with ``Vary: Accept-Encoding`` and
ETags that stay right (a reload is still a 304, a strong tag never names the compressed
bytes); the stylesheet and script are kept by the browser under versioned addresses; and a
client reading a big page slowly does not hold up anyone else's search. Over a real built
index (the real embedding model) with a document holding a long table in Chinese and
English."""

from __future__ import annotations

import gzip
import hashlib
import re
import socket
import struct
import time
from urllib.parse import quote

import httpx
import pytest
from kbfixtures import copy_example
from servefixtures import DOCS, app_client, git, threaded_server
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.app import create_app
from kbtools.serve.compress import accepts_gzip
from kbtools.serve.staticfiles import STATIC

pytestmark = pytest.mark.slow

BASE = "http://127.0.0.1"
BIG = "knowledge/equipment/fault-log-big.md"
ROWS = 400
TOKEN = "s3cret-token-" + "x" * 20
GZIP = {"accept-encoding": "gzip, deflate"}
PLAIN = {"accept-encoding": "identity"}


def big_document(rows: int) -> str:
    """A long table of fault codes, each row Chinese and English (a log a site keeps)."""
    lines = ["---", "title: HX-260 故障记录 Fault log", "category: equipment-maintenance",
             "source: 测试生成 generated", "author: 测试员", 'timestamp: "2026-02-01T08:00:00+08:00"',
             "verified: false", "lang: zh", "equipment: [HX-260 注塑机]", "---", "",
             "# 故障记录 Fault log", "", "| 编号 | 故障码 | 现象 Symptom | 处理 Action |", "|---|---|---|---|"]
    for n in range(rows):
        lines.append(f"| {n + 1} | E{n % 60:02d} | 液压油温过高 oil temperature high, 第 {n} 次 "
                     f"| 开大冷却水阀，清洗冷却器 open the cooling water valve, clean cooler {n} |")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = copy_example(tmp_path_factory.mktemp("wire") / "kr", DOCS)
    (root / BIG).parent.mkdir(parents=True, exist_ok=True)
    (root / BIG).write_text(big_document(ROWS), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "big")
    build(load_config(root), BuildOptions(progress=False))
    return root


@pytest.fixture(scope="module")
def client(repo):
    yield from app_client(repo / "dist", BASE)


def versioned(name: str) -> str:
    """The address the pages link the static file `name` by (its version's)."""
    return f"/static/{name}?v={STATIC[name][1]}"


def raw(client: TestClient, path: str, headers: dict[str, str], method: str = "GET"
        ) -> tuple[httpx.Response, bytes]:
    """The response and its body as sent on the wire (not decoded)."""
    with client.stream(method, path, headers=headers, follow_redirects=False) as r:
        return r, b"".join(r.iter_raw())


def test_a_big_page_is_sent_compressed_to_a_client_that_takes_gzip(client):
    plain, plain_body = raw(client, f"/doc/{quote(BIG)}", PLAIN)
    packed, packed_body = raw(client, f"/doc/{quote(BIG)}", GZIP)
    assert plain.status_code == packed.status_code == 200
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert int(packed.headers["content-length"]) == len(packed_body)
    assert gzip.decompress(packed_body) == plain_body  # the same page
    assert len(packed_body) < len(plain_body) / 4, (len(packed_body), len(plain_body))
    for r in (plain, packed):  # a cache keeps the two apart
        assert "accept-encoding" in r.headers["vary"].lower()
    # the security headers are still on the compressed page
    assert packed.headers["content-security-policy"].startswith("default-src 'none'")


@pytest.mark.parametrize("accept", ["gzip;q=0", "identity", "br", "", "*;q=0, deflate"])
def test_a_client_that_refuses_gzip_gets_the_plain_body(client, accept):
    r, body = raw(client, f"/doc/{quote(BIG)}", {"accept-encoding": accept})
    assert r.status_code == 200 and "content-encoding" not in r.headers
    assert body.startswith(b"<!doctype html>")


def test_accept_encoding_is_read_with_its_qualities():
    assert accepts_gzip("gzip") and accepts_gzip("deflate, GZIP;q=0.5") and accepts_gzip("*")
    assert accepts_gzip("x-gzip") and accepts_gzip("br;q=1, *;q=0.1")
    assert not accepts_gzip("gzip;q=0") and not accepts_gzip("*, gzip;q=0")
    assert not accepts_gzip("") and not accepts_gzip("br, deflate")
    assert not accepts_gzip("gzip;q=zero") and not accepts_gzip("gzip ; q=0.000")


def test_json_svg_css_and_js_are_compressed_pictures_and_tiny_bodies_are_not(client, repo):
    search, search_body = raw(client, "/api/search?q=" + quote("液压油温过高怎么处理") + "&k=20",
                              GZIP)
    assert search.headers["content-encoding"] == "gzip"
    assert gzip.decompress(search_body).startswith(b"{")
    api, _ = raw(client, "/api/openapi.json", GZIP)
    assert api.headers["content-encoding"] == "gzip"
    for name in ("style.css", "search.js"):
        r, body = raw(client, f"/static/{name}", GZIP)
        assert r.headers["content-encoding"] == "gzip"
        assert gzip.decompress(body) == STATIC[name][0]
    formulas = sorted((repo / "dist" / "data" / "formulas").glob("*.svg"),
                      key=lambda p: p.stat().st_size)
    big_svg = formulas[-1]
    assert big_svg.stat().st_size >= 1024  # one worth compressing
    svg, svg_body = raw(client, f"/formulas/{big_svg.name}", GZIP)
    assert svg.headers["content-encoding"] == "gzip"
    assert gzip.decompress(svg_body) == big_svg.read_bytes()
    # a photo (already compressed) as it is on disk
    photo = next((repo / "dist" / "data" / "source").rglob("*.png"))
    rel = photo.relative_to(repo / "dist" / "data" / "source").as_posix()
    pic, pic_body = raw(client, f"/asset/{rel}", GZIP)
    assert pic.status_code == 200 and "content-encoding" not in pic.headers
    assert pic_body == photo.read_bytes()
    # a tiny body is not worth gzip's header
    health, health_body = raw(client, "/api/healthz", GZIP)
    assert health.status_code == 200 and "content-encoding" not in health.headers
    assert health_body.startswith(b"{")


def test_a_reload_still_gets_a_304_and_a_strong_tag_names_one_byte_stream(client):
    for path in ("/static/style.css", versioned("style.css")):
        plain, _ = raw(client, path, PLAIN)
        packed, _ = raw(client, path, GZIP)
        # the plain body keeps the strong tag; the gzipped one is weak (other bytes)
        assert not plain.headers["etag"].startswith("W/")
        assert packed.headers["etag"] == "W/" + plain.headers["etag"]
        again, body = raw(client, path, {**GZIP, "if-none-match": packed.headers["etag"]})
        assert again.status_code == 304 and body == b""
        assert again.headers["etag"] == packed.headers["etag"]
        assert "accept-encoding" in again.headers["vary"].lower()
        head, _ = raw(client, path, GZIP, method="HEAD")
        assert head.headers["etag"] == packed.headers["etag"]


def test_a_results_page_reloaded_compressed_is_a_304_and_not_logged_again(client):
    path = "/?q=" + quote("oil temperature high 液压油温过高")
    first, body = raw(client, path, GZIP)
    assert first.status_code == 200 and first.headers["content-encoding"] == "gzip"
    assert b"<h1" in gzip.decompress(body)
    again, again_body = raw(client, path, {**GZIP, "if-none-match": first.headers["etag"]})
    assert again.status_code == 304 and again_body == b""


@pytest.mark.parametrize("page", [f"/doc/{quote(BIG)}", f"/doc/{quote(DOCS[0])}?lines=20-30",
                                  "/release", "/", f"/table/{quote(DOCS[0])}"])
def test_a_page_reloaded_unchanged_is_a_304_not_the_page_again(client, page):
    """A document, a decision table, the release page, the search form: a reload (pages are
    ``no-cache``: the browser asks) sent the whole page again, ~45 KB compressed for the
    big table over a slow link; now its ETag, and a 304 while the page is the same."""
    path = page + ("&" if "?" in page else "?") + "lang=zh"
    first, body = raw(client, path, GZIP)
    assert first.status_code == 200 and first.headers["etag"].startswith('W/"')
    again, again_body = raw(client, path, {**GZIP, "if-none-match": first.headers["etag"]})
    assert again.status_code == 304 and again_body == b""
    assert again.headers["etag"] == first.headers["etag"]
    assert again.headers["cache-control"] == "private, no-cache"
    # a plain client gets the strong form, which revalidates as well
    plain, _ = raw(client, path, PLAIN)
    assert plain.headers["etag"] == first.headers["etag"].removeprefix("W/")
    assert raw(client, path, {**PLAIN, "if-none-match": plain.headers["etag"]})[0].status_code \
        == 304
    # another page (another language, other cited lines) is another tag: sent whole
    other = path.replace("lang=zh", "lang=en")
    changed, changed_body = raw(client, other, {**GZIP, "if-none-match": first.headers["etag"]})
    assert changed.status_code == 200 and gzip.decompress(changed_body).startswith(b"<!doctype")


def test_a_picture_reloaded_unchanged_is_a_304(client, repo):
    photo = next((repo / "dist" / "data" / "source").rglob("*.png"))
    rel = photo.relative_to(repo / "dist" / "data" / "source").as_posix()
    first = client.get(f"/asset/{rel}")
    assert first.status_code == 200 and first.content == photo.read_bytes()
    assert first.headers["cache-control"] == "no-cache"  # a new release may change it
    again = client.get(f"/asset/{rel}", headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    stale = client.get(f"/asset/{rel}", headers={"if-none-match": '"0123abcd"'})
    assert stale.status_code == 200 and stale.content == photo.read_bytes()


def test_a_range_request_gets_the_whole_page(client):
    """No response is served in parts: a Range header is ignored (200, the whole body, which
    decompresses to the whole page), never a 206 whose offsets name the compressed bytes."""
    whole, whole_body = raw(client, f"/doc/{quote(BIG)}", PLAIN)
    r, body = raw(client, f"/doc/{quote(BIG)}", {**GZIP, "range": "bytes=0-99"})
    assert r.status_code == 200 and "content-range" not in r.headers
    assert gzip.decompress(body) == whole_body


def test_no_compressed_body_holds_the_token(repo):
    """BREACH: a compressed body that reflected a client's input next to a secret would
    leak the secret through its size. The token is the server's one secret: it is in no
    body, whatever a request puts in its address or cookie."""
    app = create_app(repo / "dist", token=TOKEN)
    auth = {**GZIP, "authorization": f"Bearer {TOKEN}"}
    with TestClient(app, base_url=BASE) as c:
        paths = ["/?q=" + quote(TOKEN[:8] + " 液压油温过高"), f"/doc/{quote(BIG)}?q={TOKEN[:6]}",
                 "/release", "/api/releases", "/api/search?q=" + quote(TOKEN[:10]),
                 f"/api/read?doc={quote(BIG)}&line_start=1&line_end=40", "/nope?x=" + TOKEN[:5],
                 "/?token=" + TOKEN[:-1]]
        for path in paths:
            for headers in (auth, {**GZIP, "cookie": f"kb_token={TOKEN}"}):
                r, body = raw(c, path, headers)
                text = gzip.decompress(body) if r.headers.get("content-encoding") else body
                assert TOKEN.encode() not in text, path
        # the redirect that sets the token's cookie has no body to compress
        r, body = raw(c, "/?token=" + TOKEN, GZIP)
        assert r.status_code == 303 and body == b"" and "content-encoding" not in r.headers


# --------------------------------------------------------------- static files' caching

def test_pages_link_the_stylesheet_and_script_by_version_kept_for_a_year(client):
    page = client.get("/", params={"q": "液压油温过高"}).text
    links = set(re.findall(r'(?:href|src)="(/static/[^"]+)"', page))
    assert links == {versioned("style.css"), versioned("search.js")}
    for link in links:
        r = client.get(link.replace("&amp;", "&"))
        assert r.status_code == 200
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
        name = link.split("/")[2].split("?")[0]
        assert link.endswith("?v=" + hashlib.sha256(r.content).hexdigest()[:32])
        assert r.content == STATIC[name][0]
    # an address naming another version (an older kbtools' page) gets this one, not kept
    for path in ("/static/style.css", "/static/style.css?v=0123456789abcdef"):
        assert client.get(path).headers["cache-control"] == "no-cache"


# ------------------------------------------------------------------ a slow reader

@pytest.fixture(scope="module")
def server(repo):
    yield from threaded_server(create_app(repo / "dist"))


def test_a_slow_reader_does_not_hold_up_other_searches(server):
    """A tablet on a bad link reads big pages a little at a time (pipelined: megabytes,
    more than the kernel's buffers hold, so the server's sending waits on it): meanwhile
    other clients' searches are answered, not held behind it (each page was rendered and
    its worker and release given back before it was sent; a send waits only for its own
    client)."""
    _, port = server
    url = f"{BASE}:{port}/api/search"
    question = "液压油温过高 oil temperature"
    httpx.get(url, params={"q": question}, timeout=120).raise_for_status()  # models loaded
    pages = 40
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect(("127.0.0.1", port))
    slow.settimeout(60)
    ask = f"GET /doc/{quote(BIG)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n"
    slow.sendall((ask + "\r\n").encode() * (pages - 1) + (ask + "Connection: close\r\n\r\n")
                 .encode())
    got = slow.recv(1024)
    assert got.startswith(b"HTTP/1.1 200")
    length = int(re.search(rb"content-length: (\d+)", got, re.I).group(1))
    took = []
    for n in range(6):
        got += slow.recv(1024)  # a trickle: the pages are far from read
        t0 = time.monotonic()
        r = httpx.get(url, params={"q": f"{question} {n}", "k": "3"}, timeout=120)
        took.append(time.monotonic() - t0)
        assert r.status_code == 200 and r.json()["results"]
        time.sleep(0.3)
    # blocked behind the slow reader, a search would wait until it read everything (never,
    # here): a bound far above a search's time under load, not a speed target
    assert max(took) < 30.0, took
    assert len(got) < length  # still reading the first page while the searches were answered
    while part := slow.recv(1 << 20):
        got += part
    slow.close()
    assert got.count(b"HTTP/1.1 200") == pages and got.rstrip().endswith(b"</html>")


def test_a_client_gone_mid_response_leaves_nothing_held(server):
    """A tablet losing its link in the middle of big pages (the connection reset, megabytes
    still to send): its connection and request tasks are let go, and the next search is
    answered."""
    srv, port = server
    for gzipped in (False, True):
        gone = socket.socket()
        gone.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        gone.connect(("127.0.0.1", port))
        gone.sendall(f"GET /doc/{quote(BIG)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: "
                     f"{'gzip' if gzipped else 'identity'}\r\n\r\n".encode() * 40)
        assert gone.recv(1024).startswith(b"HTTP/1.1 200")
        gone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        gone.close()  # a reset, not a polite close
        deadline = time.monotonic() + 30
        while srv.server_state.connections or srv.server_state.tasks:
            assert time.monotonic() < deadline, "the server still holds a client that left"
            time.sleep(0.05)
        r = httpx.get(f"{BASE}:{port}/api/search", params={"q": "液压油温过高"}, timeout=60)
        assert r.status_code == 200 and r.json()["results"]


def test_sizes_on_the_wire(client):
    """The figures of docs/serve.md's table come from `benchmarks/bench_wire.py`; here the
    ratio it relies on, for the big table's page, a results page and a search's JSON."""
    for path in (f"/doc/{quote(BIG)}", "/?q=" + quote("液压油温过高"),
                 "/api/search?q=" + quote("oil temperature high") + "&k=20"):
        _, plain = raw(client, path, PLAIN)
        _, packed = raw(client, path, GZIP)
        assert len(packed) < len(plain) / 3, (path, len(packed), len(plain))

