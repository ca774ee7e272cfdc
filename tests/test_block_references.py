"""Obsidian block references (`[[note#^id]]`, `![[note#^id]]`, `[x](note.md#^id)`) as `kb
check` names them (`kbtools.check.blocks`): GitHub's page gives a block no anchor, so the finding
says where the block is and gives the link to the heading it stands under; a reference to a
block the note lacks, or to a note that does not exist, says so. Before, every wikilink to
a block said only "write a standard link to the document or one of its headings", whether
or not the note or the block existed, and a standard link to a block said "link the
heading above the block" without naming it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.check.blocks import block_ids
from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")  # the body starts on line FM_LINES + 1

# a note with block ids ending a paragraph, a list item, a heading, and on a line of its
# own below a table, and one in code (no block id)
RULES = """# 防治总则

预防为主，综合防治。 ^rule1

## 药剂选择

- 优先选用低毒药剂 ^low-tox
- 轮换使用

| 药剂 | 用量 |
|---|---|
| 多菌灵 | 50 g |

^dose-table

## 安全间隔期 ^interval

```
不是块 ^in-code
```
"""
PUMP = """# Pump manual

Stop the pump above 3 drops a minute. ^leak-rule

## Seal replacement

Replace the seal every 2000 hours.
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "病害" / "总则").mkdir(parents=True)
    (tmp_path / "knowledge" / "en").mkdir(parents=True)
    (tmp_path / "assets").mkdir()
    (tmp_path / "knowledge" / "病害" / "总则" / "防治 总则.md").write_text(
        GOOD_FM + RULES, encoding="utf-8")
    (tmp_path / "knowledge" / "en" / "pump.md").write_text(GOOD_FM + PUMP, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def findings(repo: Path, rel: str, body: str) -> list[tuple[int, int, str, str]]:
    """(line, col, code, message) of each finding `kb check` prints for the document `rel`
    written as `body` (the settings advice ending a wikilink's message left out)."""
    (repo / rel).write_text(GOOD_FM + body, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--no-cache", rel])
    out = []
    for line in result.stdout.splitlines():
        where, _, rest = line.partition(": error: ")
        _, row, col = where.rsplit(":", 2)
        code, _, message = rest.partition(": ")
        out.append((int(row), int(col), code, message.split(" (so that Obsidian")[0]))
    return out


def line_of(text: str, needle: str) -> int:
    """The file line of the body line of `text` holding `needle`."""
    [n] = [i for i, line in enumerate(text.split("\n")) if needle in line]
    return FM_LINES + 1 + n


NOTE = "knowledge/病害/总则/防治 总则.md"


@pytest.mark.parametrize(("written", "block", "heading", "link"), [
    ("[[防治 总则#^rule1]]", "rule1", "防治总则",
     "[防治 总则 > 防治总则](../病害/总则/防治%20总则.md#防治总则)"),
    ("[[防治 总则#^low-tox|低毒]]", "low-tox", "药剂选择",
     "[低毒](../病害/总则/防治%20总则.md#药剂选择)"),
    ("![[防治 总则#^dose-table]]", "dose-table", "药剂选择",
     "[防治 总则 > 药剂选择](../病害/总则/防治%20总则.md#药剂选择)"),
    ("[[../病害/总则/防治 总则#^interval]]", "interval", "安全间隔期",
     "[../病害/总则/防治 总则 > 安全间隔期](../病害/总则/防治%20总则.md#安全间隔期)"),
])
def test_a_wikilink_to_a_block_names_the_heading_it_stands_under(repo, written, block,
                                                                  heading, link):
    found = findings(repo, "knowledge/en/a.md", f"# A\n\n见 {written}。\n")
    at = line_of(RULES, f"^{block}")
    assert found == [(FM_LINES + 3, 3, "link-wikilink", (
        f"Obsidian {'embed' if written[0] == '!' else 'wikilink'} '{written}' is plain text "
        f"to kbtools ({'nothing is embedded' if written[0] == '!' else 'the link is not followed or checked'}); "
        "a block reference (#^…) has no Markdown equivalent, and GitHub's page gives a block no "
        f"anchor; the block (line {at} of {NOTE}) stands under the heading '{heading}': "
        f"write '{link}'"))]


def test_a_block_of_the_same_document_and_an_english_note(repo):
    body = ("# Notes\n\nCheck the seal. ^seal-check\n\n## Links\n\n"
            "See [[#^seal-check]] and [[pump#^leak-rule|the leak rule]].\n")
    found = findings(repo, "knowledge/en/notes.md", body)
    assert [(code, message.split("; ", 2)[2]) for _, _, code, message in found] == [
        ("link-wikilink", f"the block (line {line_of(body, 'seal. ^seal-check')} of this document) "
         "stands under the heading 'Notes': write '[Notes](#notes)'"),
        ("link-wikilink", f"the block (line {line_of(PUMP, '^leak-rule')} of knowledge/en/"
         "pump.md) stands under the heading 'Pump manual': write "
         "'[the leak rule](pump.md#pump-manual)'")]


def test_a_block_the_note_lacks_or_a_note_that_does_not_exist_is_named(repo):
    """A block id in code is none; a near miss is suggested; a note no file is: no file."""
    text = "[[防治 总则#^in-code]] [[pump#^leak-rul]] [[无此文#^x]] [Leak](pump.md#^leak_rule)"
    found = findings(repo, "knowledge/en/b.md", f"# B\n\n{text}\n")
    col = [text.index(x) + 1 for x in ("[[防", "[[pump", "[[无", "pump.md")]
    assert [(col, code, message.split("; ", 1)[1]) for _, col, code, message in found] == [
        (col[0], "link-wikilink", "a block reference (#^…) has no Markdown equivalent, and GitHub's page "
         f"gives a block no anchor; {NOTE} has no block '^in-code': write a standard link to "
         "the note or one of its headings"),
        (col[1], "link-wikilink", "a block reference (#^…) has no Markdown equivalent, and GitHub's page "
         "gives a block no anchor; knowledge/en/pump.md has no block '^leak-rul' (did you mean "
         "'^leak-rule'?): write a standard link to the note or one of its headings"),
        (col[2], "link-wikilink", "no file '无此文' in knowledge/ or assets/: write a standard "
         "relative link to an existing file"),
        (col[3], "link-anchor", "'#^leak_rule' is an Obsidian block reference, and GitHub's page gives a "
         "block no anchor; knowledge/en/pump.md has no block '^leak_rule' (did you mean "
         "'^leak-rule'?): link a heading of it (or the document)")]


def test_a_standard_link_to_a_block_names_its_heading_and_fix_leaves_it(repo):
    """What Obsidian writes with wikilinks off (`[x](note.md#^id)`): `--fix` writes no
    section link in place of a block's (the author's call), the finding names it."""
    text = "[先防](../病害/总则/防治%20总则.md#^rule1) [x](pump.md#^leak-rule)"
    body = f"# C\n\n{text}\n"
    found = findings(repo, "knowledge/en/c.md", body)
    assert [(col, message.split("; ", 2)[2]) for _, col, _, message in found] == [
        (text.index("../") + 1, f"the block (line {line_of(RULES, '^rule1')} of {NOTE}) stands under the "
         "heading '防治总则': link '#防治总则'"),
        (text.index("pump.md") + 1, f"the block (line {line_of(PUMP, '^leak-rule')} of knowledge/en/pump.md) "
         "stands under the heading 'Pump manual': link '#pump-manual'")]
    result = CliRunner().invoke(main, ["check", "--no-cache", "--fix", "knowledge/en/c.md"])
    assert "fixed:" not in result.stderr
    assert (repo / "knowledge/en/c.md").read_text(encoding="utf-8") == GOOD_FM + body


def test_the_finding_follows_the_note_when_the_block_moves(repo):
    """The finding is made from the note's text, never kept with the linking document's
    cached results: the block moved under another heading is named there."""
    body = "# D\n\n[[pump#^leak-rule]]\n"
    (repo / "knowledge/en/d.md").write_text(GOOD_FM + body, encoding="utf-8")
    run = ["check", "knowledge/en/d.md"]  # with the results cache
    assert "'Pump manual'" in CliRunner().invoke(main, run).stdout
    moved = PUMP.replace(" ^leak-rule", "") + "\nLeaks over 3 drops stop it. ^leak-rule\n"
    (repo / "knowledge/en/pump.md").write_text(GOOD_FM + moved, encoding="utf-8")
    again = CliRunner().invoke(main, run).stdout
    assert f"(line {line_of(moved, '^leak-rule')} of knowledge/en/pump.md) stands under the " \
        "heading 'Seal replacement': write '[pump > Seal replacement](pump.md#seal-replacement)'" \
        in again


def test_block_ids_are_read_where_obsidian_reads_them():
    body = ("# H ^top\n\npara ^p1\n\n- item ^i1\n\n> quote ^q1\n\n| a |\n|---|\n| c ^cell |\n\n"
            "^t1\n\n```\ncode ^c1\n```\n\nx^notid and $a ^b$\n\n2^10\n")
    assert block_ids(body, 1) == {"top": 1, "p1": 3, "i1": 5, "q1": 7, "t1": 13}


# A block id on the line right below its block (no blank line between: Markdown reads it as
# the block's last line), as Obsidian reads it: the id of a callout, quote or list ending
# there, or of a paragraph. Chunk text, the page and `kb check` showed or missed it.
UNDER = """# 设备保养

> [!note] 注意
> - 轴承每月加油
> - 密封每季检查
^maintenance-note

停机前先泄压。
^release-first

- Check the oil level
- Drain the condensate
^daily-list

**Torque**
^torque-id
"""


def _under_src():
    from kbtools.corpus import parse_source

    return parse_source(GOOD_FM + UNDER, Path("/r/knowledge/t/u.md"), "knowledge/t/u.md")


def test_a_block_id_on_the_line_below_its_block_is_no_text():
    from kbtools.build.chunk import chunk_document
    from kbtools.serve.docview import render_markdown
    from kbtools.serve.passes import RenderContext

    chunks = chunk_document(_under_src())
    assert chunks and all("^" not in c.text and "^" not in c.embed_text for c in chunks)
    section = chunks[0].text
    assert "> - 密封每季检查\n\n停机前先泄压。\n\n- Check the oil level" in section, section
    html = render_markdown(UNDER, RenderContext(doc="knowledge/t/u.md"))
    anchors = re.findall(r' id="\^([\w-]+)"', html)  # each block's anchor, no text
    assert "^" not in re.sub(r' id="\^[\w-]+"', "", html), html
    assert anchors == ["maintenance-note", "release-first", "daily-list", "torque-id"]
    assert "密封每季检查" in html and "<strong>Torque</strong>" in html
    # the line of the callout and of the list an id below them names
    assert block_ids(UNDER, 1) == {"maintenance-note": 3, "release-first": 8,
                                   "daily-list": 11, "torque-id": 15}


def test_a_link_to_a_block_id_below_its_block_is_named_with_its_heading(repo):
    (repo / "knowledge/en/care.md").write_text(GOOD_FM + UNDER, encoding="utf-8")
    found = findings(repo, "knowledge/en/e.md", "# E\n\n[[care#^maintenance-note]]\n")
    assert found[0][3].endswith(
        f"the block (line {FM_LINES + 3} of knowledge/en/care.md) stands under the heading "
        "'设备保养': write '[care > 设备保养](care.md#设备保养)'")


def test_a_block_above_every_heading_and_a_picture_named_with_a_block(repo):
    """A block before the first heading is linked by the note without an anchor; a block
    reference to a file that is no note (a picture's name) says what it said before."""
    (repo / "assets" / "pump.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    body = "Read this first. ^intro\n\n# F\n\n[[#^intro]] [[pump.png#^x]]\n"
    found = findings(repo, "knowledge/en/f.md", body)
    assert [message.split("; ", 1)[1] for _, _, _, message in found] == [
        "a block reference (#^…) has no Markdown equivalent, and GitHub's page gives a block no "
        f"anchor; the block (line {FM_LINES + 1} of this document) stands under no heading: "
        "write '[f](f.md)'",
        "a block reference (#^…) has no Markdown equivalent: write a standard link to the "
        "document or one of its headings"]


def test_a_chunk_s_link_to_a_block_names_the_heading_it_stands_under():
    """A standard link to a block (`[x](rules.md#^low-tox)`, `[x](#^own)`) resolved to the
    document alone, with no heading: its chunk's links did not say what the passage refers
    to. It names the heading the block stands under (the anchor a page opens), whether the
    id ends a paragraph, an item or a heading, or stands below a table; one the note lacks
    names the document alone, as before."""
    from kbtools.build.chunk import HeadingIndex, chunk_document
    from kbtools.corpus import parse_source

    rules = parse_source(GOOD_FM + RULES, Path("/r/knowledge/病害/rules.md"),
                         "knowledge/病害/rules.md")
    body = ("# 用药记录\n\n按[总则](rules.md#^rule1)、[低毒](rules.md#^LOW-TOX)、"
            "[用量表](rules.md#^dose-table)、[间隔期](rules.md#^interval)、"
            "[没有的块](rules.md#^nothing)与[本文](#^own)执行。\n\n"
            "## 记录 2024\n\n三月喷药一次。 ^own\n")
    notes = parse_source(GOOD_FM + body, Path("/r/knowledge/病害/notes.md"),
                         "knowledge/病害/notes.md")
    index = HeadingIndex.build([rules, notes])
    [section] = [c for c in chunk_document(notes, resolver=index) if c.kind == "section"]
    assert [(lk.doc, lk.heading_path, lk.anchor) for lk in section.links] == [
        ("knowledge/病害/rules.md", ("防治总则",), "防治总则"),
        ("knowledge/病害/rules.md", ("防治总则", "药剂选择"), "药剂选择"),
        ("knowledge/病害/rules.md", ("防治总则", "药剂选择"), "药剂选择"),
        ("knowledge/病害/rules.md", ("防治总则", "安全间隔期"), "安全间隔期"),
        ("knowledge/病害/rules.md", (), ""),
        ("knowledge/病害/notes.md", ("用药记录", "记录 2024"), "记录-2024")]
    assert all(lk.line == FM_LINES + 3 for lk in section.links)
    assert section.text.endswith("三月喷药一次。") and section.embed_text.endswith("三月喷药一次。")
