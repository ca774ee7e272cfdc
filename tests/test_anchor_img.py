"""A heading holding an `<img>` tag (Typora's resized picture): its anchor is GitHub's.

The heading's text reads the tag's `alt` (its heading path, chunk text and screen readers
read the words, as for `![alt](src)`), but GitHub makes a heading's anchor of its text
without HTML tags, and so do `kb check`, the build's cross references and a device's page:
`#anchor` links written in Typora, Obsidian or on GitHub before the picture was resized keep
working. A heading without HTML keeps the anchor and heading path it always had.
"""

from __future__ import annotations

from pathlib import Path

from kbtools.build.xref import HeadingIndex
from kbtools.check.engine import check_document, make_context
from kbtools.config import load_config
from kbtools.corpus import parse_source
from kbtools.markdown.doctree import parse
from kbtools.markdown.frontend import scan
from kbtools.markdown.parser import parse_tokens
from kbtools.serve.headings import anchor_headings
from tests.kbfixtures import GOOD_FM

REL = "knowledge/t/img.md"
IMG = '<img src="../../assets/images/logo.png" alt="Logo 图标" style="zoom:50%;" />'
BODY = (f"# 手册\n\n## {IMG} 安装步骤\n\n正文。\n\n## 安装步骤\n\n再装。\n\n"
        f"## 维护 {IMG.replace('<img', '<IMG')} {{#care}}\n\n保养。\n\n"
        f"## {IMG}\n\n只有图。\n\n"
        "[装](#安装步骤) [再装](#安装步骤-1) [养](#维护) [自定](#care)\n")


def _doc(body: str = BODY):
    return parse_source(GOOD_FM + body, Path("/r") / REL, REL)


def _page_ids(body: str) -> list[str]:
    tokens = parse_tokens(body)
    anchor_headings(tokens)
    return [str(t.attrGet("id")) for t in tokens if t.type == "heading_open" and t.attrGet("id")]


def test_check_build_and_page_agree_on_anchors_without_the_alt_text():
    src = _doc()
    slugs = scan(src.body, src.body_line).slugs()
    assert {"手册", "安装步骤", "安装步骤-1", "维护", "care", ""} == slugs
    assert not {"logo-图标-安装步骤", "维护-logo-图标"} & slugs
    findings = check_document(src, make_context(load_config(Path("/r"))))
    assert not [f for f in findings if f.code == "link-anchor"], findings
    index = HeadingIndex.build([parse(src)])
    assert index.by_anchor(REL, "安装步骤") == ("手册", "Logo 图标 安装步骤")
    assert index.by_anchor(REL, "维护") == ("手册", "维护 Logo 图标")
    assert index.by_anchor(REL, "logo-图标-安装步骤") is None
    assert _page_ids(src.body) == ["手册", "安装步骤", "安装步骤-1", "维护"]


def test_a_link_to_the_alt_text_anchor_is_flagged_with_the_real_one():
    src = _doc("# 手册\n\n## " + IMG + " 安装步骤\n\n[装](#logo-图标-安装步骤)\n")
    found = [f for f in check_document(src, make_context(load_config(Path("/r"))))
             if f.code == "link-anchor"]
    assert len(found) == 1 and "'#logo-图标-安装步骤'" in found[0].message, found


def test_the_heading_path_keeps_the_alt_text():
    """What readers and search see of the heading: the picture's words, as for a Markdown
    image (decided: only the anchor leaves them out)."""
    paths = {sec.heading_path for sec in parse(_doc()).sections()}
    assert ("手册", "Logo 图标 安装步骤") in paths and ("手册", "维护 Logo 图标") in paths


def test_headings_without_html_keep_their_anchors_and_paths():
    body = ("# 手册\n\n## ![Logo 图标](../../assets/images/logo.png) 安装\n\n"
            "## 比较 a < b > c\n\n## 强调 <em>这里</em> 与 `Vec<T>`\n\n## 4.3 液压系统\n")
    src = _doc(body)
    assert scan(src.body, src.body_line).slugs() == {
        "手册", "logo-图标-安装", "比较-a--b--c", "强调-这里-与-vect", "43-液压系统"}
    index = HeadingIndex.build([parse(src)])
    assert index.by_anchor(REL, "logo-图标-安装") == ("手册", "Logo 图标 安装")
    assert [p for p, _, _, _ in index.headings[REL]] == [
        ("手册",), ("手册", "Logo 图标 安装"), ("手册", "比较 a < b > c"),
        ("手册", "强调 这里 与 Vec<T>"), ("手册", "4.3 液压系统")]
    assert _page_ids(src.body) == ["手册", "logo-图标-安装", "比较-a--b--c",
                                   "强调-这里-与-vect", "43-液压系统"]
