"""The search form of `kb serve` for a pasted log: a multi-line box, the question cut (and
said to be) past what any surface reads, a long question held under a key so its page is a
GET (POST → 303 → ``/?held=``), and refusals worded in the page's language (the JSON API's
messages unchanged)."""

from __future__ import annotations

import ast
import html as htmllib
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from kbfixtures import copy_example
from servefixtures import DOCS
from starlette.testclient import TestClient
from test_serve_pages import Elements, pasted_log, results_of

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve import i18n, ops, pages
from kbtools.serve.app import create_app
from kbtools.serve.held import Held, HeldQuestions
from kbtools.serve.staticfiles import static_url

pytestmark = pytest.mark.slow

FAULTS = "knowledge/equipment/hx260-ch05-fault-codes.md"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = copy_example(tmp_path_factory.mktemp("held") / "kr", DOCS)
    build(load_config(root), BuildOptions(progress=False))
    return root


@pytest.fixture
def client(repo):
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as c:
        yield c


def box_text(page: str) -> str:
    found = re.search(r'<textarea[^>]*name="q"[^>]*>(.*?)</textarea>', page, re.S)
    assert found, "no question box"
    return htmllib.unescape(found.group(1))


def test_the_box_keeps_a_pasted_logs_lines_and_cuts_nothing_silently(client):
    """An <input type=search maxlength=…> made a paste's lines spaces and cut it unsaid."""
    page = client.get("/").text
    box = next(a for t, a in Elements(page).tags if a.get("name") == "q")
    assert next(t for t, a in Elements(page).tags if a.get("name") == "q") == "textarea"
    assert "maxlength" not in box
    assert f'<script src="{static_url("search.js")}"></script>' in page
    script = client.get(static_url("search.js"))
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    csp = client.get("/").headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp


def test_a_pasted_log_longer_than_a_url_is_held_and_its_page_is_a_get(client):
    log = pasted_log()
    assert len(log) > 5000 and len(quote(log)) > 8192  # no GET could carry it
    moved = client.post("/?lang=zh", data={"q": log, "verified": "1"}, follow_redirects=False)
    assert moved.status_code == 303
    where = moved.headers["location"]
    assert re.fullmatch(r"/\?held=[A-Za-z0-9_-]{24}&lang=zh", where), where
    assert "E08" not in where
    page = client.get(where)
    assert page.status_code == 200 and box_text(page.text) == log  # its lines kept
    found = results_of(page.text)
    assert found and found[0]["doc"] == FAULTS
    assert 'name="verified" value="1" checked' in page.text
    again = client.get(where)  # Back, Forward and reload ask for it again
    assert [r["doc"] for r in results_of(again.text)] == [r["doc"] for r in found]
    switch = re.search(r'<a class="lang" href="([^"]+)"', page.text)
    assert switch  # the language switch is a link keeping the held question
    english = client.get(htmllib.unescape(switch.group(1)))
    client.cookies.clear()  # ?lang=en is remembered in a cookie
    assert '<button type="submit">Search</button>' in english.text
    assert box_text(english.text) == log
    assert [r["doc"] for r in results_of(english.text)] == [r["doc"] for r in found]


def test_a_paste_longer_than_any_surface_reads_is_cut_and_says_so(client):
    log = pasted_log()
    long = (log + "\n") * (ops.MAX_QUESTION_CHARS // len(log) + 2)
    assert len(long) > ops.MAX_QUESTION_CHARS
    page = client.post("/", data={"q": long})  # followed to its held page
    assert page.status_code == 200
    assert box_text(page.text) == long[:ops.MAX_QUESTION_CHARS]
    assert i18n.translator("zh")("paste_cut", chars=len(long), max=ops.MAX_QUESTION_CHARS) \
        in htmllib.unescape(page.text)
    assert results_of(page.text)
    assert "paste-cut" not in client.post("/", data={"q": log}).text


def test_a_held_question_no_longer_held_says_so(client):
    page = client.get("/?held=" + "A" * 24)
    assert page.status_code == 410
    assert i18n.WORDS["held_gone"][0] in htmllib.unescape(page.text) and box_text(page.text) == ""


def test_held_questions_expire_and_the_oldest_go_first():
    now = [0.0]
    held = HeldQuestions(seconds=60, max_chars=250, clock=lambda: now[0])
    first = held.put(Held((("q", "a" * 100),)))
    second = held.put(Held((("q", "b" * 100),)))
    assert held.get(first) and held.get(second) and first != second
    third = held.put(Held((("q", "c" * 100),)))  # past 250 characters: the oldest goes
    assert held.get(first) is None and held.get(second) and held.get(third)
    now[0] = 61.0
    assert held.get(second) is None and held.get(third) is None
    huge = held.put(Held((("q", "d" * 1000),)))  # larger than the bound alone: still kept
    assert held.get(huge) is not None


def test_a_refusal_on_a_chinese_page_is_said_in_chinese_and_the_api_keeps_english(client):
    """A Chinese page said 详细信息：'k' must be a whole number …. (Since session 44 the
    page searches with the nearest number it can show and says so beside the results:
    `test_serve_asked`.)"""
    page = client.get("/", params={"q": "E08", "k": "0"})
    note = re.search(r'<p class="k-note" role="status">(.*?)</p>', page.text, re.S)
    assert page.status_code == 200 and note
    assert note.group(1).startswith("结果条数（k）必须是")
    english = client.get("/", params={"q": "E08", "k": "0", "lang": "en"})
    client.cookies.clear()
    assert "must be a whole number" in english.text
    api = client.post("/api/search", json={"q": "E08", "k": 0}).json()
    assert api["error"]["message"].startswith("'k' must be a whole number")


def test_an_over_long_address_is_an_error_page_in_the_readers_language(client):
    """A GET too long for the server was answered "414: query string longer than …" as
    plain English text."""
    page = client.get("/", params={"q": "油" * 3000})
    assert page.status_code == 414 and page.headers["content-type"].startswith("text/html")
    assert '<html lang="zh-CN">' in page.text
    assert i18n.WORDS["error_414"][0] in page.text and "超过 8192 字节" in page.text
    switch = re.search(r'<a class="lang" href="([^"]+)"', page.text)
    assert switch and htmllib.unescape(switch.group(1)) == "/?lang=en"  # not the long query
    english = client.get("/doc/x", params={"q": "油" * 3000, "lang": "en"})
    assert '<html lang="en">' in english.text and "query string longer than" in english.text
    api = client.get("/api/search", params={"q": "油" * 3000})
    assert api.status_code == 414
    assert api.json()["error"]["message"] == "query string longer than 8192 bytes"


def test_every_refusal_a_page_can_meet_has_chinese_words():
    """Each ApiError raised by pages.py, or by an `ops` function pages.py calls, carries
    its Chinese (the third argument or ``zh=``)."""
    called = set(re.findall(r"\bops\.(\w+)\(", Path(pages.__file__).read_text("utf-8")))
    ops_tree = ast.parse(Path(ops.__file__).read_text("utf-8"))
    scopes = [f for f in ops_tree.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              and f.name in called]
    scopes.append(ast.parse(Path(pages.__file__).read_text("utf-8")))
    raised = [n for scope in scopes for n in ast.walk(scope) if isinstance(n, ast.Call)
              and isinstance(n.func, (ast.Name, ast.Attribute))
              and (getattr(n.func, "id", None) or getattr(n.func, "attr", None)) == "ApiError"]
    assert len(raised) >= 8
    bare = [ast.unparse(n)[:70] for n in raised
            if len(n.args) < 3 and not any(k.arg == "zh" for k in n.keywords)]
    assert bare == []
