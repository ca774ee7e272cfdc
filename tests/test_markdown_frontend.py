"""One Markdown front end: `kb check`'s scan and `kb build`'s doc tree read documents alike.

Both parse with `kbtools.markdown.parser`; these tests feed the same documents (the bundled
knowledge, the fixtures and tricky snippets) to `frontend.scan` and `doctree.parse` and
assert they agree on formulas, headings and their anchors, tables and links.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from urllib.parse import unquote

import pytest

from kbtools.build.xref import HeadingIndex
from kbtools.corpus import SourceDoc, parse_source, read_doc
from kbtools.markdown.doctree import Document, Heading, Inline, Table, parse
from kbtools.markdown.frontend import Scan, scan
from kbtools.markdown.parser import custom_ids, github_slugs, heading_title, markdown
from tests.kbfixtures import GOOD_FM

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = sorted((ROOT / "knowledge").rglob("*.md")) + sorted(
    (ROOT / "tests" / "fixtures").rglob("*.md"))

SNIPPETS = {
    "dollars": "# Money\n\nA $ x + y $ b, cost $5 and $6; but $x + y$ is math.\n\nx $a$1\n\n"
               "1$b$ x\n\nDouble $$ a $$ and $$a^2$$ are.\n",
    "code-dollars": "# Shell\n\nCosts $10; set `$HOME` and ``$PATH``, then $x$.\n\n"
                    "| cost | var |\n|---|---|\n| $5 | `$y` $z$ |\n",
    "display-after-text": "# D\n\nAs follows:\n$$\nE = mc^2\n$$\n\n> [!note] N\n> $$\n> a\n> $$\n\n"
                          "- item\n  $$ b $$\n- next\n\nLine\n$$c$$ and more\n",
    "display": "# Display\n\n$$\nE = mc^2\n$$\n\n$$ a + b $$ (eq:sum)\n\n$$\na\n\nb\n$$\n\n"
               "```math\n\\frac{1}{2}\n```\n\n```latex\nx^2\n```\n\n    $$ indented code $$\n",
    "heading-math": "# 回归 $y = \\beta x$\n\n## 3.2 $\\beta$ 系数\n\nText $a$.\n",
    "multiline": "# Lines\n\nFirst line\nsecond line with $y_1$\nthird with $$z$$ and "
                 "![img](a.png)\n",
    "html": "# HTML <em>inline</em>\n\nText <img src=\"assets/x.png\" alt=\"x\"> and <br> more.\n\n"
            "<div>\n<img src=\"assets/y.png\">\n</div>\n\n<!-- csv: t.csv -->\n",
    "headings": "# Café\u0301 menu\n\n## 4.3 液压系统压力异常\n\n## FAQ: What's new?\n\n"
                "## FAQ: What's new?\n\n## A\\_b *c* `d`\n\n## A  B\n\n## A<br>B\n\n"
                "## Title {#custom-id}\n\n## Ａ／Ｂ 测试：步骤\n\nSetext\nheading\n---\n\n"
                "## `set <option> <value>`\n\n## Tab\there &amp; there\n\n> ## Quoted\n\n"
                "- ## In a list\n",
    "tables": "# Tables\n\n| a | b \\| c |\n|---|---|\n| 1 | 2 \\| 3 |\n| `x` | $y$ |\n\n"
              "- item\n\n  | h1 | h2 |\n  |----|----|\n  | v1 | v2 |\n\n"
              "| short | row |\n|--|--|\n| only one |\n| one | two | three |\n",
    "links": "# Links\n\nSee [a](#faq-whats-new), [b](other.md#43-液压系统压力异常), "
             "[c](图片/图.png), ![i](assets/a%20b.png \"t\") and <https://example.org/x>.\n"
             "Also [ref][r], [spaced](<a b.md>), [esc](a\\_b.md) and `[code](x.md)`.\n"
             "Unsafe [js](javascript:alert(1)) but [file](file:///etc/passwd) stays a link.\n\n"
             "[r]: ref/target.md#anchor\n",
    "tasks": "# Tasks\n\n- [x] done with [link](done.md)\n- [ ] open $t$\n\n> ## Quoted $q$\n",
    "crlf": "# Windows\r\n\r\ntext with $x$\r\n\r\n| a |\r\n|---|\r\n| 1 |\r\n",
}


def source(text: str, rel: str) -> SourceDoc:
    return parse_source(text, Path("/tmp") / rel, rel)


def both(src: SourceDoc) -> tuple[Scan, Document]:
    return scan(src.body, src.body_line), parse(src)


def all_sources() -> list[SourceDoc]:
    docs = [read_doc(p, ROOT) for p in BUNDLED]
    return docs + [source(GOOD_FM + text, f"snippets/{name}.md")
                   for name, text in SNIPPETS.items()]


SOURCES = all_sources()
IDS = [s.rel for s in SOURCES]


def tree_headings(doc: Document) -> list[Heading]:
    """Section headings and the headings nested in quotes and lists."""
    found = [h for _, h in doc.headings()]
    found += [b for _, b in doc.blocks() if isinstance(b, Heading)]
    return sorted(found, key=lambda h: h.line_start)


def tree_inlines(doc: Document) -> list[Inline]:
    out = [h.inline for h in tree_headings(doc)]
    for _, block in doc.blocks():
        if isinstance(block, Table):
            out.extend(block.cells)
        elif hasattr(block, "inline"):
            out.append(block.inline)
    return out


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_formulas_agree(src):
    checked, tree = both(src)
    # what the build renders (`formulas()`, headings' included) is what the check reads
    assert sorted((line, latex.strip()) for line, _, latex, _ in checked.math) == \
        sorted((m.line_start, m.latex) for m in tree.formulas())


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_headings_and_anchors_agree(src):
    checked, tree = both(src)
    assert checked.headings == [(h.line_start, h.text) for h in tree_headings(tree)]
    rows = HeadingIndex.build([tree]).headings[src.rel]
    built = {slug for _, _, slugs, _ in rows for slug in slugs}
    assert {anchor for *_, anchor in rows} <= built  # the page's id of each: one of them
    # what each anchor is made of: its text, or the text as written where it differs (a
    # formula read aloud in the title keeps its LaTeX in the anchor: `parser.anchor_text`)
    section_texts = [h.text if h.anchor is None else h.anchor for _, h in tree.headings()]
    slugs = set(github_slugs(heading_title(t) for t in section_texts)) | {
        i for t in section_texts for i in custom_ids(t)}
    assert built == slugs  # every section heading: the same (de-duplicated) slug and ids
    assert built <= checked.slugs()  # whatever the build resolves, the check accepts


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_tables_agree(src):
    checked, tree = both(src)
    tables = list(tree.tables())
    assert [(t.line, t.header_cells, [line for line, _ in t.rows]) for t in checked.tables] == \
        [(t.header_line, len(t.header), list(t.row_lines)) for t in tables]
    for shape, table in zip(checked.tables, tables, strict=True):
        for (_, cells), row in zip(shape.rows, table.rows, strict=True):
            # the build pads or cuts a row to the header; the check reports such a row
            assert cells == len(row) or cells != shape.header_cells


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_links_and_images_agree(src):
    checked, tree = both(src)
    inlines = tree_inlines(tree)
    built = Counter([("link", unquote(lk.href)) for i in inlines for lk in i.links]
                    + [("image", unquote(im.src)) for i in inlines for im in i.images]
                    + [("image", unquote(im.src)) for _, b in tree.blocks() if hasattr(b, "images")
                       for im in b.images])
    assert Counter((r.kind, r.target) for r in checked.refs) == built


def test_snippets_read_as_expected():
    """What the shared reading rules decide, pinned down."""
    checked, tree = both(source(GOOD_FM + SNIPPETS["dollars"], "d.md"))
    assert [m.latex for m in tree.formulas()] == ["x + y", "a", "a^2"]
    assert checked.stray_dollars == []
    checked, tree = both(source(GOOD_FM + SNIPPETS["display"], "d.md"))
    # a ```latex fence is code (LaTeX source, as editors show it), not a formula
    assert [m.latex for m in tree.formulas()] == ["E = mc^2", "a + b", "\\frac{1}{2}"]
    checked, _ = both(source(GOOD_FM + SNIPPETS["headings"], "h.md"))
    assert {"café-menu", "43-液压系统压力异常", "faq-whats-new", "faq-whats-new-1", "a_b-c-d",
            "a-b", "a-b-1", "title", "custom-id", "ａｂ-测试步骤", "setext-heading", "set-option-value",
            "tab-here--there", "quoted", "in-a-list"} == checked.slugs()
    checked, tree = both(source(GOOD_FM + SNIPPETS["links"], "l.md"))
    assert ("link", "javascript:alert(1)") not in {(r.kind, r.target) for r in checked.refs}
    assert ("link", "file:///etc/passwd") in {(r.kind, r.target) for r in checked.refs}


def test_check_only_anchors():
    """HTML ids: anchors the check accepts (GitHub renders them) that the build's heading
    index does not resolve (no heading is there); GitHub's duplicate suffixes it resolves to
    the repeated heading."""
    src = source(GOOD_FM + "# A\n\n## B\n\n## B\n\n<a id=\"here\"></a>\n", "x.md")
    checked, tree = both(src)
    index = HeadingIndex.build([tree])
    assert {"b-1", "here"} <= checked.slugs()
    assert index.by_anchor("x.md", "b") == ("A", "B")
    assert index.by_anchor("x.md", "b-1") == ("A", "B")
    assert [row[2] for row in index.headings["x.md"]] == [{"a"}, {"b"}, {"b-1"}]
    assert index.by_anchor("x.md", "here") is None


def test_one_parser_instance():
    assert markdown() is markdown()


def test_script_in_a_heading_is_no_part_of_its_anchor():
    """A `<script>` element's contents were read into a heading's slug (`标题带-alert1脚本`)."""
    src = source(f"{GOOD_FM}\n# 标题带 <script>alert(1)</script>脚本\n", "k/scr.md")
    checked, tree = both(src)
    assert checked.slugs() == {"标题带-脚本"}
    assert [h.text for h in tree_headings(tree)] == ["标题带 脚本"]


def test_escaped_custom_id_names_no_anchor():
    """`## 语法 \\{#x}` is text: `kb check` accepted `#x` links to it (and refused the
    heading's own slug) while every editor shows `{#x}` as text."""
    src = source(f"{GOOD_FM}\n# 语法 \\{{#x}}\n\n## 真 {{#real}}\n\n## 双 \\\\{{#two}}\n", "k/esc.md")
    checked, tree = both(src)
    assert {"语法-x", "real", "真", "two", "双-"} == checked.slugs()
    assert [heading_title(h.text) for h in tree_headings(tree)] == ["语法 {#x}", "真", "双 \\"]
