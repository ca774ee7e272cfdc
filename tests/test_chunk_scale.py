"""A long manual is chunked in time linear in its length.

A 2 MB document (the largest `kb check` takes: `file-too-large`) of numbered sections, each
with a formula and a 「见 N 节」 reference, took `kb chunks` 128 s: each chunk scanned all of
the document's formulas for those inside it, and each reference scanned all of its headings
(twice: the heading lines, then the section number), so the time grew with chunks ×
sections. Now 43 s, most of it markdown-it's parse; the formulas are found by bisection, the
headings looked up.
"""

from __future__ import annotations

import time
from pathlib import Path

from kbtools.build.chunk import HeadingIndex, chunk_document
from kbtools.corpus import parse_source
from tests.kbfixtures import GOOD_FM


def _manual(sections: int) -> str:
    return GOOD_FM + "".join(
        f"## {i} 节 Section {i}\n\n油温超过 {i}℃ 时停机，见 {max(1, i - 1)} 节；"
        f"see [the limits](#{i}-节-section-{i}).\n\n$$\nP_{{{i}}} = F / A\n$$\n\n"
        for i in range(1, sections + 1))


def _seconds(sections: int) -> float:
    src = parse_source(_manual(sections), Path("/r/knowledge/m.md"), "knowledge/m.md")
    index = HeadingIndex.build([src])
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        chunks = chunk_document(src, resolver=index)
        best = min(best, time.process_time() - start)
    assert sum(c.kind == "formula" for c in chunks) == sections
    linked = [c for c in chunks if c.kind == "section" and c.links]
    assert linked and all(lk.doc == "knowledge/m.md" for c in linked for lk in c.links)
    return best


def test_chunking_a_long_manual_grows_linearly():
    small, large = _seconds(300), _seconds(1200)
    # linear: about 4 times; chunks × sections: about 16 (measured 13 before the fix)
    assert large / small < 8, (small, large)
