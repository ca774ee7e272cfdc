"""``--where`` on dates as periods, locally and in Milvus (session 39, issues 5, 14, 8).

A filter's date without a time of day is that whole day, a month (``2024-03``,
``2024年3月``) the whole month, a year (``2024年``, or ``2024`` beside a date) the whole
year: ``=`` holds for a value inside it, ``<=`` / ``>`` compare with its end, ``>=`` / ``<``
with its start. A datetime lies in the day it writes (``2024-03-01T07:00+08:00`` is March
1st, though it is February 29th in UTC). Before, each was the instant of its first moment:
``updated=2024-03-01`` missed ``2024-03-01T09:30``, ``<=2024-03`` stopped at March 1st,
``>2024-03-01`` held for later the same day. A value with a time stays an instant (UTC).

A field that holds part numbers or codes (``HX-2024-03``, ``A-2024``) reads no value as a
date: ``model=3000-12`` is the part 3000-12, not December 3000 (nor ``3000-12-05`` in it).
Chinese dates with a time, ``2024年3月1日 08:00``, read as instants, in front matter and in
``--where``."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.cli import main
from kbtools.errors import FilterError
from kbtools.query.filter_kinds import instant_text, period_of, reads_dates
from kbtools.query.filter_text import parse_where, where_text
from kbtools.query.filters import value_matches
from tests.milvus_server import (  # noqa: F401 - milvus: a fixture
    engine_rows,
    facts_collection,
    facts_fixture,
    local_rows,
    milvus,
    published_pumps,
)

DATES = [{"updated": v} for v in [
    "2024-03-01T09:30",  # 0: later on March 1st
    "2024-03-01T07:00:00+08:00",  # 1: written March 1st (February 29th in UTC)
    "2024-03-31 23:00",  # 2: the last hour of March
    "2024-04-01",  # 3
    "2024-02-29T23:30:00-05:00",  # 4: written February 29th (March 1st in UTC)
    "2024年3月15日 08:00",  # 5: a Chinese date and time
    ["2023-12-31", "2025-01-01T00:00Z"],  # 6: either side of 2024
    dt.date(2024, 3, 1),  # 7: YAML's date
    "2024年2月",  # 8: a month, its first day
    "unknown",  # 9: text, no digit: decides nothing
]]


@pytest.fixture(scope="module")
def coll(milvus):  # noqa: F811
    with facts_collection(milvus, "dates", "dates", [(f, False) for f in DATES]) as engine:
        yield engine


@pytest.mark.parametrize(("op", "want", "rows"), [
    ("=", "2024-03-01", [0, 1, 7]), ("=", "2024/3/1", [0, 1, 7]), ("=", "2024年3月1日", [0, 1, 7]),
    ("!=", "2024-03-01", [2, 3, 4, 5, 6, 8, 9]),
    (">", "2024-03-01", [2, 3, 5, 6, 9]),  # after the day: not 09:30 that day ("unknown": text)
    (">=", "2024-03-01", [0, 1, 2, 3, 5, 6, 7, 9]),
    ("<", "2024-03-01", [4, 6, 8]), ("<=", "2024-03-01", [0, 1, 4, 6, 7, 8]),
    ("=", "2024-03", [0, 1, 2, 5, 7]), ("=", "2024年3月", [0, 1, 2, 5, 7]),
    ("<=", "2024-03", [0, 1, 2, 4, 5, 6, 7, 8]),  # to the end of March: its last hour too
    (">", "2024-03", [3, 6, 9]), ("<", "2024-03", [4, 6, 8]),
    ("=", "2024", [0, 1, 2, 3, 4, 5, 7, 8]), ("=", "2024年", [0, 1, 2, 3, 4, 5, 7, 8]),
    (">", "2024", [6, 9]), ("<", "2024", [6]), ("!=", "2024", [6, 9]),
    ("=", "2024-03-01 09:30", [0]),  # a time: the instant
    (">=", "2024-03-01T00:00Z", [0, 2, 3, 4, 5, 6, 7, 9]),  # an instant: UTC, not row 1
    ("=", "2024年3月15日 08:00", [5]), ("=", "2024-03-15 08:00", [5]),
    ("=", "2024年3月15日8时", [5]),
    # day first or month first, where the other is above 12 (session 44)
    ("=", "15/03/2024", [5]), ("=", "03/15/2024", [5]), ("=", "15-3-2024", [5]),
    (">=", "31/03/2024", [2, 3, 6, 9]), ("<", "13/03/2024", [0, 1, 4, 6, 7, 8]),
])
def test_a_date_month_or_year_is_the_whole_period_locally_and_in_milvus(coll, op, want, rows):
    assert reads_dates(["2024-03-01", "2024年2月", "unknown"])
    assert local_rows(DATES, "updated", op, want) == rows
    assert engine_rows(coll, "dates", "updated", op, want, DATES) == rows


days = st.dates(dt.date(2023, 11, 1), dt.date(2025, 2, 28))
periods = st.one_of(
    days.map(lambda d: d.isoformat()), days.map(lambda d: f"{d.year}/{d.month}/{d.day}"),
    days.map(lambda d: f"{d.year}年{d.month}月{d.day}日"), days.map(lambda d: f"{d:%Y-%m}"),
    days.map(lambda d: f"{d.year}年{d.month}月"), st.sampled_from(["2023", "2024", "2025年"]),
    days.map(lambda d: f"{d.day:02d}/{d.month:02d}/{d.year}"),  # day first (or either: text)
    days.map(lambda d: f"{d.month}/{d.day}/{d.year}"),
    st.builds(lambda d, h, z: f"{d.isoformat()}T{h:02d}:00{z}", days, st.integers(0, 23),
              st.sampled_from(["", "Z", "+08:00", "-05:00"])),
    st.builds(lambda d, h: f"{d.year}年{d.month}月{d.day}日 {h}:30", days, st.integers(0, 23)))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=periods, op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]))
def test_any_period_or_instant_filters_alike_locally_and_in_milvus(coll, want, op):
    assert engine_rows(coll, "dates", "updated", op, want, DATES) == local_rows(DATES, "updated", op, want)


@pytest.mark.parametrize(("where", "rows"), [
    ("updated=2024年3月以后", [0, 1, 2, 3, 5, 6, 7, 9]), ("updated=since 2024-03", [0, 1, 2, 3, 5, 6, 7, 9]),
    ("updated=2024年3月起", [0, 1, 2, 3, 5, 6, 7, 9]),
    ("updated=2024年3月之后", [3, 6, 9]), ("updated=after March 2024", [3, 6, 9]),
    ("updated=2024年3月之前", [4, 6, 8]), ("updated=before 2024-03", [4, 6, 8]),
    ("updated=before 2024", [6]), ("updated=2024年3月以前", [0, 1, 2, 4, 5, 6, 7, 8]),
    ("updated=until 2024-03", [0, 1, 2, 4, 5, 6, 7, 8]),
    ("updated=2024-04-01,2024年2月以前", [3, 4, 6, 8]),  # an inclusive bound in a list
    # a bound excluding its period, in a list, as alone (session 45: text no document holds)
    ("updated=after March 2024,2024-02", [3, 4, 6, 8, 9]), ("updated=2024年3月之后，2024年2月", [3, 4, 6, 8, 9]),
    ("updated=2024-04-01、2024年3月之前", [3, 4, 6, 8]), ("updated=before 2024,2024-04", [3, 6]),
    ("updated=[2024-04-01, before 2024-03]", [3, 4, 6, 8]),
])
def test_a_date_bounded_by_a_word_filters_locally_and_in_milvus(coll, where, rows):
    """``2024年3月以后``, ``since 2024-03``, ``after March 2024``, ``before 2024`` were text no
    document holds: they are bounds, 以后 and since including the period, 之后 and after
    not (session 44)."""
    (key, op, want), = parse_where([where])
    local = [i for i, f in enumerate(DATES) if value_matches(key, f.get(key), op, want)]
    assert local == engine_rows(coll, "dates", key, op, want, DATES) == rows
    assert parse_where([where_text(key, op, want)]) == [(key, op, want)]  # pastes back alike
    with pytest.raises(FilterError, match=re.escape("is a bound, read with = alone")):
        parse_where(["updated>=after 2024"])
    assert parse_where(["title=after all"]) == [("title", "=", "after all")]


@pytest.mark.parametrize(("where", "says"), [
    ("updated=03/04/2024", "03/04/2024 may be 2024-04-03 (day first) or 2024-03-04 (month "
                           "first); write updated=2024-04-03 or updated=2024-03-04"),
    ("updated>=05/01/2024", "write updated>=2024-01-05 or updated>=2024-05-01"),
    ("updated=03/04/2024,2024-05", 'or updated="03/04/2024" in quotes for the text as typed'),
    ("updated=01/03/2024..15/03/2024", "01/03/2024 may be 2024-03-01 (day first)"),
])
def test_a_date_either_day_or_month_first_is_refused_naming_both(where, says):
    """``updated=15/03/2024`` and ``03/15/2024`` were text no document holds; they are 15
    March. ``03/04/2024`` may be 3 April or March 4: one line says to write either."""
    with pytest.raises(FilterError, match=re.escape(says)):
        parse_where([where])
    assert parse_where(["updated=13/03/2024..15/03/2024"]) == [
        ("updated", ">=", "13/03/2024"), ("updated", "<=", "15/03/2024")]


@pytest.mark.parametrize(("where", "same"), [
    ("updated=2024年2月到3月", "updated=2024-02..2024-03"),
    ("updated=2024年3月1日到31日", "updated=2024-03-01..2024-03-31"),
    ("updated=2024年2月29日至3月1日", "updated=2024-02-29..2024-03-01"),
    ("updated=2023年12月到3月", "updated=2023-12..2024-03"),  # into the next year
    ("updated=February to March 2024", "updated=2024-02..2024-03"),
    ("updated=2024年2月到3月,2025", "updated=2024-02..2024-03,2025"),
])
def test_a_date_range_end_without_its_year_takes_the_other_end_s(coll, where, same):
    """``updated=2024年3月到5月`` ranged to the text 5月 (a month of duration beside dates),
    ``2023年12月到3月`` and ``March to May 2024`` likewise (session 45): an end written
    without its year (and month) is in the other end's, the next year's when it would end
    before it starts. Locally and in Milvus alike."""
    def rows(conditions, local=True):
        return set.intersection(*(set(local_rows(DATES, k, o, w) if local else
                                      engine_rows(coll, "dates", k, o, w, DATES))
                                  for k, o, w in conditions))
    got = parse_where([where])
    assert rows(got) == rows(parse_where([same])) == rows(got, local=False) != set()
    assert parse_where([where_text(*c) for c in got]) == got  # pastes back alike


WRITTEN = [{"updated": v} for v in [
    "2024-03-01",  # 0
    "03/04/2024",  # 1: day or month first, as an author wrote it: text
    "15/03/2024",  # 2: 15 March
    ["03/04/2024", "2023-01-02"],  # 3
    "(none)",  # 4: text before digits as a string, after every date as an order has it
]]
written = facts_fixture("dates", WRITTEN, "written")


@pytest.mark.parametrize(("where", "rows"), [
    ('updated="03/04/2024"', [1, 3]), ("updated='03/04/2024',2024-03-01", [0, 1, 3]),
    ('updated!="03/04/2024"', [0, 2, 4]), ('updated=["03/04/2024", 2023]', [1, 3]),
    # a document's 03/04/2024 leaves the field one of dates (it was text beside text)
    ("updated=2024-03", [0, 2]), ("updated=2024", [0, 2]), ("updated>2024-03-02", [1, 2, 3, 4]),  # text after dates
    ("updated<2024", [3]), ("updated<=2024-03-01", [0, 3]),
])
def test_a_date_either_way_in_quotes_is_the_text_as_typed(written, where, rows):
    """``updated="03/04/2024"`` was refused as ambiguous though quoted: in quotes it is the
    text as typed, held by a document that writes it so, as quotes take any value; a
    document's ``03/04/2024`` made the field one of text, so no date filter found anything
    (session 45). Locally and in Milvus alike."""
    (key, op, want), = parse_where([where])
    assert local_rows(WRITTEN, key, op, want) == engine_rows(written, "written", key, op, want,
                                                             WRITTEN) == rows
    assert parse_where([where_text(key, op, want)]) == [(key, op, want)]  # pastes back alike
    with pytest.raises(FilterError, match=re.escape("2024-04-03 (day first)")):
        parse_where(['updated>="03/04/2024"'])  # an order compares no text in dates


@given(day=days, hour=st.integers(0, 23), zone=st.sampled_from(["", "Z", "+08:00", "-05:00"]),
       want=periods.filter(lambda w: period_of(w) is not None))
@settings(max_examples=300, deadline=None)
def test_a_datetime_lies_in_the_periods_of_the_day_it_writes(day, hour, zone, want):
    """Against a reference apart from `filter_kinds`: the period's first and last day."""
    value = f"{day.isoformat()}T{hour:02d}:15{zone}"
    text = want.replace("年", "-").replace("月", "-").replace("日", "").replace("/", "-")
    parts = [int(p) for p in text.strip("-").split("-")]
    if len(parts) == 3 and parts[2] > 31:  # day or month first: the one above 12 is the day
        parts = [parts[2], *(parts[1::-1] if parts[0] > 12 else parts[:2])]
    first = dt.date(parts[0], parts[1] if len(parts) > 1 else 1, parts[2] if len(parts) > 2 else 1)
    last = (first if len(parts) == 3 else
            dt.date(first.year, 12, 31) if len(parts) == 1 else
            dt.date(first.year + first.month // 12, first.month % 12 + 1, 1) - dt.timedelta(1))
    facts = [{"updated": value}]
    assert local_rows(facts, "updated", "=", want) == ([0] if first <= day <= last else [])
    assert local_rows(facts, "updated", ">", want) == ([0] if day > last else [])
    assert local_rows(facts, "updated", "<=", want) == ([0] if day <= last else [])
    assert local_rows(facts, "updated", "<", want) == ([0] if day < first else [])


PARTS = [{"model": v} for v in [
    "HX-2024-03", "3000-12", "A-2024", "3000-12-05", "3000-1", "3000/12", "3000-01", "2024"]]


@pytest.fixture(scope="module")
def parts(milvus):  # noqa: F811
    with facts_collection(milvus, "dates", "parts", [(f, False) for f in PARTS]) as engine:
        yield engine


@pytest.mark.parametrize(("op", "want", "rows"), [
    ("=", "3000-12", [1]), ("=", "3000-1", [4]), ("=", "3000/12", [5]), ("=", "hx-2024-03", [0]),
    ("!=", "3000-12", [0, 2, 3, 4, 5, 6, 7]), ("=", "2024", [7]),
    (">=", "3000-12", [0, 1, 2, 3, 5]),  # as text: letters after digits, "3000-1" before
    ("<", "3000-2", [1, 3, 4, 6, 7]), (">", "3000-12-05", [0, 2, 5]),
])
def test_a_part_number_is_not_a_date_locally_and_in_milvus(parts, op, want, rows):
    """A field of part numbers compares ``3000-12`` as the text it is: it was December 3000
    (=3000-12 found 3000/12 and, as a month, 3000-12-05; =3000-1 found 3000-01)."""
    assert not reads_dates(str(f["model"]) for f in PARTS)
    assert local_rows(PARTS, "model", op, want) == rows
    assert engine_rows(parts, "parts", "model", op, want, PARTS) == rows


TAGGED = [{"tags": ["2024-03-01", "病害"]}, {"tags": ["HX-2024-03", "#2024/03"]}, {"tags": "2024"}]


@pytest.fixture(scope="module")
def tagged(milvus):  # noqa: F811
    with facts_collection(milvus, "dates", "tagged", [(f, False) for f in TAGGED]) as engine:
        yield engine


@pytest.mark.parametrize(("op", "want", "rows"), [
    ("=", "2024", [1, 2]),  # the branch 2024 of the nested tag 2024/03, and the tag 2024
    ("!=", "2024", [0]), ("=", "2024-03-01", [0]), ("=", "#2024", [1, 2]),
])
def test_tags_of_a_field_without_dates_read_no_date_locally_and_in_milvus(tagged, op, want,
                                                                            rows):
    """A tag key's ``=`` read its value as a date whatever the field holds, the engine as
    the field has it: ``tags=2024`` matched a document tagged ``2024-03-01`` locally only."""
    assert local_rows(TAGGED, "tags", op, want) == rows
    assert engine_rows(tagged, "tagged", "tags", op, want, TAGGED) == rows


def test_chinese_dates_with_a_time_are_instants():
    """``2024年3月1日 08:00`` was text: ``updated>=2024-03-01T12:00Z`` compared strings."""
    for cn, iso in [("2024年3月1日 08:00", "2024-03-01T08:00"), ("2024年3月1日08:00:30", "2024-03-01T08:00:30"),
                    ("２０２４年３月１日　８：００", "2024-03-01T08:00"), ("2024年3月1日8点30分", "2024-03-01T08:30"),
                    ("2024年3月1日 20时", "2024-03-01T20:00"), ("2024年3月1日8点5分", "2024-03-01T08:05")]:
        assert instant_text(cn) == instant_text(iso) is not None, cn
    assert instant_text("2024年3月1日 25:00") is None and instant_text("2024年3月1日8点75分") is None
    assert period_of("2024年3月1日 08:00") is None and period_of("2024-03-01 08:00") is None


RELEASED = {  # document: (updated as the author wrote it, model, part, published)
    "early": ("2024-03-01T07:00:00+08:00", "HX-2024-03", "3000-12", "2024"),
    "late": ("2024年3月1日 23:30", "3000-12", "1200-06", "2024-03-01"),
    "spring": ("2024-03-31 23:00", "3000-12-05", "3000-01", "2024-03"),
    "april": ("2024-04-01", "3000-1", "3000/1", "2023-11-02"),
}


@pytest.fixture(scope="module")
def released(tmp_path_factory, milvus):  # noqa: F811
    """A repo whose documents give `updated` dates as people write them and part numbers,
    built and published: (local dist/, engine URL)."""
    return published_pumps(milvus, tmp_path_factory.mktemp("dates") / "kr", "dates", {
        name: {"updated": when, "model": f'"{model}"', "part": part, "published": published}
        for name, (when, model, part, published) in RELEASED.items()})


def _docs_found(args: list[str]) -> list[str]:
    res = CliRunner().invoke(main, ["query", "--json", "-k", "20", *args])
    assert res.exit_code == 0, res.output
    return sorted({r["doc"].rsplit("/", 1)[-1][:-3] for r in json.loads(res.output)["results"]})


@pytest.mark.parametrize(("where", "docs"), [
    ("updated=2024-03-01", ["early", "late"]), ("updated<=2024-03", ["early", "late", "spring"]),
    ("updated>2024-03-01", ["april", "spring"]), ("updated=2024年3月", ["early", "late", "spring"]),
    ("updated=2024", ["april", "early", "late", "spring"]),
    ("updated>=2024-03-01 12:00", ["april", "late", "spring"]),
    ("model=3000-12", ["late"]), ("model=3000-1", ["april"]),
    # a field of month-shaped part numbers alone (session 40): 3000-01 was January 3000
    ("part=3000-01", ["spring"]), ("part=3000-1", []), ("part>=3000-01", ["april", "early", "spring"]),
    # a year beside dates is that year, by containment (session 40): it compared as text
    ("published=2024", ["early", "late", "spring"]), ("published=2024-03", ["late", "spring"]),
    ("published>=2024-02", ["late", "spring"]), ("published<=2024-03", ["april", "late", "spring"]),
    ("published<2024-03-01", ["april"]), ("published!=2024-03", ["april", "early", "good"]),
])
def test_kb_query_where_periods_and_parts_locally_and_in_the_engine(released, where, docs):
    """`kb query --where` end to end, on a built release and the same release published."""
    dist, url = released
    question = ["pump seal replacement", "--where", where]
    assert _docs_found([*question, "--index", str(dist)]) == docs
    assert _docs_found([*question, "--engine", url]) == docs


@pytest.mark.parametrize(("where", "dated"), [  # session 45 (f45b, issue 5)
    ("updated=3月到5月", "年3月)"), ("updated>=3月", "年3月)"), ("updated=3月1日", "年3月1日)"),
    ("updated<=March", "(March 20"), ("updated=1 March..1 May", "(1 March 20"),
])
def test_a_month_without_its_year_is_refused_naming_the_year(released, where, dated):
    """``updated=3月到5月`` on a field of dates compared numbers of months (3月 as a
    duration), finding nothing: refused, naming the month with the field's latest year."""
    dist, url = released
    for target in (["--index", str(dist)], ["--engine", url]):
        res = CliRunner().invoke(main, ["query", "pump seal replacement", "--where", where,
                                        *target])
        assert res.exit_code == 2, res.output
        said = " ".join(res.output.split())
        assert "names no year; updated is a date in this index, give the year (" in said
        assert dated in said


@pytest.mark.parametrize("where", ["updated=2024-02-30", "updated>=2024-13",
                                   "updated!=2024-03-01 24:00", "updated<0000"])
def test_a_date_that_names_no_day_is_refused_naming_it(released, where):
    """On a field of dates, a value written as a date but naming none compared as text:
    ``updated>=2024-13`` or ``updated>=2024-02-30`` answered from an order of strings,
    ``updated!=2024-02-30`` held for every document. It is a usage error naming the value,
    locally and through the engine; in a field of part numbers the same text is a part."""
    dist, url = released
    value = where.split("=")[-1].split("<")[-1]
    for target in (["--index", str(dist)], ["--engine", url]):
        res = CliRunner().invoke(main, ["query", "pump seal replacement", "--where", where,
                                        *target])
        assert res.exit_code == 2, res.output
        assert f"{value} is no calendar date or time; updated is a date" in res.output
    assert _docs_found(["pump seal replacement", "--where", "model!=3000-13", "--index",
                        str(dist)]) == ["april", "early", "good", "late", "spring"]


def test_a_day_no_document_lies_in_names_the_nearest_days(released):
    """``updated=2024-03-02`` (no document that day) suggested filters by the likeness of
    text, full timestamps (``updated=2024-03-31 23:00``); it names the nearest days that
    documents lie in, as a filter takes them back, and months for a month."""
    dist, url = released
    for target in (["--index", str(dist)], ["--engine", url]):
        for where, meant in [
                ("updated=2024-03-02", ["updated=2024-03-01", "updated=2024-03-31",
                                        "updated=2024-04-01"]),
                ("updated=2024年5月", ["updated=2024-04", "updated=2024-03"]),
                ("updated=2023", ["updated=2024"])]:
            res = CliRunner().invoke(main, ["query", "--json", "pump seal replacement",
                                            "--where", where, *target])
            assert res.exit_code == 0, res.output
            out = json.loads(res.output)
            assert out["no_answer"] and out["reason_values"]["did_you_mean"] == meant, out


MONTHS_OR_PARTS = {
    "part": ["3000-12", "1200-06", "3000-01", "3000/1", "1200-6"],
    "batch": ["2024-03", "2023-11", "2024/3", "2099-12"],  # months: years 1900-2099
}


@pytest.fixture(scope="module")
def month_shaped(milvus):  # noqa: F811
    rows = [({key: values[i] for key, values in MONTHS_OR_PARTS.items() if i < len(values)},
             False) for i in range(5)]
    with facts_collection(milvus, "dates", "months", rows) as engine:
        yield engine, [f for f, _ in rows]


@pytest.mark.parametrize(("key", "op", "want", "rows"), [
    ("part", "=", "3000-1", []), ("part", "=", "3000-01", [2]), ("part", "=", "1200-6", [4]),
    ("part", "=", "3000-12-05", []), ("part", "!=", "3000-12", [1, 2, 3, 4]),
    ("part", ">=", "3000-01", [0, 2, 3]),  # as text: 3000/1 after 3000-12
    ("batch", "=", "2024-3", [0, 2]), ("batch", "=", "2024", [0, 2]),
    ("batch", "<=", "2023-12-31", [1]), ("batch", ">", "2024-03", [3]),
])
def test_a_field_of_month_shaped_part_numbers_reads_no_month_locally_and_in_milvus(
        month_shaped, key, op, want, rows):
    """``part: 3000-12`` in every document, no other form, read as months: ``part=3000-1``
    found ``3000-01`` and ``3000/1`` (January 3000). A month written with digits alone is
    one only in the years 1900-2099 (a month 13-99 was a part already): ``3000-12`` and
    ``1200-06`` are parts, compared as text, while ``2024-03`` in a field of months stays the
    whole month, locally and in Milvus alike."""
    engine, facts = month_shaped
    assert not reads_dates(MONTHS_OR_PARTS["part"]) and reads_dates(MONTHS_OR_PARTS["batch"])
    assert not reads_dates(["2024-03", "3000-12"])  # one part among months: a field of parts
    assert reads_dates(["1900-01", "2024年3月"]) and reads_dates(["3000-12-05"])  # a day: a date
    assert local_rows(facts, key, op, want) == rows
    assert engine_rows(engine, "months", key, op, want, facts) == rows


MIXED = [{"published": v} for v in [
    2024,  # 0: a year alone (YAML's int)
    "2024-03-01",  # 1
    "2024-03",  # 2: a month
    "2023-11-02T08:00+08:00",  # 3
    ["2025", "2023-12-31"],  # 4: a year and a day
    "2024年",  # 5: a year in Chinese
    "unknown",  # 6
]]


@pytest.fixture(scope="module")
def mixed(milvus):  # noqa: F811
    with facts_collection(milvus, "dates", "mixed", [(f, False) for f in MIXED]) as engine:
        yield engine


@pytest.mark.parametrize(("op", "want", "rows"), [
    ("=", "2024", [0, 1, 2, 5]), ("=", "2024-03", [1, 2]), ("=", "2024-03-01", [1]),
    ("!=", "2024-03", [0, 3, 4, 5, 6]),
    (">=", "2024-02", [1, 2, 4, 6]),  # a year 2024 starts before February: not known after
    ("<=", "2024-02", [3, 4]),  # nor before: it ends after February
    (">=", "2024", [0, 1, 2, 4, 5, 6]), (">", "2024", [4, 6]), ("<", "2024", [3, 4]),
    ("<", "2024-03-01", [3, 4]), ("<=", "2024-03", [1, 2, 3, 4]), (">", "2024-03", [4, 6]),
    (">=", "2024-01-01T00:00Z", [0, 1, 2, 4, 5, 6]),  # an instant: a year's first moment
    ("=", "2024-01-01 00:00", [0, 5]),
])
def test_a_year_beside_dates_is_that_year_by_containment_locally_and_in_milvus(mixed, op, want,
                                                                                rows):
    """``published: 2024`` beside ``published: 2024-03-01`` made the field one of text:
    ``published=2024`` missed 2024-03-01, ``published<2024-03-01`` held for ``2024-03``. A
    field of dates reads four digits as that year, and a value's year, month or day compares
    with a filter's period by containment: ``=`` when it lies inside, ``>=`` / ``>`` when it
    starts at or after the period's start / end, ``<=`` / ``<`` when it ends at or before
    its end / start; a month is no longer its first day (``=2024-03-01`` left ``2024-03``
    out before too, ``<=2024-02-15`` held for ``2024年2月``: no longer)."""
    assert reads_dates(str(v) for f in MIXED for v in (f["published"] if isinstance(
        f["published"], list) else [f["published"]]))
    assert not reads_dates(["2024", "2023"])  # years alone: numbers
    assert local_rows(MIXED, "published", op, want) == rows
    assert engine_rows(mixed, "mixed", "published", op, want, MIXED) == rows


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=periods, op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]))
def test_any_period_filters_a_field_of_mixed_precision_alike_locally_and_in_milvus(mixed, want,
                                                                                  op):
    assert engine_rows(mixed, "mixed", "published", op, want, MIXED) == \
        local_rows(MIXED, "published", op, want)
