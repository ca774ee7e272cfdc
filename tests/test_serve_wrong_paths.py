"""A document address typed by hand (a citation's path without ``.md``, a folder, a
citation with its lines) on `kb serve`: a path that names a Markdown document without its
``.md`` opens that document (its table form too), any other refused path is said in the
page's language with the English below, and the JSON API says its errors in the language
the request's ``Accept-Language`` prefers (Chinese words with the English kept as
``message_en``), a program naming none getting the English it always got."""

from __future__ import annotations

import html
import re
from urllib.parse import unquote

import pytest
from starlette.testclient import TestClient

from kbtools.serve import i18n
from kbtools.serve.app import create_app

SCAB = "knowledge/crops/wheat-scab"
ZH = {"accept-language": "zh-CN,zh;q=0.9,en;q=0.8"}


@pytest.fixture(scope="module")
def client(example_index):
    with TestClient(create_app(example_index), base_url="http://127.0.0.1") as c:
        yield c


def detail_of(page: str) -> tuple[str, str, str | None]:
    """The error page's detail, its language, and its English original (None: not shown)."""
    found = re.search(r'<p class="detail">.*?<span lang="([^"]+)">(.*?)</span>', page, re.S)
    original = re.search(r'<p class="detail original">.*?<span lang="en">(.*?)</span>', page,
                         re.S)
    assert found, page
    return (html.unescape(found.group(2)), found.group(1),
            html.unescape(original.group(1)) if original else None)


@pytest.mark.parametrize("kind", ["doc", "table"])
def test_a_document_named_without_md_opens_it(client, kind):
    """`/doc/knowledge/crops/wheat-scab` (the path a citation shows, typed without ``.md``)
    was a 400 in English on a Chinese page; it is the document's page, its cited lines and
    language kept."""
    asked = {"lines": "10-20", "lang": "zh"} if kind == "doc" else {"table": "1", "lang": "zh"}
    moved = client.get(f"/{kind}/{SCAB}", params=asked, follow_redirects=False)
    assert moved.status_code == 307
    assert moved.headers["location"].startswith(f"/{kind}/{SCAB}.md?")
    page = client.get(f"/{kind}/{SCAB}", params=asked)
    assert page.status_code == 200 and '<html lang="zh-CN">' in page.text
    assert str(page.url).split("?")[0].endswith(f"/{kind}/{SCAB}.md")
    if kind == "doc":
        assert 'id="cited"' in page.text
    # the folder-relative form a knowledge folder allows too; a name no document has is not
    # redirected anywhere (not found, in the page's language)
    assert client.get("/doc/crops/wheat-scab", follow_redirects=False).status_code == 307
    gone = client.get("/doc/knowledge/crops/no-such-page", params={"lang": "zh"})
    assert gone.status_code == 400 and detail_of(gone.text)[1] == "zh-CN"


@pytest.mark.parametrize("path, key", [
    ("knowledge/crops", "doc_not_markdown"),
    ("knowledge/crops/wheat-scab.txt", "doc_not_markdown"),
    ("knowledge/crops/wheat-scab.md § 3. 风险", "doc_path_cited"),
    ("", "doc_path_empty"),
])
def test_a_refused_document_path_is_said_in_the_pages_language(client, path, key):
    zh = client.get(f"/doc/{path}", params={"lang": "zh"})
    assert zh.status_code == 400 and '<html lang="zh-CN">' in zh.text
    detail, lang, original = detail_of(zh.text)
    assert lang == "zh-CN" and detail.startswith(i18n.ERRORS[key].split("{")[0][:4])
    assert re.search(r"[\u4e00-\u9fff]", detail) and path.split(" §")[0] in detail
    assert original is not None and original.startswith(("refused document path", "document path"))
    en = client.get(f"/doc/{path}", params={"lang": "en"})
    detail, lang, original = detail_of(en.text)
    assert lang == "en" and original is None and detail.startswith(("refused document path", "document path"))


@pytest.mark.parametrize("url, status, words", [
    (f"/api/read?doc={SCAB}", 400, "只能阅读 Markdown 文档"),
    ("/api/read?doc=knowledge/crops/none.md", 404, "本发布版本中没有这个文档"),
    ("/api/no-such-endpoint", 404, "没有这个 API 接口"),
    ("/api/search?q=x&where=colour=red", 400, "没有“colour”这个筛选项"),
    ("/api/search?q=x&k=abc", 400, "结果条数"),
    ("/api/search?q=x&k=0", 400, "结果条数"),
    ("/api/search?q=", 400, "问题（q）是空的"),  # it answered 200 with nothing found
    ("/api/search?q=%20%E3%80%80&k=3", 400, "问题（q）是空的"),
    ("/api/search?query=%0A", 400, "问题（query）是空的"),
])
def test_api_errors_follow_the_language_the_request_asks(client, url, status, words):
    zh = client.get(url, headers=ZH)
    error = zh.json()["error"]
    assert zh.status_code == error["status"] == status
    assert words in error["message"] and re.fullmatch(r"[ -~]+", error["message_en"])
    for headers in ({}, {"accept-language": "en-US,en;q=0.9"}):  # a program, an English client
        en = client.get(url, headers=headers).json()["error"]
        assert set(en) == {"status", "message"} and en["message"] == error["message_en"]


@pytest.mark.parametrize("url", ["/api/search?q=小麦赤霉病", f"/api/read?doc={SCAB}.md",
                                 "/api/releases", "/api/healthz", f"/api/read?doc={SCAB}",
                                 "/api/no-such-endpoint"])
def test_api_answers_are_never_kept_by_a_cache(client, url):
    """An API answer is of the release served now (a sync switches it without a restart):
    it had no Cache-Control, so a browser or a proxy between could keep a search, a read or
    the releases across a switch; an error, whose words follow Accept-Language, did not say
    it varies by that header."""
    answer = client.get(url, headers=ZH)
    assert answer.headers["cache-control"] == "private, no-cache"
    if answer.status_code >= 400:
        assert "Accept-Language" in answer.headers["vary"]


def test_a_citation_pasted_as_the_address_opens_its_lines(client):
    """`kb query` prints `knowledge/crops/wheat-scab.md:60-62 § …`; pasted after `/doc/` it
    was refused as a path; it is the document's page at those lines."""
    moved = client.get(f"/doc/{SCAB}.md:60-62", params={"lang": "zh"}, follow_redirects=False)
    assert moved.status_code == 307
    assert moved.headers["location"] == f"/doc/{SCAB}.md?lines=60-62&lang=zh#cited"
    page = client.get(f"/doc/{SCAB}.md:60-62 § 3. 风险", params={"lang": "zh"})
    assert page.status_code == 200 and 'id="cited"' in page.text


@pytest.mark.parametrize("pasted", [
    f"{SCAB}.md:65-73 § 3.2 风险等级判定表",  # as `kb query`, MCP and the results cite it
    f" {SCAB}.md:65-73 § 3.2 风险等级判定表 @ 3f2a9c1d0b7e\n",  # with its release, a newline
    f"{SCAB}.md › 3. 发病风险判定 › 3.2 风险等级判定表 (lines 65–73)",  # as `kb query` shows it
    "crops/wheat-scab.md：６５－７３",  # typed on a Chinese keyboard, from the knowledge folder
])
@pytest.mark.parametrize("how", ["get", "post"])
def test_a_citation_pasted_into_the_search_box_opens_its_lines(client, pasted, how):
    """A citation shared in a chat and pasted into the search box was searched as words:
    the page said "no answer" and "not in the knowledge: wheat-scab.md". It opens the
    document at the cited lines, in the language asked; a question that names a document,
    or a citation of none in the release, is searched."""
    fields = {"q": pasted, "lang": "en"}
    sent = client.get("/", params=fields) if how == "get" else client.post("/", data=fields)
    client.cookies.clear()  # the language asked is remembered: not for the other tests
    assert sent.status_code == 200 and str(sent.url).endswith(
        f"/doc/{SCAB}.md?lines=65-73&lang=en#cited"), sent.url
    assert 'id="cited"' in sent.text and '<html lang="en"' in sent.text
    for searched in (f"{SCAB}.md 赤霉病怎么防治", "knowledge/crops/no-such.md:65-73"):
        page = client.get("/", params={"q": searched}, follow_redirects=False)
        assert page.status_code == 200 and 'class="results"' in page.text


@pytest.mark.parametrize("path, lines", [(f"{SCAB}.md", "22-20"), (f"{SCAB}.md:22-20", None)])
def test_a_range_written_backwards_cites_its_lines(client, path, lines):
    """``?lines=22-20`` (a citation's numbers typed from its end) answered "the lines are
    not in this document" and marked nothing, a pasted citation ``x.md:22-20`` too: they
    are lines 20-22, marked as a link to ``20-22`` marks them."""
    asked = client.get(f"/doc/{path}", params={"lines": lines} if lines else {})
    forward = client.get(f"/doc/{SCAB}.md", params={"lines": "20-22"})
    assert asked.status_code == forward.status_code == 200
    marked = re.findall(r'data-lines="(\d+-\d+)"[^>]* class="cited"', asked.text)
    assert marked and marked == re.findall(r'data-lines="(\d+-\d+)"[^>]* class="cited"',
                                           forward.text)
    assert "第 20–22 行" in asked.text and "不在本文档中" not in asked.text


@pytest.mark.parametrize("k", ["", "%20", "%E3%80%80", "%20%20%09"])
def test_a_blank_k_is_the_default_number_of_results(client, k):
    """``k=%20`` was a 400 ("'k' must be a whole number") where ``k=`` was the default and
    a search page reads a blank ``k`` as the default: a blank ``k``, by GET or POST, gives
    the default number of results, as leaving it out does."""
    left_out = client.get("/api/search?q=小麦赤霉病").json()
    blank = client.get(f"/api/search?q=小麦赤霉病&k={k}")
    assert blank.status_code == 200, blank.text
    assert blank.json()["results"] == left_out["results"]
    posted = client.post("/api/search", json={"query": "小麦赤霉病", "k": unquote(k)})
    assert posted.status_code == 200 and posted.json()["results"] == left_out["results"]


@pytest.mark.parametrize("asked", ["knowledge/wheat-scab.md", "knowledge/Wheat-Scab.md",
                                   "knowledge/wheat-scab", "knowledge/wheat-scab.md:10-12"])
def test_a_whole_path_no_release_tells_of_never_opens_another_document(client, asked):
    """A release served with no earlier one kept (a repository's dist/, no device):
    `knowledge/wheat-scab.md` may be the path of a document since removed (its bookmark,
    its citation), and it opened `knowledge/crops/wheat-scab.md`, another document that
    shares its file name. It is a 404 listing that one; a file name or a path shortened
    below the knowledge folder, which no document ever had, still opens it."""
    got = client.get(f"/doc/{asked}", params={"lang": "en"})  # a citation: its path's page
    assert got.status_code in (400, 404) and "/crops/" not in str(got.url), got.url
    listed = re.search(r'<ul class="suggestions">(.*?)</ul>', got.text, re.S)
    assert listed and f'href="/doc/{SCAB}.md' in listed.group(1), got.text
    for short in ("wheat-scab.md", "crops/wheat-scab.md", "Wheat-Scab"):
        opened = client.get(f"/doc/{short}")
        assert opened.status_code == 200 and 'class="suggestions"' not in opened.text, short
