"""``--where key>VALUE`` / ``key<VALUE``: strict orders, with the same meaning on the local
mask and in Milvus (before, only ``>=``/``<=`` existed and ``crop>x`` was refused)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.engine import expr
from kbtools.errors import FilterError
from kbtools.query.filter_text import Want
from kbtools.query.filters import WHERE_HELP, parse_where, value_matches, where_text
from tests.milvus_server import facts_collection, milvus  # noqa: F401 - fixture

FACTS = [  # kinds of values front matter holds: dates, numbers, versions, words, lists
    {"date": "2024-03-01", "size": 1, "version": "1.9.0", "crop": "小麦", "tags": ["病害/赤霉病"],
     "作物": "小麦", "亩产-kg": 450},
    {"date": "2024-03-02", "size": "1.0", "version": "1.10.2", "crop": "玉米", "tags": ["虫害"],
     "作物": ["玉米", "大豆"], "亩产-kg": "520.0"},
    {"date": dt.date(2023, 12, 31), "size": 2.5, "version": "2.0", "crop": ["小麦", "大豆"]},
    {"date": "2024-03-01T08:00:00Z", "size": [0, 10], "version": "1.9", "crop": "Wheat"},
    {"date": "2025-01-01", "size": "-inf", "version": "10.0.0", "crop": "wheat", "tags": "#Urgent"},
    {"size": "abc", "crop": "水稻", "tags": ["病害"]},
    {"date": None, "size": True, "version": ["1.9.0", "3.1"], "crop": "Ä"},
]


@pytest.fixture(scope="module")
def coll(milvus):  # noqa: F811
    with facts_collection(milvus, "strict", "strict", [(f, i % 2 == 0)
                                                       for i, f in enumerate(FACTS)]) as engine:
        yield engine


def _local(key: str, op: str, want: Want) -> list[int]:
    return [i for i, f in enumerate(FACTS) if value_matches(key, f.get(key), op, want)]


def _remote(engine, key: str, op: str, want: Want) -> list[int]:
    got = engine.client.query("strict", filter=expr.condition(key, op, want),
                              output_fields=["num"], consistency_level="Strong")
    return sorted(int(r["num"]) for r in got)


@pytest.mark.parametrize(("where", "rows"), [
    ("date>2024-03-01", [1, 4]),  # after the whole day: not 08:00 on it (session 39)
    ("date<2024-03-01", [2]),
    ("date>=2024-03-01", [0, 1, 3, 4]),
    ("size>1", [2, 3, 5, 6]),  # 1.0 is 1: not above it; abc and true are text, after numbers
    ("size<1", [3, 4]),  # [0, 10] has a member below; -inf
    ("size>-inf", [0, 1, 2, 3, 5, 6]),  # abc and true: text after every number
    ("size<inf", [0, 1, 2, 3, 4]),  # not abc (text after every number, not "abc" < "inf")
    ("version>1.9", [1, 2, 4, 6]),  # as versions: 1.10.2 > 1.9; 1.9.0 is 1.9; 2.0 > 1.9
    ("version<1.9.0", []),  # 1.9 is 1.9.0, 1.10.2 after it (as text, both were before)
    ("crop>小麦", [1, 5]),  # by code point: 玉米 (U+7389), 水稻 (U+6C34) after 小麦 (U+5C0F)
    ("crop<Wheat", []),
    ("crop>wheat", [0, 1, 2, 5, 6]),
    ("tags>病害", [0, 1]),  # tags order as written
    ("tags<病害", [4]),
    ("作物=大豆", [1]),  # a key a schema declares in Chinese
    ("亩产-kg>450", [1]),
    ("作物!=小麦", [1, 2, 3, 4, 5, 6]),
])
def test_strict_orders_match_alike_locally_and_in_milvus(coll, where, rows):
    [(key, op, want)] = parse_where([where])
    assert op in (">", "<", ">=", "=", "!=")
    assert _local(key, op, want) == rows
    assert _remote(coll, key, op, want) == rows


def test_a_key_in_any_script_is_a_key():
    """``--where 作物=小麦`` on a key the front-matter schema declares in Chinese was refused
    as no filter ("use KEY=VALUE …") though `kb check` and `kb build` took the key; only
    keys starting with an ASCII letter could be filtered on."""
    assert parse_where(["作物=小麦", "亩产-kg>=450", "Größe<3", "_x=1"]) == [
        ("作物", "=", "小麦"), ("亩产-kg", ">=", "450"), ("Größe", "<", "3"), ("_x", "=", "1")]
    for bad in ("1crop=x", "-crop=x", "=x", "作 物 =", '""=x', "crop 小麦", '"a b=x'):
        with pytest.raises(FilterError, match="use KEY=VALUE|no value"):
            parse_where([bad])


def test_a_key_as_front_matter_names_it_with_a_blank_or_in_quotes():
    """A front-matter key holding a blank (``施药 时间: 2024-05-01``) or other characters
    (``pH (水)``) was refused as no filter ("use KEY=VALUE …"): it is the key as written, or
    in quotes, and written back so (`where_text`) that it reads back the same (session 40)."""
    assert parse_where(["施药 时间>=2024-05", '"施药 时间"=2024-05-01', "'pH (水)'<7",
                        '"a=b"=c', "施药 时间 ＝ 2024"]) == [
        ("施药 时间", ">=", "2024-05"), ("施药 时间", "=", "2024-05-01"), ("pH (水)", "<", "7"),
        ("a=b", "=", "c"), ("施药 时间", "=", "2024")]
    for key in ("施药 时间", "pH (水)", "a=b", 'say "hi"', "1crop", " x"):
        assert parse_where([where_text(key, "=", "v")]) == [(key, "=", "v")], key


@pytest.mark.parametrize(("where", "parsed"), [
    ("crop=小麦,玉米", ("crop", "=", ("小麦", "玉米"))),
    ("crop = 小麦， 玉米、 水稻", ("crop", "=", ("小麦", "玉米", "水稻"))),  # as typed in Chinese
    ("crop!=小麦、玉米", ("crop", "!=", ("小麦", "玉米"))),
    ("crop=小麦，", ("crop", "=", "小麦")),  # a comma naming nothing after it
    ("crop=小麦,小麦", ("crop", "=", "小麦")),
    ('title="小麦、玉米轮作"', ("title", "=", "小麦、玉米轮作")),  # a comma of the value's own
    ('title="a, b",c', ("title", "=", ("a, b", "c"))),
    ("crop='小麦','玉米'", ("crop", "=", ("小麦", "玉米"))),
    ('tags=""A""', ("tags", "=", '"A"')),  # quotes inside quotes, as before
    ("price>=1,000", ("price", ">=", "1,000")),  # an order has one value, as written
])
def test_values_a_comma_apart_are_any_of_them(where, parsed):
    """``crop=小麦,玉米`` was one value no document holds: nothing matched, silently; a
    comma (``,`` ``，`` ``、``) is between values (session 40)."""
    assert parse_where([where]) == [parsed]
    assert parse_where([where_text(*parsed)]) == [parsed]  # pasted back, the same filter


def test_a_list_of_no_values_is_refused():
    for bad in ("crop=,", "crop=，、", 'crop="",小麦', "crop!= , "):
        with pytest.raises(FilterError, match="no value"):
            parse_where([bad])


@pytest.mark.parametrize("where", [
    "crop=小麦,玉米", "crop!=小麦,玉米", "crop=wheat,水稻", "crop!=ä,WHEAT", "size=1,abc",
    "size!=1,-inf", "date=2024-03,2025", "version=1.9,10", "tags=病害,虫害", "tags!=病害,urgent",
    "作物=大豆,香蕉", "crop=香蕉,苹果", "crop!=香蕉,苹果", "size=true,2.5"])
def test_values_a_comma_apart_match_alike_locally_and_in_milvus(coll, where):
    [(key, op, want)] = parse_where([where])
    assert isinstance(want, tuple)
    rows = _local(key, op, want)
    assert rows == _remote(coll, key, op, want)
    alone = [set(_local(key, "=", w)) for w in want]
    assert set(rows) == (set().union(*alone) if op == "=" else
                         set(range(len(FACTS))) - set().union(*alone))


def test_strict_is_the_order_without_the_equal_ones():
    """``>`` is ``>=`` without what ``=`` matches (numbers by number, 1 is 1.0), of one
    value (a list matches ``>`` by another member than the one ``=`` matches)."""
    for key, want in [("size", "1"), ("date", "2024-03-01"), ("version", "1.9"),
                      ("version", "v1.9.0"), ("date", "2024-03-01T09:00:00+01:00")]:
        ge, eq, gt = (_local(key, op, want) for op in (">=", "=", ">"))
        single = [i for i, f in enumerate(FACTS) if not isinstance(f.get(key), list)]
        assert [i for i in gt if i in single] == [i for i in ge if i not in eq and i in single], (
            key, want)


def test_help_names_the_strict_operators():
    assert "KEY>VALUE" in WHERE_HELP and "KEY<VALUE" in WHERE_HELP
    assert parse_where(['size>"<1 ha"', "size<=2", "size>=2", "a<b"]) == [
        ("size", ">", "<1 ha"), ("size", "<=", "2"), ("size", ">=", "2"), ("a", "<", "b")]


values = st.one_of(
    st.sampled_from(["2024-03-01", "2024-03-01T08:00:00Z", "2024", "1.9", "1.10", "1", "1.0",
                     "-inf", "inf", "abc", "小麦", "玉米", "病害", "wheat", "Wheat", "true", "0"]),
    st.integers(-20, 20).map(str), st.dates().map(str),
    st.text(min_size=1, max_size=6).map(str.strip).filter(bool))


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["date", "size", "version", "crop", "tags"]), want=values,
       op=st.sampled_from([">", "<"]))
def test_any_strict_order_selects_alike_locally_and_in_milvus(coll, key, want, op):
    assert _remote(coll, key, op, want) == _local(key, op, want)
