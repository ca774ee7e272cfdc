"""kbtools.markdown.doctree: the document tree, its line numbers and the helpers other stages use."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.build.xref import HeadingIndex, find_links, section_number
from kbtools.corpus import parse_source, read_doc
from kbtools.markdown.doctree import (
    Code,
    Html,
    ListBlock,
    MathBlock,
    Paragraph,
    Quote,
    Table,
    parse,
)
from kbtools.markdown.mermaid import mermaid_graph
from kbtools.markdown.parser import slugify

FIX = Path(__file__).parent / "fixtures" / "chunk"


def doc_of(text: str, rel: str = "k/doc.md"):
    return parse(parse_source(text, Path("/tmp") / rel, rel))


@pytest.fixture(scope="module")
def rich():
    return parse(read_doc(FIX / "rich.md", FIX))


def test_line_numbers_count_front_matter(rich):
    lines = (FIX / "rich.md").read_text(encoding="utf-8").split("\n")
    for path, heading in rich.headings():
        assert lines[heading.line_start - 1].lstrip("#").strip() == path[-1]
    assert [h.line_start for _, h in rich.headings()][:3] == [9, 11, 15]


def test_title_and_heading_paths(rich):
    assert rich.title == "喷雾机维护手册 Sprayer Manual"
    paths = [p for p, _ in rich.headings()]
    assert ("喷雾机维护手册 Sprayer Manual", "3 故障处理", "3.2 故障码表") in paths
    assert rich.meta["category"] == "equipment"
    preamble = rich.root.blocks
    assert isinstance(preamble[0], Paragraph) and preamble[0].line_start == 7


def test_tables_api_for_decision_tables(rich):
    (table,) = list(rich.tables())
    assert isinstance(table, Table)
    assert table.header == ("故障码", "含义", "处理")
    assert table.rows[0] == ("E17", "喷头堵塞", "清洗喷头后按【复位】键")
    assert table.rows[2][1] == "电压异常 低于 10 V"  # <br> becomes a space
    assert table.row_lines == (41, 42, 43)
    assert (table.line_start, table.line_end, table.header_line) == (39, 43, 39)
    assert table.heading_path[-1] == "3.2 故障码表"
    assert table.annotations == {"csv": "hx3-fault-codes.csv"}
    assert table.index == 1


def test_annotations_only_from_comments_directly_before():
    d = doc_of("<!-- csv: a.csv -->\n<!-- decision: inputs=x; outputs=y -->\n| x | y |\n|---|---|\n"
               "| 1 | 2 |\n\npara\n\n| p |\n|---|\n| q |\n")
    t1, t2 = list(d.tables())
    assert t1.annotations == {"csv": "a.csv", "decision": "inputs=x; outputs=y"}
    assert t2.annotations == {} and t2.index == 2


def test_lists_nested_ordered_and_tasks(rich):
    lists = [b for _, b in rich.blocks() if isinstance(b, ListBlock)]
    steps = lists[0]
    assert steps.ordered and [i.number for i in steps.items] == [1, 2, 3]
    first = steps.items[0]
    assert (first.line_start, first.line_end) == (19, 21)
    assert any(isinstance(c, ListBlock) and len(c.items) == 2 for c in first.children)
    tasks = [lst for lst in lists if any(i.checked is not None for i in lst.items)][0]
    assert [i.checked for i in tasks.items] == [True, False]


def test_math_code_mermaid_images_quote(rich):
    maths = list(rich.formulas())
    display = [m for m in maths if m.display]
    assert display[0].label == "eq-flow" and "\\sqrt" in display[0].latex
    assert (display[0].line_start, display[0].line_end) == (49, 51)
    assert display[1].latex == "Q = n \\times q"  # ```math fence
    assert {m.latex for m in maths if not m.display} == {"k", "P_0"}
    codes = [b for _, b in rich.blocks() if isinstance(b, Code)]
    assert [c.language for c in codes] == ["python", "mermaid"]
    images = list(rich.images())
    assert [(i.alt, i.title, i.src) for i in images] == [
        ("喷杆结构图", "HX-3 喷杆", "../assets/boom.png"), ("控制面板", "", "../assets/panel.png")]
    assert images[0].line == 85
    assert any(isinstance(b, Quote) for _, b in rich.blocks())
    assert any(isinstance(b, MathBlock) for _, b in rich.blocks())


def test_no_front_matter_and_cr_characters():
    d = doc_of("# A\r\n\r\ntext\rmore\n")
    assert d.title == "A"
    assert d.root.sections[0].line_start == 1
    d2 = doc_of("plain text only")
    assert d2.title == "doc" and d2.root.line_end == 1


def test_dollar_amounts_are_not_math():
    d = doc_of("It costs $5 and $6, or $ 7 to $ 8.\n\nInline $x^2$ is math.\n")
    assert [m.latex for m in d.formulas()] == ["x^2"]


def test_a_dollar_inside_a_code_span_closes_no_formula():
    """`$10 ... `$HOME`` is text and a code span (code spans bind tighter than math); math
    before or after code spans, and a lone backtick inside math, still read as math."""
    d = doc_of("Costs $10 a month; set `$HOME` and `$PATH`.\n\n"
               "Inline $x^2$ and `a$b`, then $y$ with ``$z``.\n\nAccent $a`b$ here.\n")
    assert [m.latex for m in d.formulas()] == ["x^2", "y", "a`b"]
    assert d.root.blocks[0].inline.text == "Costs $10 a month; set $HOME and $PATH."


def test_formulas_and_images_of_headings_are_the_documents():
    """`kb check` reads a heading's `$\\beta$` and image; the build renders and ships what
    `formulas()` and `images()` list, so a heading's were never rendered nor shipped."""
    d = doc_of("# 回归 $y = \\beta x$\n\n正文 $a$。\n\n## ![图标](../assets/i.png) 3.2 $\\beta$ 系数\n\n"
               "$$\nb = 1\n$$\n")
    assert [(m.latex, m.line_start) for m in d.formulas()] == [
        ("y = \\beta x", 1), ("a", 3), ("\\beta", 5), ("b = 1", 7)]
    assert [(i.src, i.line) for i in d.images()] == [("../assets/i.png", 5)]


def test_html_comment_is_annotation_block():
    d = doc_of("<!-- note: keep -->\n\ntext\n")
    html = d.root.blocks[0]
    assert isinstance(html, Html) and html.is_comment and html.annotations == {"note": "keep"}


def test_section_number_and_slug():
    assert section_number("4.3 药剂选择") == "4.3"
    assert section_number("4.3. Foo") == "4.3"
    assert section_number("第5章 施药") == "5"
    assert section_number("2026 年计划") == "2026"
    assert section_number("药剂 4.3") == ""
    assert slugify("1.2 安全联锁") == "12-安全联锁"
    assert slugify("How often? (EN)") == "how-often-en"


def test_mermaid_graph_flowchart_and_sequence():
    nodes, edges = mermaid_graph("graph TD\n A[卵] --> B(幼虫)\n B -->|化蛹| C{蛹}\n C -- 羽化 --> D\n")
    assert nodes == ("卵", "幼虫", "蛹", "D")
    assert edges == (("卵", "幼虫", ""), ("幼虫", "蛹", "化蛹"), ("蛹", "D", "羽化"))
    _, seq = mermaid_graph("sequenceDiagram\n 设备->>服务器: 上报 E17\n 服务器-->>设备: 复位\n")
    assert seq == (("设备", "服务器", "上报 E17"), ("服务器", "设备", "复位"))


def test_a_mermaid_diagram_s_type_and_settings_are_no_nodes():
    """A mind map, Gantt chart or pie chart (Obsidian draws them all from ```mermaid): the
    line declaring the type (`mindmap`, `gantt`, `pie title 故障占比`) and a Gantt chart's
    `section`/`dateFormat` lines were read as nodes named `mindmap`, `gantt`, `pie`,
    `section`, `dateFormat`, embedded with the diagram's text."""
    nodes, edges = mermaid_graph("mindmap\n  root((水泵))\n    维护\n      日常检查\n    故障\n")
    assert (nodes, edges) == (("水泵", "维护", "日常检查", "故障"), ())
    nodes, _ = mermaid_graph("gantt\n  title 检修计划\n  dateFormat YYYY-MM-DD\n"
                             "  section 准备\n  断电 :a1, 2024-01-01, 1d\n")
    assert nodes == ("准备", "断电")  # the section's name, never the word `section`
    assert mermaid_graph('pie title 故障占比\n  "过流" : 40\n') == ((), ())
    nodes, edges = mermaid_graph("flowchart LR\n  section1[断面] --> B[测点]\n")
    assert edges == (("断面", "测点", ""),)
    # after a settings block and a directive; a later node named as a type is a node
    nodes, _ = mermaid_graph("---\ntitle: 保养\n---\n%%{init: {}}%%\nmindmap\n  root((泵))\n"
                             "    timeline\n")
    assert nodes == ("泵", "timeline")


def test_links_resolve_across_documents():
    docs = [read_doc(p, FIX) for p in sorted(FIX.rglob("*.md"))]
    index = HeadingIndex.build(docs)
    ch01 = parse(read_doc(FIX / "manual" / "ch01-safety.md", FIX))
    links = find_links("故障处理见 4.4 节。", 14, ch01, index)
    assert [(lk.doc, lk.heading_path[-1], lk.line) for lk in links] == [
        ("manual/ch04-faults.md", "4.4 油温过高", 14)]
    rich = parse(read_doc(FIX / "rich.md", FIX))
    text = "参考 [安全须知](manual/ch01-safety.md#12-安全联锁)，另见《HX 手册第 1 章》第 1.2 节。"
    got = find_links(text, 1, rich, index)
    assert [(lk.doc, lk.heading_path[-1]) for lk in got] == [
        ("manual/ch01-safety.md", "1.2 安全联锁"), ("manual/ch01-safety.md", "1.2 安全联锁")]


def test_links_skip_external_and_counted_nouns():
    d = doc_of("# 1 A\n\n## 1.1 B\n")
    index = HeadingIndex.build([d])
    text = "see [site](https://x.org/a.md) and ![i](a.png); 买 3 节电池; 见 9.9 节; Section 1.1"
    links = find_links(text, 1, d, index)
    assert [(lk.text, lk.doc) for lk in links] == [("见 9.9 节", ""), ("Section 1.1", "k/doc.md")]
    assert links[1].heading_path == ("1 A", "1.1 B")


def test_links_in_traditional_script():
    d = doc_of("# 1 總則\n\n## 1.1 範圍\n\n## 1.2 定義\n")
    index = HeadingIndex.build([d])
    text = "買 3 節電池；詳見 1.2 節，另參見第 1.1 節。"
    links = find_links(text, 1, d, index)
    assert [(lk.text, lk.heading_path[-1]) for lk in links] == [
        ("詳見 1.2 節", "1.2 定義"), ("參見第 1.1 節", "1.1 範圍")]


MD_PIECES = st.sampled_from([
    "# H\n", "## 二级\n", "text 中文。\n", "- a\n  - b\n", "1. x\n2. y\n", "| a | b |\n|--|--|\n| 1 | 2 |\n",
    "```\ncode\n", "```\n", "$$\nx\n$$\n", "$x$ $", "<!-- c: d -->\n", "<div>\n", "> q\n", "\n", "\r",
    "![a](b.png)", "[l](#x)", "---\n", "    indented\n", "{{< copyable \"sql\" >}}\n", "\t", "\x00",
])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(MD_PIECES, st.text(max_size=20)), max_size=30))
def test_parse_never_raises_and_lines_stay_in_file(pieces):
    text = "".join(pieces)
    src = parse_source(text.replace("\r", "\n"), Path("/tmp/x.md"), "x.md")
    d = parse(src)
    n = len(src.text.split("\n"))
    for _, block in d.blocks():
        assert src.body_line <= block.line_start <= block.line_end <= n
