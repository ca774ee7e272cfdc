"""``--where`` as people type it on a phone, a Chinese input method or in English prose
(session 44, issues 5, 14, 8, 13): a month or a date in English words (``Mar 2024``, ``1
March 2024``), a value in typographic quotes (``title=“小麦，玉米”``), an operator typed with
a blank inside it (``功率 < = 5kW``). Each was text, two values, or "'<=' is not an
operator". Locally and in Milvus alike."""

from __future__ import annotations

import re

import pytest

from kbtools.errors import FilterError
from kbtools.query.filter_kinds import period_of
from kbtools.query.filter_text import parse_where, where_text
from tests.milvus_server import (  # noqa: F401 - milvus: a fixture
    facts_fixture,
    milvus,
    rows_alike,
)

DATES = [{"updated": v, "title": t} for v, t in [
    ("2024-03-15", "小麦，玉米轮作"),  # 0
    ("March 2024", "a, b"),  # 1: a month in words, as a report writes it
    ("1 Apr 2024", "小麦"),  # 2
    ("2024-02-29", "玉米"),  # 3
]]


@pytest.mark.parametrize(("written", "iso"), [
    ("Mar 2024", "2024-03"), ("March 2024", "2024-03"), ("mar. 2024", "2024-03"),
    ("Sept 2024", "2024-09"), ("1 March 2024", "2024-03-01"), ("March 1, 2024", "2024-03-01"),
    ("Mar 1st, 2024", "2024-03-01"), ("29 Feb 2024", "2024-02-29"),
])
def test_a_month_or_a_date_in_english_words_is_that_period(written, iso):
    assert period_of(written) == period_of(iso) is not None
    assert period_of("31 Feb 2024") is None and period_of("Marc 2024") is None


coll = facts_fixture("typed", DATES)


@pytest.mark.parametrize(("where", "rows"), [
    ("updated=Mar 2024", [0, 1]), ("updated>=March 2024", [0, 1, 2]),
    ("updated<1 March 2024", [3]), ("updated=2024-03", [0, 1]), ("updated=April 2024", [2]),
    ("updated=Mar 2024..Apr 2024", [0, 1, 2]),
    ("title=“小麦，玉米轮作”", [0]), ("title=‘a, b’,玉米", [1, 3]), ("title ！＝ “a, b”", [0, 2, 3]),
    ("updated < = 2024-02-29", [3]), ("updated > = Apr 2024", [2]),
])
def test_typed_filters_filter_alike_locally_and_in_milvus(coll, where, rows):
    assert rows_alike(coll, "typed", DATES, where) == rows
    conditions = parse_where([where])
    assert parse_where([where_text(*c) for c in conditions]) == conditions


def test_an_unclosed_typographic_quote_is_part_of_the_value():
    assert parse_where(["t=“x"]) == [("t", "=", "“x")]
    assert parse_where(["t=“a”b"]) == [("t", "=", "“a”b")]  # closed inside: text


@pytest.mark.parametrize(("where", "says"), [
    ("power 5kW", "no operator between power and 5kW; use power=5kW (or !=, >=, <=, >, <)"),
    ("施药 时间 2024-05-01", "no operator between 施药 时间 and 2024-05-01; use 施药 时间=2024-05-01"),
    ("updated Mar 2024", "no operator between updated and Mar 2024; use updated=Mar 2024"),
])
def test_a_filter_typed_without_its_operator_says_what_to_write(where, says):
    """``power 5kW`` got the generic "use KEY=VALUE, …" line, naming nothing of it."""
    with pytest.raises(FilterError, match=re.escape(says)):
        parse_where([where])
