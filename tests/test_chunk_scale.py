"""A long manual is chunked whole: every formula its own chunk, every 「见 N 节」 reference
and in-page link resolved to its section.

A 2 MB document (the largest `kb check` takes: `file-too-large`) of numbered sections, each
with a formula and a reference, took `kb chunks` 128 s when each chunk scanned all of the
document's formulas and each reference all of its headings; the formulas are now found by
bisection and the headings looked up (43 s, most of it markdown-it's parse). How the time
grows with the length is a benchmark's figure, not a test's: `benchmarks/bench_chunk.py
--manual 300` prints the CPU time at 300 and at 1,200 sections and their ratio (linear: ~4).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

from kbtools.build.chunk import HeadingIndex, chunk_document
from kbtools.corpus import parse_source
from kbtools.decision.conditions import parse_condition
from kbtools.markdown.doctree import parse
from tests.kbfixtures import GOOD_FM


def manual(sections: int) -> str:
    """`sections` numbered sections, each with a formula, a reference to the one before and
    a link to itself (also what `bench_chunk.py --manual` chunks)."""
    return GOOD_FM + "".join(
        f"## {i} 节 Section {i}\n\n油温超过 {i}℃ 时停机，见 {max(1, i - 1)} 节；"
        f"see [the limits](#{i}-节-section-{i}).\n\n$$\nP_{{{i}}} = F / A\n$$\n\n"
        for i in range(1, sections + 1))


def test_a_long_manual_chunks_every_formula_and_resolves_every_reference():
    sections = 400
    src = parse_source(manual(sections), Path("/r/knowledge/m.md"), "knowledge/m.md")
    chunks = chunk_document(src, resolver=HeadingIndex.build([src]))
    formulas = [c for c in chunks if c.kind == "formula"]
    assert len(formulas) == sections
    # each formula chunk lies inside its own section's lines, in order
    assert [f.text.count(f"P_{{{i}}}") for i, f in enumerate(formulas, 1)] == [1] * sections
    assert all(a.line_start < b.line_start for a, b in zip(formulas, formulas[1:], strict=False))
    linked = [c for c in chunks if c.kind == "section" and c.links]
    assert len(linked) >= sections - 1
    assert all(lk.doc == "knowledge/m.md" for c in linked for lk in c.links)


def _table(head: str, rows: list[str]) -> str:
    return GOOD_FM + "# 表 Table\n\n" + head + "".join(rows)


def test_a_long_fault_code_table_is_read_no_further_than_its_first_column():
    """A table whose first column holds codes is no decision table (its leading columns must
    be conditions), whatever its other cells say: chunking it reads the first code and no
    other cell as a condition (10,000 rows took 4-19 s reading every cell)."""
    rows = [f"| E{i:04d} | 压力低于 {i % 20} MPa | between {i} and {i + 5} h | 不超过 {i % 9} 次 |\n"
            for i in range(2000)]
    src = parse_source(_table("| 代码 | 含义 | 间隔 | 次数 |\n|---|---|---|---|\n", rows),
                       Path("/r/knowledge/t.md"), "knowledge/t.md")
    parse_condition.cache_clear()
    chunks = chunk_document(src)
    assert parse_condition.cache_info().misses == 1
    assert sum(c.kind == "table_row" for c in chunks) == 2000
    assert not any("decision" in c.extra for c in chunks)


def test_a_text_cell_anywhere_down_the_first_column_keeps_a_table_from_deciding():
    """Reading the first column only until a text cell decides as reading every cell did:
    ranges all down but the last row (a text cell) is no decision table; ranges all down is."""
    ranges = [f"| {i}~{i + 1}℃ | 等级 {i} |\n" for i in range(50)]
    head = "| 温度 | 等级 |\n|---|---|\n"
    for rows, deciding in ((ranges, True), ([*ranges, "| 其他 | 等级 X |\n"], False),
                           ([*ranges[:-1], "| - | 等级 X |\n"], True)):
        src = parse_source(_table(head, rows), Path("/r/knowledge/t.md"), "knowledge/t.md")
        table = next(c for c in chunk_document(src) if c.kind == "table")
        assert ("decision" in table.extra) is deciding, rows[-1]


def test_a_fault_code_table_citing_chapters_looks_each_number_up_once_per_folder():
    """A fault-code table whose rows cite sections of the manual's other chapters ("参见 7.2
    节", each chapter a file of the folder) resolves each to its chapter by looking the number
    up: each reference scanned every sibling document's headings (rows × chapters: most of
    the table's chunking time). Counted as the index's lookups, not timed."""
    chapters, rows = 60, 240
    sib = [parse_source(GOOD_FM + f"# 第{k}章\n\n## {k}.1 检查\n\n正文。\n\n## {k}.2 更换\n\n正文。\n",
                        Path(f"/r/knowledge/m/c{k:02d}.md"), f"knowledge/m/c{k:02d}.md")
           for k in range(1, chapters + 1)]
    body = "".join(f"| E-{i:04d} | 压力低 | 参见 {i % chapters + 1}.{i % 2 + 1} 节 |\n"
                   for i in range(rows))
    src = parse_source(_table("| 代码 | 含义 | 处理 |\n|---|---|---|\n", [body]),
                       Path("/r/knowledge/m/faults.md"), "knowledge/m/faults.md")
    index = HeadingIndex.build([parse(d) for d in [src, *sib]])
    looked = {HeadingIndex._lookup.__code__, HeadingIndex.by_number.__code__}
    calls = 0

    def count(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal calls
        calls += event == "call" and frame.f_code in looked

    sys.setprofile(count)
    try:
        chunks = chunk_document(src, resolver=index)
    finally:
        sys.setprofile(None)
    cited = [c for c in chunks if c.kind == "table_row"]
    assert [(lk.doc, lk.heading_path[-1]) for c in cited for lk in c.links] == [
        (f"knowledge/m/c{i % chapters + 1:02d}.md", f"{i % chapters + 1}.{i % 2 + 1} "
         + ("检查" if i % 2 == 0 else "更换")) for i in range(rows)]
    references = sum(len(c.links) for c in chunks)
    assert calls <= 4 * (references + chapters)  # was about references × chapters
