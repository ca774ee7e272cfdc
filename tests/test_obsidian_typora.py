"""What authors write in Typora and Obsidian, read as those editors show it: a table row's
footnote is searched with its row and cited with it (the chunker's structure:
tests/test_chunk.py; chunk text: tests/test_chunk_text.py)."""

from __future__ import annotations

import pytest

from kbtools.build.chunk import chunk_document
from kbtools.index.reader import open_index
from kbtools.query.search import search
from tests.kbfixtures import built_pages
from tests.test_chunk import src_of

# a table whose rows refer to notes defined under another heading, as authors put them
NOTED_ZH = """| 部件 | 说明 |
| --- | --- |
| 阀门 | 见注[^1] |
| 水泵 | 每月检查 |

## 附注

其他说明文字在这里。

[^1]: 仅限夏季使用，冬季须排空。
"""

NOTED_EN = """| Part | Note |
| --- | --- |
| Valve | see note[^cold] |
| Pump | check monthly |

## Notes

Other remarks go here.

[^cold]: Drain before frost
    and refill in spring.
"""


def _rows(body: str, title: str = "设备"):
    chunks = chunk_document(src_of(f"---\ntitle: {title}\n---\n\n# {title}\n\n{body}",
                                   "k/noted.md"))
    return [c for c in chunks if c.kind == "table_row"]


@pytest.mark.parametrize(("body", "words", "row_line", "note_line"), [
    (NOTED_ZH, "仅限夏季使用，冬季须排空。", 9, 16),
    (NOTED_EN, "Drain before frost and refill in spring.", 9, 16),
], ids=["zh", "en"])
def test_a_table_rows_footnote_is_indexed_and_cited_with_the_row(body, words, row_line,
                                                                  note_line):
    """`| 阀门 | 见注[^1] |` with `[^1]: 仅限夏季` below: the row's chunk held "见注" alone, so a
    question about the note's words never found the row. Its indexed text now ends with the
    note's, its `extra.notes` cite the note; its lines and display text stay the row's."""
    noted, plain = _rows(body)
    assert noted.line_start == noted.line_end == row_line
    assert words not in noted.text
    assert noted.embed_text.endswith("\n" + words)
    label = "1" if "[^1]" in body else "cold"
    assert noted.extra["notes"] == [{"label": label, "line": note_line, "text": words}]
    assert "notes" not in plain.extra and words not in plain.embed_text


def test_a_note_named_twice_in_a_row_is_said_once_and_an_undefined_one_not_at_all():
    body = ("| 部件 | 说明 | 备注 |\n|---|---|---|\n| 阀门 | 见注[^a] | 同上[^a][^b] |\n\n"
            "[^a]: 仅限夏季\n")
    (row,) = _rows(body)
    assert row.embed_text.count("仅限夏季") == 1
    assert [n["label"] for n in row.extra["notes"]] == ["a"]


def test_a_note_on_a_column_header_goes_with_every_row():
    """`| 压力[^u] |` with `[^u]: 表压，单位 MPa`: the note is said of each value in that
    column, so each row is searched with it."""
    body = "| 部件 | 压力[^u] |\n|---|---|\n| 阀门 | 1.6[^s] |\n| 水泵 | 0.8 |\n\n" \
           "[^u]: 表压，单位 MPa\n[^s]: 夏季\n"
    rows = _rows(body)
    assert [[n["text"] for n in r.extra["notes"]] for r in rows] == [["表压，单位 MPa", "夏季"],
                                                                     ["表压，单位 MPa"]]


@pytest.fixture(scope="module")
def noted_dist(tmp_path_factory):
    return built_pages(tmp_path_factory.mktemp("noted"),
                       [("阀门保养", NOTED_ZH), ("Valve care", NOTED_EN)], stem="noted")


@pytest.mark.parametrize(("question", "doc", "line"), [
    ("阀门 夏季", "knowledge/noted-0.md", 15),
    ("valve frost", "knowledge/noted-1.md", 15),
], ids=["zh", "en"])
def test_a_question_about_a_footnote_finds_its_row(noted_dist, question, doc, line):
    """A built release answers a question joining a row's words and its footnote's with the
    row, cited at the row's line and carrying the note."""
    res = search(open_index(noted_dist), question, k=3, mode="bm25")
    top = res.results[0]
    assert (top.kind, top.doc, top.line_start, top.line_end) == ("table_row", doc, line, line)
    assert top.extra["notes"][0]["line"] == line + 7


@pytest.mark.parametrize(("written", "read"), [
    ("- 见 **[[泵手册]]** 与 ~~[[pump|水泵]]~~，命令 `[[code]]` 原样",
     "- 见 **泵手册** 与 水泵，命令 `[[code]]` 原样"),
    ("See ==[[Pump Manual#Stop]]== and *[[pump|the pump]]*; $a[[b]]$ stays.",
     "See Pump Manual > Stop and *the pump*; $a[[b]]$ stays."),
], ids=["code-zh", "math-en"])
def test_wikilinks_beside_a_code_span_holding_brackets_are_read_as_their_text(written, read):
    """A run whose code span or formula held `[[` kept every wikilink of the run as written
    (`**[[泵手册]]**` in the index, where Obsidian, the page and `kb check` read 泵手册): the
    code span's `[[code]]` stays text, the wikilinks beside it are their text."""
    chunks = chunk_document(src_of(f"---\ntitle: 读\n---\n\n# 读\n\n{written}\n", "k/read.md"))
    assert chunks[0].text == f"# 读\n\n{read}"
