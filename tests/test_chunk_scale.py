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

from pathlib import Path

from kbtools.build.chunk import HeadingIndex, chunk_document
from kbtools.corpus import parse_source
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
