"""Titles in chunk text (setext headings, the titles of folded boxes), and editor markup
on tab-indented list lines.

Setext headings (a line underlined with `====` or `----`) in chunk text and context.

A setext heading's underline is markup, as an ATX heading's `#`s would be if the page showed
them: the page shows the heading's words alone. It was in every section chunk's text and
embedding (`泵的维护\\n========`), and a formula's or code block's line before skipped the
heading it stands under (the underline holds no word) where an ATX heading is taken, so the
same document written with setext headings cited and embedded otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtools.build.chunk import ChunkConfig, chunk_document
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


def _chunks(body: str, cfg: ChunkConfig | None = None):
    src = parse_source(GOOD_FM + body, Path("/r") / REL, REL)
    chunks = chunk_document(src, cfg)
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


# a long section: a paragraph, then a folded box (Typora's and GitHub's `<details>`) whose
# title is all a reader sees of it until it is opened, then the steps inside it
NOISE = "水泵运行中出现异常噪声或振动时，应先记录现象、时间和运行参数，再停机检查。"
BOX = ("# 故障处理\n\n{}\n\n<details>\n<summary>F-07 过流故障排查步骤</summary>\n\n"
       "1. 断电并挂牌，确认电机接线端无电压后再打开接线盒。\n"
       "2. 用兆欧表测量绕组绝缘电阻，低于 0.5 MΩ 时更换电机。\n"
       "3. 检查叶轮是否卡滞，清除异物后手动盘车确认转动灵活。\n"
       "4. 复查电源电压和缺相保护，三相不平衡超过 5% 时联系电工。\n\n</details>\n")
SIZES = ChunkConfig(target_chars=120, max_chars=200, min_chars=30, overlap_chars=30)


@pytest.mark.parametrize("before", [NOISE * 2, NOISE])  # the title alone; the title last
def test_a_folded_box_s_title_is_never_cut_from_what_it_folds(before: str):
    """A long section was cut right after a `<details><summary>` line: its title ended
    the chunk before (or was a chunk of its own), and the steps it titles began the next
    chunk without it, so a search for "F-07 过流" found a chunk with no step in it. The
    title goes with the box's text, as a heading does."""
    body = BOX.format(before)
    sections = [c for c in _chunks(body, SIZES) if c.kind == "section"]
    assert len(sections) > 1
    [titled] = [c for c in sections if "F-07 过流故障排查步骤" in c.text]
    assert titled.text.startswith("F-07 过流故障排查步骤\n\n1. 断电并挂牌"), titled.text
    assert titled.line_start == _line(body, "<summary>F-07 过流故障排查步骤</summary>")
    assert all(not c.text.endswith("排查步骤") for c in sections)


def test_markup_on_tab_indented_list_lines_is_hidden_as_on_space_indented_ones():
    """Guard (found right): a list mixing tab- and space-indented items, as a Windows editor
    and Obsidian write them together. markdown-it expands a tab when it reads the item, so
    hidden markup there is located on the line as written: highlights, block ids, HTML
    tags, Obsidian comments, entities and footnote marks are no text on either kind of line,
    and each item's citation names its own lines."""
    body = ("# 清单\n\n- 第一项，说明文字比较长一些以便成为一个列表项\n"
            "\t- 子项 ==重点== 说明，超过二十个字符的一行文字 ^blk1\n"
            "\t- <b>粗体</b>文字 %%备注%% 与 &amp; 实体，超过二十个字符\n"
            "\t\t1. 三级[^1]脚注，超过二十个字符的一行文字\n"
            "- 第二项，说明文字比较长一些以便成为一个列表项\n"
            "    - 空格子项 ==高亮== 文字 ^blk2\n\n[^1]: 脚注内容\n")
    items = [c for c in _chunks(body) if c.kind == "list_item"]
    assert [(c.line_start, c.line_end) for c in items] == [
        (_line(body, "- 第一项，说明文字比较长一些以便成为一个列表项"),
         _line(body, "\t\t1. 三级[^1]脚注，超过二十个字符的一行文字")),
        (_line(body, "- 第二项，说明文字比较长一些以便成为一个列表项"),
         _line(body, "    - 空格子项 ==高亮== 文字 ^blk2"))]
    assert items[0].text == ("- 第一项，说明文字比较长一些以便成为一个列表项\n"
                             "\t- 子项 重点 说明，超过二十个字符的一行文字\n"
                             "\t- 粗体文字  与 & 实体，超过二十个字符\n"
                             "\t\t1. 三级脚注，超过二十个字符的一行文字")
    assert items[1].text.endswith("    - 空格子项 高亮 文字")
