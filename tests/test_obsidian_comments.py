"""Obsidian's `%% comments %%` are authors' notes: no reader of a document sees them (chunk
and embed text, search, headings, table cells and CSV files, the device's page, `read`),
while their lines stay where they are for citations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.agents.read import open_knowledge, read_section
from kbtools.build.chunk import chunk_document
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.corpus import parse_source
from kbtools.index.layout import ReleaseLayout
from kbtools.index.reader import open_index
from kbtools.markdown.doctree import parse
from kbtools.markdown.frontend import scan
from kbtools.markdown.parser import inline_text, parse_tokens
from kbtools.query.search import search
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM, TITLED

SECRETS = ("内部备注", "不要外传", "草稿标题", "报价有误", "格注释", "标题注")

BODY = """# 检修规程 %%标题注%%

停机前确认压力 %%内部备注：不要外传%% 已降到零。

%%
## 草稿标题

| 部件 | 报价 |
|---|---|
| 轴承 | 报价有误 |
%%

| 部件 | 周期 |
|---|---|
| 叶轮 | 3 个月 %%格注释%% |

多行注释在段落里：先说 %%一行
又一行%% 再说。

代码 `%%d` 与 $a %% b$ 原样，未闭合 %%保留
"""


def _doc(body: str = BODY):
    src = parse_source(GOOD_FM + body, Path("knowledge/t/f.md"), "knowledge/t/f.md")
    return src, parse(src)


def test_a_comment_is_no_text_of_chunks_headings_or_cells():
    src, doc = _doc()
    chunks = chunk_document(src, doc=doc)
    for chunk in chunks:
        for secret in SECRETS:
            assert secret not in chunk.text and secret not in chunk.embed_text, chunk
        assert "一行" not in chunk.text and "又一行" not in chunk.text
    assert [s.title for s in doc.sections() if s.heading] == ["检修规程"]  # none inside it
    (table,) = doc.tables()  # the table inside the block comment is none
    assert table.header == ("部件", "周期") and table.rows == (("叶轮", "3 个月"),)
    section = chunks[0]
    assert "停机前确认压力  已降到零。" in section.text
    assert "先说  再说。" in section.text
    # what is not a comment keeps its `%%`: code, math, one never closed
    assert "`%%d` 与 $a %% b$ 原样，未闭合 %%保留" in section.text
    # the lines stay where they are: citations count them
    first = GOOD_FM.count("\n") + 1
    assert (section.line_start, section.line_end) == (first, first + 19)
    row = next(c for c in chunks if c.kind == "table_row")
    assert row.line_start == first + 14


@pytest.mark.parametrize(("text", "plain"), [
    ("a %%x%% b", "a b"),
    ("a %%x", "a %%x"),  # never closed: text
    ("`%%x%%` and $%%y%%$", "%%x%% and %%y%%"),
    ("[link %%x%%](d.md) %%[[wiki]]%%", "link"),
    ("\\%%x%%", "%%x%%"),  # escaped: text, and what follows it opens nothing
])
def test_inline_comments_read_as_nothing(text, plain):
    inline = next(t for t in parse_tokens(text) if t.type == "inline")
    assert inline_text(inline.children or []) == plain


def test_an_annotation_reaches_a_table_past_a_comment():
    """The build's doc tree hands `csv` to the table (a comment is no block); `kb check`
    read the comment as the block after the annotation, so it named no CSV file."""
    body = "# T\n\n<!-- csv: parts -->\n%%来源：内部报价%%\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert scan(body, 1).csv_names == [(3, "parts")]
    assert [t.annotations for t in _doc(body)[1].tables()] == [{"csv": "parts"}]


@pytest.mark.parametrize("body", [
    "# T\n\n%%\n---\n机密\n%%\n\n正文。\n",  # `%%` over `---`: no setext heading
    "# T\n\n%% | a |\n|---|\n| 机密 |\n%%\n\n正文。\n",  # no table either
])
def test_a_block_comment_is_read_before_other_blocks(body):
    src, doc = _doc(body)
    assert [c.text for c in chunk_document(src, doc=doc)] == ["# T\n\n正文。"]


def test_a_comment_in_fenced_code_is_code():
    _, doc = _doc("# 代码\n\n```c\n%%\nprintf(\"%%d\");\n%%\n```\n")
    assert "printf(\"%%d\");" in chunk_document(parse_source(
        GOOD_FM + "# 代码\n\n```c\n%%\nprintf(\"%%d\");\n%%\n```\n", Path("knowledge/t/c.md"),
        "knowledge/t/c.md"), doc=doc)[0].text
    assert doc.comments == ()


def test_the_page_shows_no_comment():
    html = render_markdown(BODY, RenderContext(doc="knowledge/t/f.md"))
    for secret in SECRETS:
        assert secret not in html
    assert "<h2" not in html and "报价" not in html
    assert "<code>%%d</code>" in html and "未闭合 %%保留" in html
    assert "停机前确认压力  已降到零。" in html


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """Built leniently: before comments were read, the block comment's closing `%%` was a
    table row of one cell (an error), and the build must still run to show what leaked."""
    repo = make_repo(tmp_path_factory.mktemp("comments"),
                     docs={"knowledge/pump-0.md": TITLED.format(title="离心泵检修", body=BUILT)})
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))
    return repo / "dist"


# (the allowlist refuses a formula with `%`: a TeX comment)
BUILT = BODY.split("\n", 1)[1].replace("标题注", "泵注").replace(" 与 $a %% b$", "")


def test_a_built_index_finds_no_word_only_a_comment_holds(dist):
    index = open_index(dist)
    for word in ("不要外传", "报价有误", "泵注"):  # words only comments hold
        assert not search(index, word, mode="bm25", keep_results=True).results, word
    hits = search(index, "停机前确认压力", mode="bm25", keep_results=True).results
    assert hits and "内部备注" not in hits[0].text
    tables = list(ReleaseLayout(dist).data.glob("tables/*.csv"))
    assert tables and not any("格注释" in p.read_text(encoding="utf-8")
                              or "报价" in p.read_text(encoding="utf-8") for p in tables)


def test_read_returns_no_comment_and_keeps_its_lines(dist):
    kn = open_knowledge(index=dist)
    doc = "knowledge/pump-0.md"
    whole = read_section(kn, doc)
    assert "不要外传" not in whole.markdown and "报价有误" not in whole.markdown
    assert "`%%d` 原样，未闭合 %%保留" in whole.markdown
    source = (dist / "data" / "source" / doc).read_text(encoding="utf-8").split("\n")
    line = next(n for n, text in enumerate(source, 1) if "停机前确认压力" in text)
    part = read_section(kn, doc, line_start=line, line_end=line + 10)
    assert part.markdown.split("\n")[0] == "停机前确认压力  已降到零。"
    assert part.markdown.split("\n")[2:9] == [""] * 7  # the block comment's lines, empty
    assert part.markdown.split("\n")[10] == "| 部件 | 周期 |"


def test_kb_chunks_prints_no_comment(tmp_path, monkeypatch):
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "f.md").write_text(GOOD_FM + BODY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["chunks", "--json", "knowledge/f.md"])
    assert res.exit_code == 0, res.output
    chunks = json.loads(res.output)
    assert chunks and not any(s in c["text"] or s in c["embed_text"]
                              for c in chunks for s in SECRETS)


def test_the_served_pages_show_no_comment(dist):
    """The document page, a results page and the JSON API's read, as a device serves them."""
    from urllib.parse import quote, urlencode

    from starlette.testclient import TestClient

    from kbtools.serve.app import create_app

    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        doc = client.get(f"/doc/{quote('knowledge/pump-0.md')}")
        found = client.get("/?" + urlencode({"q": "停机前确认压力"}))
        for page in (doc, found):
            assert page.status_code == 200
            assert "停机前确认压力" in page.text
            assert not any(secret in page.text for secret in (*SECRETS, "泵注", "一行"))
