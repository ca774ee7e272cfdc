"""`kb serve`'s pages over a real built index: the decision-table button leads to that very
decision table, every cited passage is highlighted and anchored on its document's page,
same-document links in search results lead to the document, and the Chinese interface
says why there is no answer in Chinese."""

from __future__ import annotations

import ast
import html as htmllib
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from kbfixtures import PAGE, copy_example
from servefixtures import DOCS, app_client
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.corpus import parse_source
from kbtools.decision.documents import document_tables, list_tables
from kbtools.index.reader import open_index
from kbtools.query import search as search_module
from kbtools.serve import i18n, ops
from kbtools.serve.app import create_app

pytestmark = pytest.mark.slow

BASE = "http://127.0.0.1"
CORN = "knowledge/crops/corn-southern-rust.md"  # a plain table, then a decision table
FAULTS = "knowledge/equipment/hx260-ch05-fault-codes.md"  # tables, none a decision table
DEPLOY = "knowledge/engineering/deployment-guide.md"  # links to its own headings
ENGINEERING = [DEPLOY, "knowledge/engineering/pitfalls-log.md",  # and what it links to
               "knowledge/engineering/runbook-ingest-5xx.md"]
SCAB = "knowledge/crops/wheat-scab.md"


# A table's |---| line shows nothing (its header row is marked); a passage may end inside a
# table, so the whole table is not always marked.
DELIMITER_ROW = re.compile(r"^(?=.*\|)\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = copy_example(tmp_path_factory.mktemp("pages") / "kr", [*DOCS, CORN, *ENGINEERING])
    build(load_config(root), BuildOptions(progress=False))
    return root


@pytest.fixture(scope="module")
def client(repo):
    yield from app_client(repo / "dist", BASE)


class Elements(HTMLParser):
    """Every start tag as (tag, attributes)."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def results_of(page: str) -> list[dict[str, str | None]]:
    """Each search result: its kind, document, first line and decision-table button."""
    out = []
    for m in re.finditer(r'<article class="result kind-(\w+)" data-doc="([^"]+)" '
                         r'data-lines="(\d+)-\d+">(.*?)</article>', page, re.S):
        button = re.search(r'<a class="button small" href="([^"]+)">', m.group(4))
        out.append({"kind": m.group(1), "doc": htmllib.unescape(m.group(2)),
                    "line": m.group(3), "button": htmllib.unescape(button.group(1))
                    if button else None, "body": m.group(4)})
    return out


# --- 1. the decision-table button ----------------------------------------------------------

def test_decision_table_number_counts_decision_tables_only():
    text = ("# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
            "<!-- decision: inputs=x; outputs=y -->\n| x | y |\n|---|---|\n| <5 | low |\n")
    tables = document_tables(parse_source(text, Path("t.md"), "t.md"))
    assert ops.decision_table_at(tables, 3) is None  # the plain table (Markdown table 1)
    assert ops.decision_table_at(tables, 8) == ops.decision_table_at(tables, 10) == 1
    assert ops.decision_table_at(tables, 11) is None
    assert ops.first_decision_table(tables) == 1
    assert ops.first_decision_table(document_tables(
        parse_source("# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", Path("u.md"), "u.md"))) is None


@pytest.mark.parametrize("q", ["小麦赤霉病 温度 22 度 湿度 90% 怎么办", "玉米南方锈病 日均温 相对湿度 风险",
                               "南方锈病 普通锈病 孢子堆 颜色 区别", "HX260 故障码 E17 报警",
                               "农药 稀释 倍数 安全间隔期"])
def test_the_table_button_opens_the_results_own_decision_table(client, repo, q):
    results = results_of(client.get("/", params={"q": q, "k": 10}).text)
    tables = [r for r in results if r["kind"] in ("table", "table_row")]
    assert tables, q
    for r in results:
        spans = [t for t in list_tables(repo / r["doc"])
                 if t["line_start"] <= int(r["line"]) <= t["line_end"]]
        if r["kind"] not in ("table", "table_row") or not spans:
            assert r["button"] is None, r
            continue
        # the table, filled with the values an evaluation read from the question
        assert r["button"].split("&")[0] == f"/table/{quote(r['doc'])}?table={spans[0]['index']}"
        form = client.get(r["button"])
        assert form.status_code == 200, form.text
        shown = re.search(r'<table class="rules"[^>]*>\s*<thead><tr>(.*?)</tr>', form.text, re.S)
        assert shown and re.findall(r"<th[^>]*>(.*?)</th>", shown.group(1)) == \
            [htmllib.escape(h, quote=False) for h in spans[0]["inputs"] + spans[0]["outputs"]]


def test_corn_tables_plain_one_has_no_button_decision_one_is_table_1(client):
    q = "玉米南方锈病 日均温 相对湿度 风险 南方锈病 普通锈病 孢子堆 颜色"
    results = [r for r in results_of(client.get("/", params={"q": q, "k": 20}).text)
               if r["doc"] == CORN and r["kind"] in ("table", "table_row")]
    buttons = {int(r["line"]) >= 52: r["button"] for r in results}
    assert buttons == {False: None, True: f"/table/{quote(CORN)}?table=1"}


def test_the_document_page_offers_a_decision_table_only_when_it_has_one(client):
    assert "决策表" not in client.get(f"/doc/{FAULTS}").text
    for doc in (CORN, SCAB):
        page = client.get(f"/doc/{doc}").text
        assert f'<a class="button small" href="/table/{quote(doc)}?table=1">决策表</a>' in page
        assert client.get(f"/table/{quote(doc)}?table=1").status_code == 200


# --- 2. the cited passage on the document page ----------------------------------------------

SAFETY = "knowledge/crops/pesticide-operator-safety.md"
MARK = re.compile(r"<mark>(.*?)</mark>")


def test_a_document_page_marks_what_its_cited_lines_matched(client, repo):
    """The page a result links to marked every token of the question (用 and 药 all over the
    operator-safety page, which matched only 用): it marks the terms the cited chunk holds, as
    the result did, and a one-character term only in the cited lines."""
    q = "小麦赤霉病什么时候防治，用什么药"
    page = client.get(f"/doc/{SAFETY}", params={"lines": "42-47", "q": q}).text
    cited = "\n".join((repo / SAFETY).read_text(encoding="utf-8").split("\n")[41:47])
    marks = MARK.findall(page)
    assert marks and "药" not in marks  # in 施药 and 喷药 here: no term of these lines
    for mark in set(marks):
        assert len(mark) > 1 or marks.count(mark) <= cited.count(mark), (mark, marks)
    scab = client.get(f"/doc/{SCAB}", params={"lines": "20-22", "q": q}).text
    assert "赤霉病" in " ".join(MARK.findall(scab))
    for lines in ("1-2", "9000-9001"):  # lines no passage holds: what the document matched
        assert "赤霉病" in MARK.findall(client.get(f"/doc/{SCAB}", params={"lines": lines, "q": q}).text)


def test_a_link_to_lines_the_document_lacks_says_so(client):
    """`lines=abc` or lines past the end (a link made for an older version) showed the
    document without a citation and without a word: the page says the lines are not in it
    and that it shows the whole document (`5-3` is lines 3-5: test_serve_wrong_paths)."""
    for lines in ("abc", "9000-9001"):
        page = client.get(f"/doc/{SCAB}", params={"lines": lines}).text
        assert f"链接中的行号“{lines}”不在本文档中" in page, lines
        assert 'id="cited"' not in page
    page = client.get(f"/doc/{SCAB}", params={"lines": "<b>x</b>"}).text
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    cited = client.get(f"/doc/{SCAB}", params={"lines": "20-22"}).text
    assert 'id="cited"' in cited and "不在本文档中" not in cited
    assert "不在本文档中" not in client.get(f"/doc/{SCAB}").text


def test_every_passage_of_the_release_is_highlighted_and_anchored(client, repo):
    index = open_index(repo / "dist")
    checked = 0
    for doc in index.store.doc_names():
        lines = (repo / doc).read_text(encoding="utf-8").split("\n")
        for c in index.store.overlapping(doc, 1, len(lines)):
            a, b = c["line_start"], c["line_end"]
            page = client.get(f"/doc/{doc}", params={"lines": f"{a}-{b}"}).text
            tags = Elements(page).tags
            assert sum(1 for _, at in tags if at.get("id") == "cited") == 1, (doc, a, b)
            covered: set[int] = set()
            for _, at in tags:
                if "cited" in at.get("class", "").split() and at.get("data-lines"):
                    x, y = map(int, at["data-lines"].split("-"))
                    assert x <= b and y >= a, (doc, a, b, at)  # nothing outside is marked
                    covered |= set(range(x, y + 1))
            missed = [n for n in range(a, b + 1) if n not in covered and lines[n - 1].strip()
                      and not lines[n - 1].lstrip().startswith("<!--")  # not rendered
                      and not DELIMITER_ROW.match(lines[n - 1])]
            assert not missed, (doc, c["kind"], a, b, missed)
            checked += 1
    assert checked > 100


def test_the_last_item_of_a_list_is_cited(client):
    whole = client.get(f"/doc/{FAULTS}", params={"lines": "41-48"}).text
    items = re.findall(r'<li data-lines="(\d+)-\d+"( class="cited")?', whole)
    assert [n for n, cited in items if cited] == ["45", "46", "47", "48"]
    last = client.get(f"/doc/{FAULTS}", params={"lines": "48-48"}).text
    assert '<li data-lines="48-49" class="cited" id="cited">' in last


# --- 3. same-document links in search results -----------------------------------------------

def test_same_document_links_in_results_lead_to_the_document(client):
    page = client.get("/", params={"q": "apply database migrations fgctl db migrate production",
                                   "k": 10}).text
    deploy = [r for r in results_of(page) if r["doc"] == DEPLOY]
    assert any(f'href="/doc/{DEPLOY}#database-migrations"' in r["body"] for r in deploy)
    assert not any('href="#' in r["body"] for r in results_of(page))  # (the skip link is)
    own = client.get(f"/doc/{DEPLOY}").text  # on its own page the link stays in the page
    assert 'href="#database-migrations"' in own and 'id="database-migrations"' in own


# --- 4. no-answer reasons in the interface's language ----------------------------------------

def test_no_answer_reason_is_in_the_pages_language(client):
    q = "火星上种土豆的法律责任"
    zh = client.get("/", params={"q": q}).text
    assert re.search(r'<p class="no-answer"[^>]*>没有找到足够相关的内容</p>', zh)
    assert "relevance threshold" not in zh
    en = client.get("/", params={"q": q, "lang": "en"}).text
    assert re.search(r'<p class="no-answer"[^>]*>Nothing relevant enough was found</p>', en)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_no_answer_page_says_it_once_and_names_the_release_once(client, lang):
    """It said "Nothing relevant enough was found (no passage is relevant enough (below the
    relevance threshold))" and showed the release line above the results and in the footer."""
    page = client.get("/", params={"q": "recipe for cookies"},
                      headers={"accept-language": lang}).text
    [line] = re.findall(r'<p class="no-answer"[^>]*>(.*?)</p>', page)
    assert "(" not in line and "（" not in line
    assert page.count('<span class="tag">') == 1
    answered = client.get("/", params={"q": "apply database migrations fgctl db migrate"},
                          headers={"accept-language": lang}).text
    assert 'class="result' in answered and answered.count('<span class="tag">') == 1
    # a reason the words do not already say is still given
    assert i18n.no_answer_line(lang)("no chunk matches the filters").endswith(")")


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "Not in the knowledge: servo.overload_guard_ms. The results answer the rest of "
           "the question"),
    ("zh", "知识库中没有：servo.overload_guard_ms。以下结果回答的是问题的其余部分")])
def test_a_results_page_says_which_names_of_the_question_the_knowledge_lacks(client, lang,
                                                                           line):
    """A pasted log naming a known alarm and a setting no document holds was answered about
    the alarm, nothing saying the setting is not in the knowledge."""
    log = ("2026-03-18 14:05:11 [ALARM] E17 伺服过载 保压压力过高\n"
           "2026-03-18 14:05:11 [CFG] servo.overload_guard_ms=300 not applied\n"
           "2026-03-18 14:05:12 [INFO] cycle stopped\n")
    page = client.post("/", data={"q": log, "lang": lang}).text
    assert results_of(page)[0]["doc"] == FAULTS
    assert re.findall(r'<p class="not-in-knowledge">(.*?)</p>', page) == [line]
    plain = client.get("/", params={"q": "E17 伺服过载", "lang": lang})
    assert "not-in-knowledge" not in plain.text.split("<section", 1)[1]


def test_every_reason_the_search_gives_has_chinese_words():
    tree = ast.parse(Path(search_module.__file__).read_text(encoding="utf-8"))
    given: set[str] = set()
    for node in ast.walk(tree):
        values = [k.value for k in node.keywords if k.arg == "reason"] \
            if isinstance(node, ast.Call) else \
            [node.value] if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "reason" for t in node.targets) else []
        for value in values:
            for leaf in ast.walk(value):
                if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
                    given.add(leaf.value)
                elif isinstance(leaf, ast.Name) and leaf.id.isupper():
                    given.add(getattr(search_module, leaf.id))
    assert search_module.NO_ANSWER_REASON in given and len(given) >= 5
    assert given <= set(i18n.REASONS), given - set(i18n.REASONS)


@pytest.mark.parametrize(("question", "lang", "says"), [
    ("温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？", "en",
     ["Evaluated on the question", "Matching row: row 7", "风险等级</strong>: 极高"]),
    ("温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？", "zh", ["匹配行: 第 7 行"]),
    ("温度 18 度时小麦赤霉病风险等级", "en", ["Missing inputs: 相对湿度(%), 连续降雨天数"]),
    ("温度 72kPa、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？", "en",
     # a refused value said alone (its unit is wrong): no rule was tried (72°F is
     # converted since session 45)
     ["input 温度(℃)='72kPa': it is in 'kPa', the column in '°C'; give the value in °C"]),
])
def test_a_result_evaluated_on_the_question_says_what_the_table_decided(client, question,
                                                                         lang, says):
    """The search page showed an evaluated table as a bare table: a refused value (72kPa in a
    ℃ column) or missing inputs went unsaid, and a match showed no outputs."""
    page = htmllib.unescape(client.get("/", params={"q": question, "lang": lang}).text)
    block = page[page.index('class="evaluation'):]
    block = block[:block.index("</div>")]
    for words in says:
        assert words in block, (words, block)
    assert ("No rule matches" in block) == ("No rule matches" in "".join(says)), block


def pasted_log() -> str:
    """A controller log a technician pastes: ~5 KB of routine lines, Chinese and English,
    and the one alarm the knowledge explains."""
    routine = [f"2026-03-14 08:{i // 60:02d}:{i % 60:02d} 周期 {1000 + i} 注射完成 "
               f"cycle={1000 + i} pressure=82.{i % 10}bar 模温正常" for i in range(80)]
    routine.insert(60, "2026-03-14 08:00:45 报警 E08 液压油温过高 冷却水不足")
    return "\n".join(routine)


def test_an_error_page_is_in_the_pages_language_with_the_library_message_below(client):
    """A Chinese page said "no such document in the index: none.md" and nothing else."""
    client.cookies.clear()  # an earlier test's ?lang=en is remembered in a cookie
    zh = client.get("/doc/knowledge/crops/none.md")
    assert zh.status_code == 404 and '<html lang="zh-CN">' in zh.text
    assert f'<p class="message">{i18n.WORDS["error_404"][0]}</p>' in zh.text
    detail = re.search(r'<p class="detail">(.*?)</p>', zh.text)
    assert detail and "详细信息" in detail.group(1)
    assert 'lang="zh-CN">本发布版本中没有这个文档：knowledge/crops/none.md<' in detail.group(1)
    en = client.get("/doc/knowledge/crops/none.md", params={"lang": "en"})
    client.cookies.clear()  # ?lang=en is remembered in a cookie: the other tests read Chinese
    assert f'<p class="message">{i18n.WORDS["error_404"][1]}</p>' in en.text
    assert 'lang="en">no such document in the index: knowledge/crops/none.md<' in en.text
    table = client.get(f"/table/{SCAB}", params={"table": "99"})
    assert table.status_code == 400 and i18n.WORDS["error_400"][0] in table.text
    assert "no decision table 99" in table.text
    assert i18n.error_word(418) == "error_400" and i18n.error_word(502) == "error_500"


def _facet_fields(client) -> dict[str, str]:
    """The search form's filters as a browser sends them left at "any": empty."""
    fields = {a["name"]: "" for t, a in Elements(client.get("/").text).tags if t == "select"}
    assert len(fields) > 3
    return fields


def test_a_mistyped_page_address_is_an_error_page_in_the_readers_language(client):
    """/docs/… or a POST to a document answered "404: Not Found" as English plain text."""
    client.cookies.clear()
    for method, url, status in (("get", "/docs/knowledge/crops/wheat-scab.md", 404),
                                ("post", f"/doc/{SCAB}", 405)):
        page = getattr(client, method)(url)
        assert page.status_code == status and page.headers["content-type"].startswith("text/html")
        assert f'<p class="message">{i18n.WORDS[i18n.error_word(status)][0]}</p>' in page.text
    assert client.get("/nope", params={"lang": "en"}).text.count(i18n.WORDS["error_404"][1]) == 1
    client.cookies.clear()  # ?lang=en is remembered in a cookie: the other tests read Chinese
    assert set(client.post(f"/doc/{SCAB}").headers["allow"].split(", ")) == {"GET", "HEAD"}
    assert client.get("/api/nope").json()["error"]["message"] == "no API endpoint /api/nope"
    assert client.get("/static/nope.css").headers["content-type"].startswith("text/plain")


def test_a_searchs_link_keeps_only_the_filters_given(client):
    """The redirect after a search carried every empty filter (``&f.author=&f.category=…``,
    14 on the example knowledge)."""
    fields = _facet_fields(client)
    chosen = next(iter(fields))
    moved = client.post("/", data={"q": "赤霉病 防治", **fields, chosen: "x y"},
                        follow_redirects=False)
    assert moved.status_code == 303
    assert moved.headers["location"] == "/?" + urlencode([("q", "赤霉病 防治"), (chosen, "x y")])
    assert client.post("/", data=fields, follow_redirects=False).headers["location"] == "/"
    old = client.get("/?" + urlencode({"q": "赤霉病 防治", **fields}))  # an old link still works
    assert old.status_code == 200 and results_of(old.text)


def test_a_short_question_posted_in_english_stays_english(client):
    """POST /?lang=en was redirected to a link without ``lang``: the next page was Chinese."""
    client.cookies.clear()
    english = client.post("/?lang=en", data={"q": "wheat scab", **_facet_fields(client)},
                          follow_redirects=False)
    assert english.headers["location"] == "/?q=wheat+scab&lang=en"
    client.cookies.clear()  # no cookie: the language is the link's
    assert '<button type="submit">Search</button>' in client.get(english.headers["location"]).text
    client.cookies.clear()  # ?lang=en is remembered in a cookie: the other tests read Chinese
    asked = client.post("/?lang=en", data={"q": "wheat scab", "lang": "zh"}, follow_redirects=False)
    assert asked.headers["location"] == "/?q=wheat+scab&lang=zh"  # the form's own choice wins


@pytest.mark.parametrize("body, headers, status", [
    ("q=" + "%E6%B2%B9" * 60_000, {"content-type": "application/x-www-form-urlencoded"}, 413),
    ('{"q": "E08"}', {"content-type": "application/json"}, 415),
    (b"q=\xff\xfe", {"content-type": "application/x-www-form-urlencoded"}, 400),
])
def test_a_refused_form_is_an_error_page(client, body, headers, status):
    kw = {"data": body} if isinstance(body, dict) else {"content": body}
    resp = client.post("/", headers=headers, follow_redirects=False, **kw)
    assert resp.status_code == status
    assert '<p class="message">' in resp.text


def test_a_posted_form_keeps_the_token_and_host_rules(repo):
    token = "a-token-of-sixteen-chars"
    app = create_app(repo / "dist", token=token)
    with TestClient(app, base_url=BASE) as c:
        assert c.post("/", data={"q": "E08"}, follow_redirects=False).status_code == 401
        ok = c.post("/", data={"q": "E08"}, headers={"authorization": f"Bearer {token}"},
                    follow_redirects=False)
        assert ok.status_code == 303
        assert "form-action 'self'" in ok.headers["content-security-policy"]
        elsewhere = c.post("/", data={"q": "E08"}, follow_redirects=False,
                           headers={"authorization": f"Bearer {token}", "host": "evil.example"})
        assert elsewhere.status_code == 421


def test_a_results_passage_shows_its_markdown_not_its_reader_text(tmp_path):
    """Chunk text reads a backslash escape as its character (`\\*not bold\\*` is `*not
    bold*`); the results page rendered that text as Markdown again, so an escaped `\\*`
    became emphasis and an escaped `\\#` a heading. A passage of whole lines is shown from
    its source lines, as the document's page shows them."""
    root = copy_example(tmp_path / "kr", [])
    doc = root / "knowledge/engineering/escapes.md"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(PAGE.format(title="Escapes", source="test", body=(
        "The flag \\*not bold\\* stays literal in zanzibar notes.\n\n"
        "\\# not a heading of zanzibar\n")), encoding="utf-8")
    build(load_config(root), BuildOptions(progress=False))
    with TestClient(create_app(root / "dist"), base_url=BASE) as c:
        page = c.get("/", params={"q": "zanzibar notes", "k": 5}).text
    article = re.search(r'data-doc="knowledge/engineering/escapes.md".*?</article>', page, re.S)
    assert article is not None
    assert "*not bold*" in article.group() and "<em>" not in article.group()
    assert "# not a " in article.group() and article.group().count("<h1") <= 1
@pytest.mark.parametrize("ui, url, content", [
    ("en", f"/doc/{quote(SCAB)}", "zh-CN"),
    ("zh", f"/doc/{quote(DEPLOY)}", "en"),
    ("en", f"/table/{quote(SCAB)}?table=1", "zh-CN"),
    ("en", "/?" + urlencode({"q": "赤霉病 扬花期"}), "zh-CN"),
    ("zh", "/?" + urlencode({"q": "deployment rollback fieldgate"}), "en"),
])
def test_knowledge_text_carries_its_own_language(client, ui, url, content):
    """A Chinese document in the English interface was all `lang="en"` (and an English one in
    the Chinese interface `zh-CN`): a screen reader read the Chinese text with an English voice.
    The interface keeps its language; the knowledge text says its own."""
    page = client.get(url + ("&" if "?" in url else "?") + "lang=" + ui).text
    tags = Elements(page).tags
    assert tags[0] == ("html", {"lang": {"en": "en", "zh": "zh-CN"}[ui]})
    texts = [a for tag, a in tags if a.get("class") in ("body", "passage", "rules")
             or (tag == "a" and "lang" in a)]
    assert texts and all(a.get("lang") == content for a in texts), (url, texts[:3])


@pytest.mark.parametrize("ui, q, lang", [("en", "赤霉病 扬花期", "zh-CN"),
                                          ("zh", "deployment rollback fieldgate", "en"),
                                          ("zh", "赤霉病 扬花期", "zh-CN")])
def test_the_question_in_its_box_carries_its_own_language(client, ui, q, lang):
    """The box showing the question a page answers had no `lang`: a Chinese question in the
    English interface was read with an English voice (and its characters drawn in the
    interface language's glyphs), an English one in the Chinese interface as Chinese."""
    page = client.get("/", params={"q": q, "lang": ui}).text
    box = [a for tag, a in Elements(page).tags if tag == "textarea"]
    assert box and box[0].get("lang") == lang, box


def test_a_decisions_inputs_outputs_and_conditions_carry_the_documents_language(client):
    """The decided outputs (风险等级: 高) and each cell's column and condition are the
    document's words, but in the English interface they were marked English."""
    page = client.get(f"/table/{quote(SCAB)}", params={"table": 1, "go": 1, "in.0": "22",
                                                       "in.1": "90", "in.2": "4",
                                                       "lang": "en"}).text
    assert 'class="outcome' in page
    tags = Elements(page).tags
    outputs = [a for tag, a in tags if tag == "dl" and a.get("class") == "outputs"]
    cells = [a for tag, a in tags if tag == "td" and a.get("class") == "knowledge"]
    assert outputs and all(a.get("lang") == "zh-CN" for a in outputs), outputs
    assert cells and all(a.get("lang") == "zh-CN" for a in cells), cells
    # and the same words where a result is evaluated on the question
    page = client.get("/", params={"q": "温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？",
                                   "lang": "en"}).text
    block = page[page.index('class="evaluation'):]
    block = block[:block.index("</div>")]
    inputs = [a for tag, a in Elements(block).tags if a.get("class") == "input"]
    assert inputs and all(a.get("lang") == "zh-CN" for a in inputs), inputs
    assert '<span lang="zh-CN"><strong>风险等级</strong>: 极高</span>' in block, block


def test_a_documents_declared_language_wins_and_a_bad_one_is_ignored():
    assert i18n.content_lang("en", "中文正文") == "en"
    assert i18n.content_lang("zh", "English text") == "zh-CN"
    assert i18n.content_lang("zh-TW", "") == "zh-TW"
    assert i18n.content_lang('en" onload="x', "中文正文") == "zh-CN"
    assert i18n.content_lang(None, "An English text") == "en"



def test_a_results_page_has_one_outline_of_results_and_their_sections(client):
    """A results page had no `<h1>` and each passage's own `<h1>`/`<h2>` stood among the
    results' `<h2>`s (with the same heading id once per result of that section): a screen
    reader's list of headings jumped from a result to a top-level heading of its passage."""
    page = client.get("/?" + urlencode({"q": "小麦赤霉病 扬花期 风险等级"})).text
    heads = [(tag, a) for tag, a in Elements(page).tags if re.fullmatch(r"h[1-6]", tag)]
    assert [tag for tag, _ in heads].count("h1") == 1 and heads[0][0] == "h1"
    levels = [int(tag[1]) for tag, _ in heads]
    assert all(b <= a + 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    assert levels.count(2) >= 2 and max(levels) >= 3  # the results, and a passage's sections
    ids = [a["id"] for _, a in heads if "id" in a]
    assert len(ids) == len(set(ids)), ids
    doc = client.get(f"/doc/{quote(SCAB)}").text  # a document's own headings keep their ids
    assert '<h1 id="小麦赤霉病监测与防控操作规程"' in doc


@pytest.mark.parametrize("lang, word", [("zh", "问题"), ("en", "Question")])
def test_the_question_box_has_a_label(client, lang, word):
    """The search box was named by its placeholder only, an example question that goes once
    the reader types: a screen reader announced a filled box as "edit text" with no name."""
    page = client.get("/?" + urlencode({"q": "赤霉病", "lang": lang})).text
    tags = Elements(page).tags
    box = next(a for tag, a in tags if tag in ("input", "textarea") and a.get("name") == "q")
    labels = re.findall(r'<label[^>]*for="([^"]+)"[^>]*>([^<]+)</label>', page)
    assert (box.get("id"), word) in labels
    assert [a.get("id") for _, a in tags].count(box["id"]) == 1


@pytest.mark.parametrize("ui, other, word", [("zh", "en", "English"), ("en", "zh-CN", "中文")])
def test_the_language_switch_is_said_in_its_own_language(client, ui, other, word):
    """The switch reads "English" on a Chinese page (and "中文" on an English one), but took
    the page's `lang`: a Chinese screen reader voice spelled it out letter by letter."""
    for page in (client.get(f"/doc/{quote(SCAB)}?lang={ui}").text,
                 client.post(f"/?lang={ui}", data={"q": pasted_log()}).text):  # the form's button
        switch = re.search(r'<(a|button)[^>]*\blang="([^"]+)"[^>]*>([^<]+)</\1>', page)
        assert switch and switch.group(2, 3) == (other, word), page[:800]


def test_a_one_line_passage_says_line_not_lines_n_to_n(client):
    """An English result of one line said "lines 19–19" (the CLI says "line 19"), its
    document page "Cited lines 19–19" and a matching row "(lines 19)"."""
    page = client.get("/", params={"q": "E17 alarm", "lang": "en"})
    client.cookies.clear()  # ?lang=en is remembered in a cookie: the other tests read Chinese
    spans = re.findall(r'<span class="lines">([^<]*)</span>', page.text)
    urls = re.findall(r'<a class="cite" href="([^"]*)"', page.text)
    assert spans and not any(re.fullmatch(r"lines (\d+)–\1", s) for s in spans), spans
    one = [(s, u) for s, u in zip(spans, urls, strict=True) if re.fullmatch(r"line \d+", s)]
    assert one, spans
    doc = client.get(htmllib.unescape(one[0][1]).split("#")[0] + "&lang=en")
    client.cookies.clear()
    assert f"Cited {one[0][0]}</a>" in doc.text and not re.search(r"lines (\d+)–\1\b", doc.text)


def test_an_error_page_footer_names_the_release_read_or_nothing(client):
    """A 404 page's footer said "· Source commit:" with nothing after it (and "local build"
    for a signed release): no release was given to it."""
    served = client.get("/").text
    footer = re.search(r'<footer class="release">.*?</footer>', served, re.S)
    assert footer and re.search(r'<code class="commit">[0-9a-f]{12}</code>', footer.group(0))
    missing_doc = client.get("/doc/knowledge/crops/none.md")
    assert missing_doc.status_code == 404 and footer.group(0) in missing_doc.text
    no_page = client.get("/nope")
    assert no_page.status_code == 404 and '<footer class="release">' not in no_page.text
    assert '<code class="commit"></code>' not in no_page.text + missing_doc.text


ARTICLE = re.compile(r'<article class="result[^"]*" data-doc="([^"]+)" data-lines="(\d+)-(\d+)">'
                     r"(.*?)</article>", re.S)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_result_links_its_citation_to_the_cited_lines_and_names_the_release(
        client, repo, lang):
    """Each result is one link, title and citation, to the cited lines (the citation was plain
    text), and the release tag and source commit stand with the results (issue 13), once."""
    page = client.get("/", params={"q": "赤霉病 扬花期 用药", "lang": lang}).text
    client.cookies.clear()
    release = open_index(repo / "dist").release
    section = page[page.index('<section class="results"'):]
    said = re.search(r'<p class="served-release">(.*?)</p>', section, re.S)
    assert said and section.index('<p class="served-release">') < section.index("<article")
    shown = htmllib.unescape(re.sub(r"<[^>]+>", "", said.group(1)))
    words = i18n.translator(lang)
    assert (release.tag or words("local_build")) in shown and words("release") in shown
    assert release.source_commit[:12] in shown and words("source_commit") in shown
    assert page.count('<span class="tag">') == 1 and '<footer class="release">' not in page
    articles = ARTICLE.findall(page)
    assert len(articles) >= 3
    for doc, a, b, body in articles:
        links = re.findall(r'<a class="cite" href="([^"]+)">(.*?)</a>\s*(?=<p class="badges">)',
                           body, re.S)
        assert len(links) == 1, body[:600]
        href, inside = htmllib.unescape(links[0][0]), links[0][1]
        assert href.startswith(f"/doc/{quote(doc)}?lines={a}-{b}&") and href.endswith("#cited")
        text = " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", inside)).split())
        assert "<h2" in inside and not text.startswith(doc)  # the title first
        assert f"{doc} › " in text and text.endswith(
            words("line", n=a) if a == b else words("lines", a=a, b=b))
        # the same document page the link names, at the cited lines
        cited = client.get(href.split("#")[0])
        client.cookies.clear()
        assert cited.status_code == 200 and 'id="cited"' in cited.text

