"""Setext headings (a line underlined with `====` or `----`) in chunk text and context.

A setext heading's underline is markup, as an ATX heading's `#`s would be if the page showed
them: the page shows the heading's words alone. It was in every section chunk's text and
embedding (`泵的维护\\n========`), and a formula's or code block's line before skipped the
heading it stands under (the underline holds no word) where an ATX heading is taken, so the
same document written with setext headings cited and embedded otherwise."""

from __future__ import annotations

from pathlib import Path

from kbtools.build.chunk import chunk_document
from kbtools.corpus import parse_source
from tests.kbfixtures import GOOD_FM
from tests.test_chunk import check_invariants

REL = "knowledge/t/setext.md"
BODY_LINE = GOOD_FM.count("\n") + 1

SETEXT = ("泵的维护\n========\n\n第一段文字，说明泵的日常保养。\n\n日常检查\n--------\n\n"
          "每天检查油位。\n\n"
          "- 列表项标题\n  ---\n  列表项正文。\n- 第二项\n\n"
          "> 引用里的标题\n> ====\n> 引用正文。\n\n"
          "Torque limits\n---\n$$\nT = F \\cdot r\n$$\nTighten in a cross pattern.\n")
ATX = ("# 泵的维护\n\n第一段文字，说明泵的日常保养。\n\n## 日常检查\n\n每天检查油位。\n\n"
       "## Torque limits\n$$\nT = F \\cdot r\n$$\nTighten in a cross pattern.\n")


def _chunks(body: str):
    src = parse_source(GOOD_FM + body, Path("/r") / REL, REL)
    chunks = chunk_document(src)
    check_invariants(src, chunks)
    return chunks


def _line(body: str, text: str) -> int:
    [n] = [i for i, line in enumerate(body.split("\n")) if line == text]
    return BODY_LINE + n


def test_setext_underlines_are_no_chunk_text():
    chunks = _chunks(SETEXT)
    for c in chunks:
        for line in c.text.split("\n") + c.embed_text.split("\n"):
            assert line.strip(" >") not in ("========", "--------", "---", "===="), (c.kind, c.text)
    [section] = [c for c in chunks if c.kind == "section"]
    assert section.text.startswith("泵的维护\n\n第一段文字")
    assert "日常检查\n\n每天检查油位。" in section.text
    assert "> 引用里的标题\n> 引用正文。" in section.text
    # the citation still spans the lines as written, underlines included
    assert (section.line_start, section.line_end) == (BODY_LINE, BODY_LINE + SETEXT.count("\n") - 1)
    [item] = [c for c in chunks if c.kind == "list_item" and "列表项标题" in c.text]
    assert item.text == "- 列表项标题\n  列表项正文。"
    assert (item.line_start, item.line_end) == (_line(SETEXT, "- 列表项标题"),
                                                _line(SETEXT, "  列表项正文。"))


def test_a_formula_under_a_setext_heading_has_it_as_its_line_before_as_under_an_atx_one():
    [setext] = [c for c in _chunks(SETEXT) if c.kind == "formula"]
    [atx] = [c for c in _chunks(ATX) if c.kind == "formula"]
    assert setext.text == "Torque limits\n$$\nT = F \\cdot r\n$$\nTighten in a cross pattern."
    assert atx.text == f"## {setext.text}"
    assert setext.line_start == _line(SETEXT, "Torque limits")
    assert setext.line_end == _line(SETEXT, "Tighten in a cross pattern.")
