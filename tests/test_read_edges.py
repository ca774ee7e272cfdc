"""kbtools.agents.read at the edges: headings holding '>', identical sibling headings, reads
longer than MAX_LINES, a file's last line, and `verified` judged as search judges it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kbtools.agents.read import MAX_LINES, line_count, open_knowledge, read_section
from kbtools.errors import KbError, UsageError
from kbtools.index.store import Store, write_store
from kbtools.index.verdicts import span_verdict
from kbtools.query.filters import doc_value

HEADINGS = """---
title: 边界
---

# 边界

## Temperature < 10 °C or > 30 °C

停止喷药。

## Vec<T> 与 `Option<u8>` 类型说明

说明。

## 注意事项

第一处。

## 注意事项

第二处。

# 甲

## 乙

按路径。

# 丙

## 甲 > 乙

按标题。
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "kb.toml").write_text("", encoding="utf-8")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "edge.md").write_text(HEADINGS, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("heading,line", [
    ("Temperature < 10 °C or > 30 °C", 7),
    ("边界 > Temperature < 10 °C or > 30 °C", 7),  # the citation's own text
    (["边界", "Temperature < 10 °C or > 30 °C"], 7),
    ("Vec 与 Option<u8> 类型说明", 11),  # as cited: the inline HTML `<T>` is no text
    ("边界 > Vec 与 Option<u8> 类型说明", 11),
    ("边界 › Vec 与 Option<u8> 类型说明", 11),
    ("甲 > 乙", 31),  # the whole string is a heading: preferred to the path 甲 > 乙
    (["甲", "乙"], 25),
    ("丙 > 甲 > 乙", 31),
    (["边界 > Vec 与 Option<u8> 类型说明"], 11),  # a citation's path as a list of one
    (["边界 > Temperature < 10 °C or > 30 °C"], 7),
    (["丙", "甲 > 乙"], 31),  # a heading holding ' > ' as one part of a list
    (["甲 > 乙"], 31),  # the heading before the path, as for the string
    (["丙 > 甲", "乙"], 31),
])
def test_a_heading_holding_a_greater_than_sign_is_read_by_its_text(repo, heading, line):
    """`split_heading_path` split at every '>': `Option<u8>` and `> 30 °C` were cut in two,
    so no such heading could be read, not even by the citation a read had returned."""
    sec = read_section(open_knowledge(repo), "knowledge/edge.md", heading)
    assert sec.line_start == line
    if isinstance(heading, str):  # read back by the heading path it cites (the path 甲 > 乙
        # is cited as the heading "甲 > 乙" is: that string reads the heading)
        again = sec.citation().split(" § ", 1)[1]
        assert read_section(open_knowledge(repo), "knowledge/edge.md", again).line_start == line


MANUAL = """---
title: Pump manual
---

# Pump manual

## 3. Maintenance

### 3.2 Using `alignctl` with *care* and [links](https://example.com/a)

Run it cold.

## Seal replacement ##

Drain first.
"""


@pytest.mark.parametrize("heading,line", [
    ("Using alignctl with care and links", 9),  # as cited
    ("Using `alignctl` with *care* and [links](https://example.com/a)", 9),  # as written
    ("### 3.2 Using `alignctl` with *care* and [links](https://example.com/a)", 9),
    ("3. Maintenance > Using `alignctl` with *care* and [links](https://example.com/a)", 9),
    ("## Seal replacement ##", 13),  # the heading's line, closing #'s and all
    ("section 3.2", 9), ("Section 3", 7), ("§ 3.2", 9), ("chapter 3", 7), ("第 3.2 节", 9),
])
def test_a_heading_is_read_as_markdown_and_prose_write_it(tmp_path, heading, line):
    """An agent names a section as the document's `markdown` shows its heading (code spans,
    emphasis, links, `##` markers) or as prose refers to it ("see section 3.2"): both were
    'no section …', though the heading is the same."""
    (tmp_path / "kb.toml").write_text("", encoding="utf-8")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "pump.md").write_text(MANUAL, encoding="utf-8")
    assert read_section(open_knowledge(tmp_path), "pump.md", heading).line_start == line


def test_identical_sibling_headings_are_told_apart_by_line_range(repo):
    """More of the heading path cannot tell `## 注意事项` from `## 注意事项`: the message
    said to give it, listing the same path twice."""
    kn = open_knowledge(repo)
    with pytest.raises(KbError) as info:
        read_section(kn, "knowledge/edge.md", "边界 > 注意事项")
    msg = str(info.value)
    assert "read one by line range (lines 15-17; lines 19-21)" in msg, msg
    assert "more of the heading path" not in msg
    assert read_section(kn, "knowledge/edge.md", line_start=19, line_end=21).markdown.endswith(
        "第二处。")


def long_doc(n: int) -> str:
    return "# 长文\n\n## 长节\n\n" + "".join(f"- 第 {i} 项\n" for i in range(1, n + 1))


def test_heading_and_whole_document_reads_stop_at_max_lines(tmp_path):
    """A line range over MAX_LINES was refused while a heading or whole-document read of
    602 lines came back whole, with truncated: false."""
    (tmp_path / "kb.toml").write_text("", encoding="utf-8")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "long.md").write_text(long_doc(600), encoding="utf-8")
    kn = open_knowledge(tmp_path)
    for sec in (read_section(kn, "knowledge/long.md", "长节"),
                read_section(kn, "knowledge/long.md")):
        assert sec.truncated is True
        assert sec.line_end == sec.line_start + MAX_LINES - 1
        assert len(sec.markdown.split("\n")) == MAX_LINES
        assert sec.markdown.split("\n")[-1] == (
            read_section(kn, "knowledge/long.md", line_start=sec.line_end,
                         line_end=sec.line_end).markdown)
    short = read_section(kn, "knowledge/long.md", "长节", max_chars=100)
    assert short.truncated and len(short.markdown) <= 100  # the character cap still holds,
    assert short.markdown == read_section(  # at a line's end (session 30)
        kn, "knowledge/long.md", line_start=short.line_start, line_end=short.line_end).markdown


def test_a_read_cut_between_two_lines_cites_the_last_line_it_returns(tmp_path):
    """A section cut at MAX_CHARS just after a line's newline came back citing one line more
    than it returned (`line_end` the line none of whose characters were returned)."""
    (tmp_path / "kb.toml").write_text("", encoding="utf-8")
    (tmp_path / "knowledge").mkdir()
    line = "x" * 99  # with its newline, 100 characters: a cut at 1,000 falls between lines
    (tmp_path / "knowledge" / "big.md").write_text(
        "# " + "h" * 97 + "\n" + "\n".join([line] * 30) + "\n", encoding="utf-8")
    kn = open_knowledge(tmp_path)
    for sec in (read_section(kn, "knowledge/big.md", "h" * 97, max_chars=1000),
                read_section(kn, "knowledge/big.md", line_start=1, line_end=30, max_chars=1000)):
        assert sec.truncated is True
        assert sec.markdown.split("\n") == ["# " + "h" * 97] + [line] * 9
        assert (sec.line_start, sec.line_end) == (1, 10)


@pytest.mark.parametrize("text,lines", [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2),
                                        ("a\n\n", 2), ("a\r\nb\r\n", 2)])
def test_line_count(text, lines):
    assert line_count(text) == lines


@pytest.mark.parametrize("final_newline", [True, False])
def test_no_line_after_the_last(tmp_path, final_newline):
    """A 100-line file said 101 lines, and line 101 (the empty string after the final
    newline) could be read."""
    text = "\n".join(["# 文"] + [f"第 {i} 行" for i in range(2, 101)]) + (
        "\n" if final_newline else "")
    (tmp_path / "kb.toml").write_text("", encoding="utf-8")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "h.md").write_text(text, encoding="utf-8")
    kn = open_knowledge(tmp_path)
    with pytest.raises(UsageError, match=r"line 101 is past the end of knowledge/h.md \(100 lines\)"):
        read_section(kn, "knowledge/h.md", line_start=101, line_end=101)
    assert read_section(kn, "knowledge/h.md", line_start=99).line_end == 100
    tail = read_section(kn, "knowledge/h.md", line_start=98, line_end=105)
    assert tail.line_end == 100 and tail.markdown == "第 98 行\n第 99 行\n第 100 行"


# --- verified, as search judges it ----------------------------------------------------

SCAB = """---
title: 赤霉病
verified: true
---

# 赤霉病

## 监测

- 甲
- 乙，审核后改过
- 丙

## 防治

摘除病叶。
"""
CHANGED = "changed after review (line 11)"
INVALID = "review not valid: verified_at is earlier than the last change"


def chunk(doc: str, n: int, kind: str, a: int, b: int, reason: str | None) -> dict:
    return {"id": f"{doc}#{n}", "doc": doc, "kind": kind, "heading_path": ["赤霉病"],
            "line_start": a, "line_end": b, "text": "", "embed_text": "", "models": ["m"],
            "verification": {"verified": reason is None, "reason": reason}}


@pytest.fixture
def index_knowledge(tmp_path: Path):
    """An index over three copies of SCAB: `lapsed.md`, where line 11 changed after the
    review (its list item and its section lapsed, the other items did not); `ok.md`, all
    verified; `invalid.md`, whose review is not valid (every chunk unverified)."""
    source = tmp_path / "dist" / "data" / "source" / "knowledge"
    source.mkdir(parents=True)
    chunks, docs = [], []
    for name, changed, rest in [("lapsed", CHANGED, None), ("ok", None, None),
                                ("invalid", INVALID, INVALID)]:
        doc = f"knowledge/{name}.md"
        (source / f"{name}.md").write_text(SCAB, encoding="utf-8")
        docs.append({"doc": doc, "metadata": {"title": "赤霉病", "verified": True}})
        chunks += [chunk(doc, 0, "section", 8, 12, changed), chunk(doc, 1, "list_item", 10, 10, rest),
                   chunk(doc, 2, "list_item", 11, 11, changed),
                   chunk(doc, 3, "list_item", 12, 12, rest), chunk(doc, 4, "section", 14, 16, rest)]
    write_store(tmp_path / "store.sqlite", docs, chunks, {}, [])
    store = Store(tmp_path / "store.sqlite")
    data = tmp_path / "dist" / "data"
    yield open_knowledge(idx=SimpleNamespace(root=tmp_path / "dist", store=store,
                                             docs=lambda: docs, manifest={"artifacts": {}},
                                             read_data=lambda rel, limit: (data / rel)
                                             .read_bytes()))
    store.close()


@pytest.mark.parametrize("a,b,reason", [
    (10, 10, None),  # a verified item inside a lapsed section: verified, as search serves it
    (12, 12, None),
    (14, 16, None),
    (11, 11, CHANGED),  # the changed line
    (10, 12, CHANGED),  # a range holding it
    (8, 8, CHANGED),  # the lapsed section's heading: only the section covers it
    (13, 13, CHANGED),  # no chunk covers the blank line: the document's verdict
])
def test_a_range_is_judged_by_the_finest_chunks_over_it(index_knowledge, a, b, reason):
    """`span_reason` called a range unverified when any chunk over it was, the coarser
    section around a verified list item included, so `read` of a search result's own lines
    disagreed with the result."""
    sec = read_section(index_knowledge, "knowledge/lapsed.md", line_start=a, line_end=b)
    assert (sec.verified, sec.reason) == (reason is None, reason)


def test_lines_no_chunk_covers_take_the_documents_verdict(index_knowledge):
    """A blank line between sections of a document whose review is invalid was served as
    verified: no chunk overlapped it, and no chunk meant no reason."""
    bad = read_section(index_knowledge, "knowledge/invalid.md", line_start=13, line_end=13)
    assert bad.verified is False and bad.reason == INVALID
    ok = read_section(index_knowledge, "knowledge/ok.md", line_start=13, line_end=13)
    assert ok.verified is True and ok.reason is None


def test_span_verdict_prefers_the_unverified_of_two_equal_chunks():
    rows = [{"line_start": 1, "line_end": 3, "verified": True, "verification": {}},
            {"line_start": 1, "line_end": 3, "verified": False,
             "verification": {"reason": "lapsed"}}]
    assert span_verdict(rows, 2, 2) == "lapsed"
    assert span_verdict(rows[:1], 2, 2) is None and span_verdict([], 2, 2) is None


# --- doc= filters take the short path read takes ----------------------------------------


def test_doc_value_resolves_a_short_path_like_read():
    names = ["knowledge/a.md", "knowledge/crops/a.md", "knowledge/crops/b.md"]
    assert doc_value("=", "knowledge/crops/b.md", names) == "knowledge/crops/b.md"
    assert doc_value("=", "crops/b.md", names) == "knowledge/crops/b.md"
    assert doc_value("!=", "crops/b.md", names) == "knowledge/crops/b.md"
    assert doc_value("=", "a.md", names) == "knowledge/a.md"  # under `knowledge` only
    assert doc_value("!=", "x.md", names) == "x.md"  # excludes nothing, as before
    with pytest.raises(UsageError, match=r"no document 'crops/c/b.md' in this index; its "
                                         r"documents include: knowledge/crops/b.md, knowledge/a.md"):
        doc_value("=", "crops/c/b.md", names)  # the same file name is listed first
    nested = ["knowledge/crops/a.md", "knowledge/crops/b.md", "knowledge/crops/crops/a.md"]
    with pytest.raises(UsageError, match=r"doc=crops/a.md: names 2 documents \(knowledge/crops/"
                                         r"a.md, knowledge/crops/crops/a.md\); give the path"):
        doc_value("=", "crops/a.md", nested)  # under `knowledge` and `knowledge/crops`


@pytest.mark.parametrize("doc,line", [
    ("knowledge/edge.md#注意事项", 15),  # GitHub's anchors: the first of two
    ("knowledge/edge.md#注意事项-1", 19),  # and the second
    ("knowledge/edge.md#%E6%B3%A8%E6%84%8F%E4%BA%8B%E9%A1%B9-1", 19),  # as a URL writes it
    ("knowledge/edge.md#temperature--10-c-or--30-c", 7),  # '<', '>' and '°' dropped
    ("knowledge/edge.md#Temperature < 10 °C or > 30 °C", 7),  # the heading as written
    ("knowledge/edge.md#vec-与-optionu8-类型说明", 11),  # inline HTML is no text
    ("edge.md#甲--乙", 31),  # a short path, the heading "甲 > 乙"
    ("knowledge/edge.md#丙 > 甲 > 乙", 31),  # a heading path, as `heading_path` takes it
])
def test_a_link_given_as_the_document_reads_the_section_it_names(repo, doc, line):
    """An agent passed a link (`x.md#anchor`, as documents and decision-table cells link
    sections) as `doc`: it was refused ("a document path names the file alone"), so an
    agent following a link had to turn the anchor back into a heading. The anchor names
    the section as `kb check` reads links: GitHub's anchor, URL-escaped or not, or the
    heading's text."""
    sec = read_section(open_knowledge(repo), doc)
    assert (sec.doc, sec.line_start) == ("knowledge/edge.md", line)


def test_a_link_naming_no_heading_lists_the_anchors(repo):
    with pytest.raises(KbError) as info:
        read_section(open_knowledge(repo), "knowledge/edge.md#install")
    assert info.value.message.startswith(
        "no heading of knowledge/edge.md has the anchor '#install' (its anchors: #边界, "
        "#temperature--10-c-or--30-c, ")
    assert info.value.message.endswith("); give the section as heading_path")
    with pytest.raises(UsageError, match="is a link, which names its section"):
        read_section(open_knowledge(repo), "knowledge/edge.md#注意事项", "边界")
    with pytest.raises(UsageError, match="only Markdown documents can be read"):
        read_section(open_knowledge(repo), "knowledge/edge.txt")


@pytest.mark.parametrize("doc,heading,lines", [
    ("knowledge/edge.md:7-9", None, (7, 9)),
    ("knowledge/edge.md:7", None, (7, 7)),
    ("knowledge/edge.md:19-21 § 边界 > 注意事项", None, (19, 21)),  # the second of two
    ("knowledge/edge.md:9 § 边界 > Temperature < 10 °C or > 30 °C",
     "Temperature < 10 °C or > 30 °C", None),
    ("knowledge/edge.md § 边界", "边界", None),
])
def test_a_citation_given_as_the_document_reads_what_it_cites(repo, doc, heading, lines):
    """The citation an agent is told to cite (`doc:7-9 § A > B`) given as `doc` reads its
    section, or its lines (session 31): it was refused with where to put its parts."""
    kn = open_knowledge(repo)
    got = read_section(kn, doc)
    want = read_section(kn, "knowledge/edge.md", heading, *(lines or (None, None)))
    assert (got.heading_path, got.line_start, got.line_end, got.markdown) == (
        want.heading_path, want.line_start, want.line_end, want.markdown)
    with pytest.raises(UsageError, match="is a citation"):
        read_section(kn, doc, line_start=1)


def test_a_citation_naming_two_sections_neither_holding_its_lines_is_refused(repo):
    """`边界 > 注意事项` names two sections (lines 15 and 19), lines 7-9 lie in another: its
    lines were read (another section's text, under a citation of a 注意事项; an edit moved
    them since the citation was given). Refused naming both, as `evaluate_table` refuses a
    heading path naming several sections (session 39)."""
    with pytest.raises(KbError, match=r"^'边界 > 注意事项' names 2 sections of knowledge/edge\.md "
                       r"\(lines 15-\d+; lines 19-\d+\), none holding lines 7-9: "):
        read_section(open_knowledge(repo), "knowledge/edge.md:7-9 § 边界 > 注意事项")


def test_a_long_heading_path_not_found_is_quoted_short(repo):
    """The error quoted a 100,000-heading path whole: the one line an agent reads (500
    characters) ended inside the quote, so the sections it could read were never listed."""
    with pytest.raises(KbError) as info:
        read_section(open_knowledge(repo), "knowledge/edge.md", ["x"] * 100_000)
    message = info.value.message
    assert message.startswith("no section 'x > x > ") and len(message) < 500, message[:600]
    assert message.endswith("(sections: 边界; 边界 > Temperature < 10 °C or > 30 °C; 边界 > Vec 与 "
                            "Option<u8> 类型说明; 边界 > 注意事项; 边界 > 注意事项; 甲; 甲 > 乙; 丙; "
                            "丙 > 甲 > 乙)")


ACCENTED = """---
title: Réglage
---

# Réglage

## 2. Réglage du débit

Le débit se règle avec la buse 03.

## ３．全角标题 ＡＢＣ

全角标题下的内容。
"""


def _nfd(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFD", text)


@pytest.mark.parametrize("doc,heading,line", [
    ("knowledge/fr.md#" + _nfd("2-réglage-du-débit"), None, 7),  # a link copied on macOS
    ("knowledge/fr.md#2-re%CC%81glage-du-de%CC%81bit", None, 7),  # the same, URL-escaped
    ("knowledge/fr.md#2-r%C3%A9glage-du-d%C3%A9bit", None, 7),  # composed (worked before)
    ("knowledge/fr.md#3全角标题-abc", None, 11),  # typed in half-width
    ("knowledge/fr.md#３全角标题-ａｂｃ", None, 11),  # GitHub's own anchor (worked before)
    ("knowledge/fr.md", _nfd("Réglage > 2. Réglage du débit"), 7),  # guards: heading paths
    ("knowledge/fr.md", "3.全角标题　ABC", 11),  # full-width space, half-width letters
    ("knowledge/fr.md", ["Réglage", _nfd("2. Réglage du débit")], 7),
])
def test_a_section_is_named_however_its_unicode_is_composed(repo, doc, heading, line):
    """A search returns heading paths composed (NFC); a link arrived decomposed (NFD: `é`
    as e + U+0301, as macOS writes names) or typed in half-width for a full-width heading,
    and was refused as naming no heading, although its anchor was listed in the error
    (the same letters, composed). An anchor now names its heading as a heading path does:
    composed, then compared as heading paths are (width, spaces, case), exact first."""
    (repo / "knowledge" / "fr.md").write_text(ACCENTED, encoding="utf-8")
    sec = read_section(open_knowledge(repo), doc, heading)
    assert (sec.doc, sec.line_start) == ("knowledge/fr.md", line)


@pytest.mark.parametrize("name,asked", [
    ("réglage.md", _nfd("knowledge/réglage.md")),  # an NFC file named decomposed (macOS)
    ("réglage.md", _nfd("réglage.md § Réglage > 2. Réglage du débit")),  # in a citation
    (_nfd("réglage.md"), "knowledge/réglage.md"),  # an NFD file (Linux keeps both)
])
def test_a_document_is_found_however_its_name_is_composed(repo, name, asked):
    """A search cites `knowledge/réglage.md` composed; passed back decomposed (NFD, as a
    macOS client writes it) it was "no such document", the same name listed beside it."""
    (repo / "knowledge" / name).write_text(ACCENTED, encoding="utf-8")
    sec = read_section(open_knowledge(repo), asked)
    assert sec.doc == f"knowledge/{name}" and sec.line_start == (5 if "§" not in asked else 7)
