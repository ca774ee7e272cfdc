"""A heading made of a formula (`## $E=mc^2$`, `### 防效 $\\frac{n}{N} \\times 100\\%$`) is named
as the formula reads (`E=mc²`, `防效 n/N × 100%`) in heading paths, citations and `kb read`,
as a formula's picture is said (`formula_words`): its raw TeX was the name agents cited and
a reader saw. Its anchor stays the one its LaTeX makes (`#emc2`), so links keep working.
"""

from __future__ import annotations

from pathlib import Path

from kbtools.agents.read import find_section
from kbtools.build.chunk import chunk_document
from kbtools.build.xref import HeadingIndex
from kbtools.check.engine import check_document, make_context
from kbtools.config import load_config
from kbtools.corpus import parse_source
from kbtools.markdown.doctree import parse
from kbtools.markdown.frontend import scan
from kbtools.markdown.parser import parse_tokens
from kbtools.serve.editors import table_of_contents
from kbtools.serve.headings import anchor_headings
from tests.kbfixtures import GOOD_FM
from tests.test_chunk import SMALL, check_invariants

REL = "knowledge/t/physics.md"
PARA = "质能方程说明质量与能量可以相互转换，计算时注意单位统一，光速取国际单位制的数值。\n\n"
BODY = ("# 公式\n\n" + PARA + "## $E=mc^2$\n\n" + PARA
        + "## 防效 $\\frac{n}{N} \\times 100\\%$ 的计算\n\n" + PARA
        + "## $$\\alpha_1 \\le 5$$\n\n" + PARA
        + "[TOC]\n\n[质能](#emc2) [防效](#防效-fracnn-times-100-的计算)\n")


def _doc(body: str = BODY):
    return parse_source(GOOD_FM + body, Path("/r") / REL, REL)


def test_heading_paths_read_formulas_as_they_read():
    src = _doc()
    paths = [s.heading_path for s in parse(src).sections()]
    assert ("公式", "E=mc²") in paths
    assert ("公式", "防效 n/N × 100% 的计算") in paths
    assert ("公式", "α₁ ≤ 5") in paths
    chunks = chunk_document(src, SMALL)
    check_invariants(src, chunks)
    for c in chunks:
        assert not any("\\" in h or "^" in h or "$" in h for h in c.heading_path), c.heading_path
    assert any(c.heading_path[-1] == "E=mc²" for c in chunks)


def test_read_finds_the_section_by_its_name_or_as_written():
    doc = parse(_doc())
    for named in ("E=mc²", "公式 > E=mc²", "$E=mc^2$", "## $E=mc^2$"):
        assert find_section(doc, named).heading_path == ("公式", "E=mc²"), named
    assert find_section(doc, "防效 n/N × 100% 的计算").heading_path[-1] == "防效 n/N × 100% 的计算"


def test_anchors_stay_the_latex_ones_in_check_build_and_page():
    src = _doc()
    slugs = scan(src.body, src.body_line).slugs()
    assert {"公式", "emc2", "防效-fracnn-times-100-的计算"} <= slugs
    found = [f for f in check_document(src, make_context(load_config(Path("/r"))))
             if f.code == "link-anchor"]
    assert not found, found
    index = HeadingIndex.build([parse(src)])
    assert index.by_anchor(REL, "emc2") == ("公式", "E=mc²")
    tokens = parse_tokens(src.body)
    anchor_headings(tokens)
    ids = [str(t.attrGet("id")) for t in tokens if t.type == "heading_open"]
    assert ids[:3] == ["公式", "emc2", "防效-fracnn-times-100-的计算"]
    toc = [c.content for t in table_of_contents(tokens) for c in t.children or []
           if c.type == "text"]
    assert "E=mc²" in toc and "防效 n/N × 100% 的计算" in toc


def test_a_heading_without_a_formula_keeps_its_text():
    doc = parse(_doc("# 价格 $5 与 $6\n\n" + PARA + "## 代码 `$x^2$`\n\n" + PARA))
    paths = [s.heading_path for s in doc.sections()]
    assert ("价格 $5 与 $6",) in paths
    assert ("价格 $5 与 $6", "代码 $x^2$") in paths
