"""A chunk's citation starts and ends at lines a reader sees.

A code block (a formula, a picture) takes the line before it as its context: when that line
was a hidden Obsidian `%% comment %%` (or an HTML comment), the chunk's citation started at
the comment, a line the device's page does not show, and the line of prose a reader does see
above it was left out; a trailing comment line ended a section's citation likewise."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.build.chunk import chunk_document
from kbtools.build.chunk_text import SourceText
from kbtools.corpus import parse_source
from kbtools.markdown.doctree import parse
from tests.kbfixtures import GOOD_FM

REL = "knowledge/a.md"


def _chunks(body: str):
    src = parse_source(GOOD_FM + body, Path("/r") / REL, REL)
    return parse(src), chunk_document(src)


def test_a_code_chunk_starts_at_the_prose_above_a_hidden_comment():
    doc, chunks = _chunks("# 甲\n\n先看说明。\n\n%% 内部备注：勿外传 %%\n\n```bash\n"
                          "systemctl restart pump\n```\n\n之后检查。\n")
    [code] = [c for c in chunks if c.kind == "code"]
    assert (code.line_start, code.line_end, code.extra["code_lines"]) == (12, 20, [16, 18])
    assert code.text.startswith("先看说明。\n\n```bash")


def test_comment_lines_at_either_end_are_no_part_of_a_citation():
    doc, chunks = _chunks("# 甲\n\n先看说明。\n%% 备注 %%\n```bash\nls\n```\n<!-- 尾注 -->\n"
                          "%%\n多行\n%%\n")
    assert [(c.kind, c.line_start, c.line_end) for c in chunks] == [
        ("section", 10, 16), ("code", 12, 16)]


LINES = st.sampled_from(["正文一行。", "%% 备注 %%", "%%\n多行备注\n%%", "<!-- 注释 -->",
                         "```bash\nls\n```", "$$\nE = mc^2\n$$", "![泵](x.png)", "",
                         "- 一项内容较长的条目\n- 又一项内容较长的条目", "## 小节"])


@settings(max_examples=150, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=10), st.sampled_from(["\n", "\n\n"]))
def test_every_chunk_starts_and_ends_at_a_line_a_reader_sees(lines, joint):
    doc, chunks = _chunks("# 甲\n\n" + joint.join(lines) + "\n")
    text = SourceText(doc.lines, doc.hidden)
    for c in chunks:
        assert text.seen(c.line_start) and text.seen(c.line_end), (c.kind, c.line_start,
                                                                    c.line_end, doc.lines)
