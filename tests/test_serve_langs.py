"""The languages a `kb serve` results page marks: a result's title and each heading of its path
carry their own language (the document's declared one, else the one they are written in),
whatever the passage below them is written in; the labels around them (the lines cited) are
the interface's."""

from __future__ import annotations

import datetime as dt
import re
from html.parser import HTMLParser

import pytest
from kbfixtures import copy_example, titled_page
from servefixtures import app_client, git

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.docview import render_markdown
from kbtools.serve.pagerender import front_matter_value
from kbtools.serve.passes import RenderContext

pytestmark = pytest.mark.slow

# A Chinese manual without a front-matter `lang` quoting its vendor's English notice, and an
# English note without one quoting a Chinese label: each passage is in the other language.
MANUAL = "knowledge/engineering/zorbex-manual.md"
NOTE = "knowledge/engineering/quillon-note.md"
GUIDE = "knowledge/engineering/vantor-guide.md"  # one section: Chinese, then an English line
DOCS = {
    GUIDE: titled_page("万托尔压缩机保养指南", "万托尔压缩机每运行五百小时更换一次油分离器滤芯，"
                       "更换前先泄压并挂上检修牌。" * 6 + "\n\nVantor label: release the "
                       "pressure before opening the separator housing.\n"),
    MANUAL: titled_page("佐贝克斯液压站维护手册", "佐贝克斯液压站每周检查一次油位、油温和滤芯压差，"
                        "记录在点检表上。" * 12 + """

## 厂家原文通知

""" + "The vendor notice says the zorbex pump must be flushed with clean oil before restarting "
        "it after a long stop, and the strainer must be checked for metal chips every time. " * 8),
    NOTE: titled_page("Quillon dryer notes", "The quillon dryer is checked every morning: its "
                      "belt tension, its burner flame and its exhaust temperature. " * 10 + """

## Label on the panel

""" + "奎隆烘干机面板标签写着：停机前先关闭加热器，风机继续运转十分钟，等待炉膛冷却以后再断电。" * 10),
}


class Spans(HTMLParser):
    """Each element of a result: [tag, its lang or None, its class, the text directly in it]."""

    def __init__(self, text: str):
        super().__init__()
        self.parts: list[list[str | None]] = []
        self.open: list[int] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.parts.append([tag, a.get("lang"), a.get("class"), ""])
        self.open.append(len(self.parts) - 1)

    def handle_endtag(self, tag):
        if self.open:
            self.open.pop()

    def handle_data(self, data):
        if self.open:
            self.parts[self.open[-1]][3] = (self.parts[self.open[-1]][3] or "") + data


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = copy_example(tmp_path_factory.mktemp("langs") / "kr", [])
    for rel, text in DOCS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "docs")
    build(load_config(root), BuildOptions(progress=False))
    yield from app_client(root / "dist")


def result_of(page: str, doc: str) -> str:
    found = re.search(rf'<article class="result[^"]*" data-doc="{re.escape(doc)}".*?</article>',
                      page, re.S)
    assert found is not None, page[:2000]
    return found.group()


@pytest.mark.parametrize(("ui", "q", "doc", "doc_lang", "passage_lang"), [  # no `lang` declared
    ("en", "zorbex pump flushed clean oil strainer metal chips", MANUAL, "zh-CN", "en"),
    ("zh", "zorbex pump flushed clean oil strainer metal chips", MANUAL, "zh-CN", "en"),
    ("zh", "奎隆烘干机 加热器 风机 炉膛冷却", NOTE, "en", "zh-CN"),
    ("en", "奎隆烘干机 加热器 风机 炉膛冷却", NOTE, "en", "zh-CN"),
])
def test_a_results_headings_carry_their_documents_language_not_their_passages(
        client, ui, q, doc, doc_lang, passage_lang):
    """The title and heading path of a result took its passage's `lang`: the English notice
    quoted in a Chinese manual had 佐贝克斯液压站维护手册 › 厂家原文通知 marked English (a
    screen reader spelt the Chinese headings with an English voice), and the reverse. They
    carry their own language; the passage its own; the line label the interface's. (The
    English note, a third of its letters Chinese, counts as Chinese taken whole.)"""
    article = result_of(client.get("/", params={"q": q, "lang": ui}).text, doc)
    parts = Spans(article).parts
    heading = [p for p in parts if p[0] == "h2"]
    assert heading and heading[0][1] == doc_lang, heading
    where = parts.index(next(p for p in parts if p[2] == "where"))
    path = [p for p in parts[where + 1:] if p[0] == "span" and p[2] != "lines"][:3]
    assert [p[3] for p in path] == [doc, heading[0][3],
                                    "厂家原文通知" if doc == MANUAL else "Label on the panel"]
    # the file's name is Latin letters; the title and the heading the document's words
    assert [p[1] for p in path] == ["en", doc_lang, doc_lang], path
    lines = [p for p in parts if p[2] == "lines"]
    assert lines and lines[0][1] is None  # the label: the page's (the interface's) language
    passage = [p for p in parts if p[2] == "passage"]
    assert passage and passage[0][1] == passage_lang, passage


@pytest.mark.parametrize(("ui", "note"), [("en", "not on this device"), ("zh-CN", "本设备上没有")])
def test_the_interfaces_notes_inside_knowledge_text_carry_its_language(ui, note):
    """A link to a file the release lacks is followed by the interface's note, which sat in
    the passage's or the document's `lang`: "(not on this device)" in a Chinese manual was
    read with a Chinese voice. (The note of table rows left out: test_serve_table_excerpt.)"""
    html = render_markdown("见[接线图](wiring.pdf)，按图接线。",
                           RenderContext(doc="knowledge/a.md", missing_file=note, ui_lang=ui))
    assert f'<span class="missing-note" lang="{ui}">({note})</span>' in html
    bare = render_markdown("见[接线图](wiring.pdf)。", RenderContext(doc="knowledge/a.md"))
    assert '<span class="missing-note">(' in bare  # no interface named: the text's


def test_a_paragraph_in_the_documents_other_language_carries_its_own(client):
    """The vendor's English notice in the Chinese manual was inside the page's ``zh-CN``
    text only, on its document page and in a result's passage whose headings are Chinese:
    a screen reader read it with a Chinese voice (and a Chinese heading in an English
    passage with an English one). Each block says its own language now."""
    body = Spans(client.get(f"/doc/{MANUAL}", params={"lang": "en"}).text).parts
    paragraphs = [(p[1], p[3][:16]) for p in body if p[0] == "p" and p[3].strip()
                  and ("vendor notice" in p[3] or "佐贝克斯" in p[3])]
    assert paragraphs == [(None, "佐贝克斯液压站每周检查一次油位、"), ("en", "The vendor notic")]
    article = result_of(client.get("/", params={"q": "万托尔压缩机 油分离器滤芯 泄压",
                                                "lang": "zh"}).text, GUIDE)
    parts = Spans(article).parts
    passage = [p for p in parts if p[2] == "passage"]
    assert passage and passage[0][1] == "zh-CN", passage
    english = [(p[1], p[3][:13]) for p in parts if p[0] == "p" and "Vantor label" in p[3]]
    assert english == [("en", "Vantor label:")], parts


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_a_documents_front_matter_reads_as_written_not_as_python_prints_it(client, ui):
    """A document's details showed ``verified: false`` as ``False`` (Python's word, on an
    English page and a Chinese one): each value reads as the YAML wrote it."""
    page = client.get(f"/doc/{NOTE}", params={"lang": ui}).text
    shown = dict(re.findall(r"<dt>([^<]+)</dt><dd[^>]*>([^<]*)</dd>", page))
    assert shown["verified"] == "false", shown
    assert "False" not in shown.values() and "None" not in shown.values()


def test_front_matter_values_read_as_yaml_writes_them():
    when = dt.datetime(2026, 11, 2, 10, 15, tzinfo=dt.UTC)
    assert [front_matter_value(v) for v in (
        True, None, dt.date(2026, 12, 31), when, 2.5, ["P-101", "P-102"],
        {"zone": "C", "stop": True}, [["a", "b"], {"k": None}])] == [
        "true", "—", "2026-12-31", "2026-11-02T10:15:00+00:00", "2.5", "P-101, P-102",
        "zone: C, stop: true", "[a, b], {k: —}"]
