"""`textfind.occurrences`: every start of a string in a text, overlapping ones included, as
the build's cross references (newlines, 《》) and the query's term coverage read them."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.build import xref
from kbtools.query import coverage
from kbtools.textfind import occurrences

_TEXT = st.text(st.sampled_from("ab一两天\n《》 "), max_size=30)


@settings(max_examples=600)
@given(_TEXT, _TEXT.filter(bool))
def test_every_start_overlapping_ones_included(text, sub):
    assert occurrences(text, sub) == [m.start() for m in re.finditer(f"(?={re.escape(sub)})", text)]


def test_examples():
    assert occurrences("aaa", "aa") == [0, 1]
    assert occurrences("保留一天，一天两次", "一天") == [2, 5]
    assert occurrences("a\nb\n", "\n") == [1, 3]
    assert occurrences("", "x") == [] and occurrences("ab", "") == [0, 1, 2]


def test_one_helper_serves_the_build_and_the_query():
    assert not hasattr(coverage, "_at") and not hasattr(xref, "_positions")
    assert coverage.occurrences is occurrences and xref.occurrences is occurrences
