"""`kb serve`'s JSON API over a real built index: releases, health, the OpenAPI document,
security (hosts, tokens, origins, binding, release files), pages' errors and the served
release's life (warm-up, rebuilds, locks); search is `test_serve_api_search.py`, read and
tables `test_serve_api_read.py`."""

from __future__ import annotations

import gc
import json
import re
import subprocess
import threading

import pytest
from servefixtures import (
    error_of,
    served_client,  # noqa: F401 - the `client` fixture
    served_repo,  # noqa: F401 - the `repo` fixture
)
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.app import check_bind, create_app, read_token
from kbtools.serve.openapi import openapi_document
from kbtools.serve.source import ServedIndex
from kbtools.serve.staticfiles import static_url

pytestmark = pytest.mark.slow

BASE = "http://127.0.0.1"
SCAB = "knowledge/crops/wheat-scab.md"


def test_an_index_named_by_a_string_is_served(repo):
    """Library callers pass a path's name as often as a Path: every request was a 500
    (`str / str` deep in the index's layout)."""
    with TestClient(create_app(str(repo / "dist")), base_url=BASE) as c:
        assert c.get("/").status_code == 200
        assert c.get("/api/search", params={"q": "赤霉病"}).json()["results"]


def test_releases_healthz_and_openapi(client):
    rel = client.get("/api/releases").json()
    assert rel["device"] is False and rel["releases"] == []
    assert rel["served"]["documents"] == 8 and rel["served"]["chunks"] > 0
    health = client.get("/api/healthz").json()
    assert health["status"] == "ok" and health["release"]["source_commit"]
    spec = client.get("/api/openapi.json").json()
    assert spec == json.loads(json.dumps(openapi_document()))
    assert {"/api/search", "/api/read", "/api/table/evaluate", "/api/releases",
            "/api/healthz"} <= set(spec["paths"])


def test_diff_needs_a_device_and_a_tag(client):
    assert "not serving a device" in error_of(client.get("/api/diff"), 404)


def test_unknown_endpoints_and_methods(client):
    assert "no API endpoint" in error_of(client.get("/api/nothing"), 404)
    assert client.get("/api/table/evaluate").status_code == 405
    assert client.delete("/api/search").status_code == 405


def test_no_index_is_a_503_with_one_line(tmp_path):
    with TestClient(create_app(tmp_path / "none"), base_url=BASE) as c:
        assert "no index here" in error_of(c.get("/api/healthz"), 503)
        assert "no index here" in error_of(c.get("/api/search", params={"q": "x"}), 503)


def test_every_response_forbids_external_origins(client):
    for url in ("/api/healthz", "/", f"/doc/{SCAB}", "/api/nothing"):
        resp = client.get(url)
        csp = resp.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "http" not in csp and "*" not in csp
        assert resp.headers["x-content-type-options"] == "nosniff"


def test_hostile_field_report_is_escaped_in_json_and_pages(client):
    body = client.get("/api/search", params={"q": "诱捕器 K-77 夜蛾", "k": 3}).json()
    hit = next(r for r in body["results"] if "k77" in r["doc"])
    # chunk text is what a reader sees: a script element is no text; the rest stays data in
    # JSON (application/json, nosniff), the picture's hostile attribute included
    assert "<script>" not in hit["text"] and "alert('xss')" not in hit["text"]
    assert 'onerror="alert(2)"' in hit["text"]
    page = client.get("/", params={"q": "诱捕器 K-77 夜蛾"}).text
    doc = client.get(f"/doc/{hit['doc']}").text
    for html in (page, doc):
        html = html.replace(f'<script src="{static_url("search.js")}"></script>', "")  # the box's
        assert "<script" not in html and not re.search(r"<[a-z]+[^>]*\bonerror", html)
        assert 'href="javascript:' not in html
        assert "&lt;script&gt;alert(" in html


def test_host_header_must_be_a_loopback_name(client):
    resp = client.get("/api/healthz", headers={"host": "evil.example"})
    assert resp.status_code == 421


def test_token_required_when_configured(repo, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-token-0123456789\n")
    token = read_token(token_file)
    app = create_app(repo / "dist", token=token, allowed_hosts=("*",))
    with TestClient(app, base_url="http://10.0.0.5") as c:
        assert c.get("/api/healthz").status_code == 200  # open for health checks
        error_of(c.get("/api/search", params={"q": "赤霉病"}), 401)
        error_of(c.get("/api/search", params={"q": "赤霉病"},
                       headers={"authorization": "Bearer wrong-token-0123456789"}), 401)
        ok = c.get("/api/search", params={"q": "赤霉病"},
                   headers={"authorization": f"Bearer {token}"})
        assert ok.status_code == 200
        assert c.get("/").status_code == 401
        first = c.get("/?token=" + token, follow_redirects=False)
        assert first.status_code == 303 and first.headers["location"] == "/"
        assert c.get("/").status_code == 200  # the cookie now carries it


def test_bind_rules(tmp_path):
    assert "127.0.0.1" in check_bind("127.0.0.1", None, False)
    assert check_bind("0.0.0.0", "t" * 20, False) == ("*",)
    assert check_bind("0.0.0.0", None, True) == ("*",)
    with pytest.raises(Exception, match="without a token"):
        check_bind("0.0.0.0", None, False)
    bad = tmp_path / "bad"
    bad.write_text("short")
    with pytest.raises(Exception, match="token file"):
        read_token(bad)


def test_release_files_refuse_traversal_and_other_types(client, repo):
    photo = client.get("/asset/assets/images/wheat-scab-ear.png")
    assert photo.status_code == 200 and photo.headers["content-type"] == "image/png"
    for url in ("/asset/../manifest.json", "/asset/assets/../../manifest.json",
                "/asset/%2e%2e/%2e%2e/manifest.json", "/asset/knowledge/crops/wheat-scab.md",
                "/asset//etc/passwd.png", "/formulas/../manifest.json", "/formulas/abc.svg",
                "/asset/assets/images/none.png"):
        assert client.get(url).status_code == 404, url
    name = next((repo / "dist" / "data" / "formulas").glob("*.svg")).name
    svg = client.get(f"/formulas/{name}")
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    assert "sandbox" in svg.headers["content-security-policy"]
    assert b"<script" not in svg.content


def test_pages_answer_with_status_and_one_line(client):
    assert client.get("/doc/knowledge/crops/none.md").status_code == 404
    assert client.get("/doc/../../etc/passwd.md").status_code in (400, 404)
    assert client.get("/", params={"q": "x" * 8200}).status_code == 414
    table = client.get(f"/table/{SCAB}", params={"table": "1", "go": "1", "in.0": "22",
                                                 "in.1": "90", "in.2": "4"}).text
    assert 'class="outcome match"' in table and "极高" in table
    assert "22 满足" in table and " is " not in table.split('class="why"')[1]  # reasons in Chinese
    none = client.get(f"/table/{SCAB}", params={"table": "1", "go": "1", "in.0": "热",
                                                "in.1": "90", "in.2": "4"})
    assert none.status_code == 400 and 'class="error message"' in none.text
    assert "不是数" in none.text  # refused in the page's language
    english = client.get(f"/table/{SCAB}", params={"table": "1", "go": "1", "in.0": "热",
                                                   "in.1": "90", "in.2": "4", "lang": "en"})
    client.cookies.clear()  # ?lang=en is remembered in a cookie: the other tests read Chinese
    assert "is not a number" in english.text and "不是数" not in english.text
    assert client.get("/table/knowledge/crops/none.md").status_code == 404
    assert client.get("/release").status_code == 200
    facets = client.get("/", params={"q": "施药", "f.crop": "水稻", "verified": "1"}).text
    assert 'value="水稻" selected' in facets


def test_document_page_shows_review_status_and_cited_lines(client):
    html = client.get(f"/doc/{SCAB}", params={"lines": "60-62", "q": "风险"}).text
    assert 'id="cited"' in html and "li.ming@agri.example.org" in html
    assert '<span class="badge ok">已审核</span>' in html
    assert 'src="/asset/assets/images/wheat-scab-ear.png"' in html
    assert 'class="xref"' in html or 'href="/doc/knowledge/crops/field-survey-methods.md' in html
    english = client.get(f"/doc/{SCAB}", params={"lang": "en"})
    assert "Verified" in english.text and "kb_lang=en" in english.headers["set-cookie"]


def test_an_opened_release_is_warmed_up_and_settled(repo):
    """Opening a release asks one question and then keeps what it loaded out of the
    garbage collector's full passes (`kbtools.index.reader.settle`)."""
    from kbtools.serve.source import ServedIndex

    gc.unfreeze()
    served = ServedIndex(repo / "dist")
    try:
        served.get()
        assert gc.get_freeze_count() > 0
    finally:
        served.close()
        gc.unfreeze()


def test_a_build_directory_rebuilt_under_the_running_app_is_opened_anew(repo, tmp_path):
    """`kb serve --index dist` while `kb build` replaces dist/: searches once kept answering
    from the old index while the pages read the new sources."""
    import shutil

    from servefixtures import NEW_DOC

    from kbtools.agents.mcp_server import Context, tool_search
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config

    question, new = "条锈病 夏孢子堆 虚线状", "knowledge/crops/stripe-rust-note.md"
    root = shutil.copytree(repo, tmp_path / "kr", symlinks=True)
    mcp = Context(index=root / "dist", query_log=False)  # `kb mcp --index dist` follows it too
    with TestClient(create_app(root / "dist"), base_url=BASE) as c:
        before = c.post("/api/search", json={"query": question, "k": 3}).json()
        assert not any(r["doc"] == new for r in before["results"])
        assert not any(r["doc"] == new for r in tool_search(mcp, question, 3)["results"])
        (root / new).write_text(NEW_DOC, "utf-8")
        build(load_config(root), BuildOptions(progress=False))
        after = c.post("/api/search", json={"query": question, "k": 3}).json()
        assert after["results"][0]["doc"] == new, after
        assert c.get("/api/read", params={"doc": "crops/stripe-rust-note.md"}).status_code == 200
        assert tool_search(mcp, question, 3)["results"][0]["doc"] == new


def test_a_review_the_build_could_not_check_gets_no_verified_badge(repo, tmp_path):
    """Built outside Git, a declared review cannot be checked: every passage is served as
    unchecked, and the document page once showed the Verified badge all the same."""
    import shutil

    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config

    root = shutil.copytree(repo, tmp_path / "plain", symlinks=True,
                           ignore=shutil.ignore_patterns(".git", "dist"))
    build(load_config(root), BuildOptions(progress=False))
    with TestClient(create_app(root / "dist"), base_url=BASE) as c:
        html = c.get(f"/doc/{SCAB}").text
        assert "badge ok" not in html and '<span class="badge warn">未审核</span>' in html
        assert "built outside Git" in html  # the reason, with the lines it covers
        assert c.get("/api/read", params={"doc": SCAB}).json()["verified"] is False


def test_a_document_over_the_default_limit_is_served_when_the_build_allowed_it(tmp_path):
    """kb.toml `[check] max_bytes` above the 2 MB default: the build indexes the document,
    and the web app and the API read it too (they refused it at the default limit)."""
    root = tmp_path / "kr"
    (root / "knowledge").mkdir(parents=True)
    (root / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash" }\n\n'
                                  "[check]\nmax_bytes = 4194304\n", encoding="utf-8")
    front = ("---\ntitle: Pump fault log\ncategory: field-report\nsource: test\n"
             "author: t\ntimestamp: \"2026-03-01T10:00:00+08:00\"\nverified: false\n"
             "lang: en\nlocation: plant\nreported_at: \"2026-03-01T09:00:00+08:00\"\n---\n\n")
    paragraph = "The seal of pump P-7 leaked after the valve was reset. " * 40
    body = "".join(f"## Entry {i}\n\n{paragraph}\n\n" for i in range(1000))
    (root / "knowledge" / "log.md").write_text(front + body, encoding="utf-8")
    assert (root / "knowledge" / "log.md").stat().st_size > 2 * 1024 * 1024
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e.org",
                    "commit", "-qm", "big"], check=True)
    build(load_config(root), BuildOptions(progress=False))
    with TestClient(create_app(root / "dist"), base_url=BASE) as c:
        page = c.get("/doc/knowledge/log.md")
        assert page.status_code == 200, page.text[:300]
        assert "Entry 999" in page.text
        resp = c.get("/api/read", params={"doc": "knowledge/log.md", "heading_path": "Entry 999"})
        assert resp.status_code == 200, resp.text
        assert "pump P-7" in resp.json()["markdown"]


@pytest.mark.parametrize("path,ctype", [("/api/search", "application/json"),
                                        ("/", "application/x-www-form-urlencoded")])
def test_a_client_gone_before_its_body_is_no_internal_error(tmp_path, caplog, path, ctype):
    """A tablet whose connection drops while it sends a search (half a POST body, then the
    disconnect): each was logged as a failure with a traceback ("POST /api/search failed",
    an unhandled exception for the page form), filling a device's journal. It is a 400 that
    nobody reads, and nothing in the log."""
    import anyio

    app = create_app(tmp_path / "nothing-served")
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "client": ("127.0.0.1", 5000),
             "server": ("127.0.0.1", 8080),
             "headers": [(b"host", b"127.0.0.1:8080"), (b"content-type", ctype.encode()),
                         (b"content-length", b"100")]}
    incoming = [{"type": "http.request", "body": b'{"query": "pu', "more_body": True},
                {"type": "http.disconnect"}]
    sent: list[dict] = []

    async def receive():
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    caplog.set_level("DEBUG")
    anyio.run(app, scope, receive, send)
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 400
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")], \
        caplog.text[-2000:]


class HeldLock:
    """A release's search lock the test holds: a search that waits for it says so."""

    def __init__(self):
        self.lock = threading.Lock()
        self.lock.acquire()
        self.waiting = threading.Event()

    def __enter__(self):
        self.waiting.set()
        self.lock.acquire()

    def __exit__(self, *exc):
        self.lock.release()


def test_pages_and_health_never_wait_behind_searches(repo):
    """A search waiting for the release's search lock takes the (one) search worker, not
    the thread documents, tables, reads and the health check run on."""
    source = ServedIndex(repo / "dist")
    with TestClient(create_app(None, source=source), base_url=BASE) as c:
        held = HeldLock()
        source.get().search_lock = held  # type: ignore[assignment]
        found: dict = {}
        searching = threading.Thread(
            target=lambda: found.update(r=c.get("/api/search", params={"q": "赤霉病"})))
        searching.start()
        assert held.waiting.wait(60), "the search never reached the search lock"
        answered: dict = {}

        def others():
            for url in ("/api/healthz", f"/doc/{SCAB}", f"/api/read?doc={SCAB}",
                        f"/table/{SCAB}", "/release"):
                answered[url] = c.get(url).status_code
        reading = threading.Thread(target=others)
        reading.start()
        reading.join(60)  # a guard against a hang, not a measure: the search is still held
        while_searching = dict(answered)
        held.lock.release()
        reading.join(60)
        searching.join(60)
    assert while_searching == {url: 200 for url in answered} and len(answered) == 5
    assert found["r"].status_code == 200
