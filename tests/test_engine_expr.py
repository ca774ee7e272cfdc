"""``--where`` as Milvus expressions: values never change an expression's structure, and a
real Milvus selects exactly the rows the local filter mask selects."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.cli import main
from kbtools.engine import expr
from kbtools.query.filter_kinds import boolean_of, fold, member_class
from kbtools.query.filter_numbers import order_number
from kbtools.query.filters import number_key, value_matches
from tests.milvus_server import facts_collection, milvus, published_repo  # noqa: F401 - fixture

HOSTILE = ['"', "'", "\\", '\\"', '" or true or "', "') or (1==1", "a\nb", "\r", "\x00",
           "]", "[", "}", "{x}", "%s", "json_contains(", "🙂", "值\"与'", "\u2028", "\t\x1f"]
text = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=30),
                 st.text(alphabet='"\'\\[](){}=<>!&| \n\ttrue', max_size=12))


LITERAL = re.compile(r'"(?:[^"\\\n\r]|\\[\\"nrt])*"')
_UNESCAPE = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}


def _unquote(lit: str) -> str:
    """What Milvus reads from a string literal (its escapes: \\ \" \n \r \t)."""
    return re.sub(r"\\(.)", lambda m: _UNESCAPE[m.group(1)], lit[1:-1])


def _skeleton(expression: str) -> str:
    """The expression with every string literal replaced by S and numbers by N."""
    return re.sub(r"-?\d[\d.e+-]*", "N", LITERAL.sub("S", expression))


keys = st.builds(lambda a, b: a + b, st.sampled_from(["a", "Z", "_", "值"]),
                 st.text(alphabet="az_.-09é值", max_size=10))  # what --where keys may be


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=keys, value=text, op=st.sampled_from(["=", "!=", ">=", "<=", ">", "<"]))
def test_values_never_change_the_structure(key, value, op):
    """Whatever the key and value, the expression has the shape of a benign one, and each
    literal in it reads back as the key or value that went in."""
    got = expr.condition(key, op, value)
    number = number_key(value) if op in ("=", "!=") else order_number(value)
    cls = member_class(value)  # a number that is no version, 0. or 1e5, has no version key;
    # a year beside dates, 2024, its period's too; a quantity, 0A, its own
    shaped = {"n": "1e0", "m": "1", "y": "2024", "q": "1kW"}
    benign = expr.condition("k", op, shaped.get(cls, "1" if number is not None else "x")
                            if boolean_of(value) is None else "yes")  # a YAML boolean's too
    assert _skeleton(got) == _skeleton(benign)
    read = [_unquote(lit) for lit in LITERAL.findall(got)]
    assert key in read
    assert (fold(value) if op in ("=", "!=") else value) in read or \
        order_number(value) is not None and value in read
    assert "\n" not in got and "\r" not in got


def test_literal_round_trips():
    for v in HOSTILE:
        lit = expr.literal(v)
        assert LITERAL.fullmatch(lit) and _unquote(lit) == v


def test_where_expression_joins_filters():
    assert expr.where_expression([], False) == ""
    assert expr.where_expression([], True) == "verified == true"
    e = expr.where_expression([("lang", "=", "ZH"), ("year", ">=", "2024")], True)
    assert e == ('json_contains(f_eq["lang"], "zh") and (f_ord["year"]["nmax"] >= '
                 f'"{expr.order_text(Decimal(2024))}" or f_ord["year"]["xmax"] >= "042024$" or '
                 f'f_ord["year"]["qnmax"] >= "{expr.order_text(Decimal(2024))}" or '
                 'f_ord["year"]["ttmax"] >= "" or '  # text after a number (session 45)
                 'f_ord["year"]["wmax"] >= "2024-01-01T00:00:00.000000") and verified == true')
    # a field of part numbers (`filter_fields.undated_keys`): 2024 is no year there
    e = expr.where_expression([("year", ">=", "2024")], False, {"year"})
    assert "wmax" not in e and 'f_ord["year"]["tdmax"] >= "2024"' in e


# the same rows as the local mask, on a real server ------------------------------------
FACTS = [
    {"title": 'say "hi"', "tags": ["a'b", "C\\D"], "year": 2024, "lang": "zh"},
    {"title": "plain", "tags": ["x"], "year": "2023-05-01", "lang": "EN", "n": 3.5},
    {"title": "] or true", "tags": [], "year": None, "flag": True},
    {"title": "值\"与'", "tags": ["\n", '" or "1"=="1'], "year": 2025, "n": "abc"},
    {"title": "", "tags": ["1", 2, 10.0], "lang": None},
    # numbers written in several ways (YAML ints and floats, quoted text)
    {"size": 1.0, "torque": 25, "code": "007", "big": "9007199254740993", "tags": [1.5, "x"],
     "n": "NaN"},
    {"size": "1", "torque": "25.0", "code": 7, "big": 9007199254740992, "tags": ["1.50"],
     "n": "-0.0"},
    {"size": "1.00e0", "torque": "twenty-five", "code": "07a", "tags": ["2.5", "1E1"],
     "n": 0, "flag": False},
]
SIZE_ONE, TORQUE_25 = [5, 6, 7], [5, 6]


@pytest.fixture(scope="module")
def coll(milvus):  # noqa: F811
    rows = [(f, i % 2 == 0) for i, f in enumerate(FACTS)]
    with facts_collection(milvus, "exprs", "facts", rows) as engine:
        yield engine


def _local(key: str, op: str, want: str) -> list[int]:
    out = []
    for i, f in enumerate(FACTS):
        facts = expr.chunk_facts(f, f"doc{i}.md", "section", i % 2 == 0)
        if value_matches(key, facts.get(key), op, want):
            out.append(i)
    return out


def _remote(engine, expression: str) -> list[int]:
    got = engine.client.query("facts", filter=expression or "num >= 0", output_fields=["num"],
                              consistency_level="Strong")
    return sorted(int(r["num"]) for r in got)


@pytest.mark.parametrize(("key", "op", "want"), [
    ("title", "=", 'SAY "HI"'), ("tags", "=", "a'b"), ("tags", "=", "c\\d"),
    ("tags", "!=", "x"), ("year", ">=", "2024"), ("year", "<=", "2024"),
    ("year", ">=", "2023-01-01"), ("n", ">=", "3"), ("n", "<=", "b"), ("flag", "=", "TRUE"),
    ("lang", "!=", "en"), ("verified", "=", "true"), ("doc", ">=", "doc2.md"),
    ("tags", ">=", "5"), ("tags", "<=", "1"), ("missing", "!=", "x"),
    ("tags", "<=", "NAN"), ("n", ">=", "nan"), ("n", "<=", "5"), ("n", ">=", "-1"),  # not numbers
])
def test_expressions_select_what_the_local_mask_selects(coll, key, op, want):
    assert _remote(coll, expr.condition(key, op, want)) == _local(key, op, want)


@pytest.mark.parametrize(("key", "op", "want", "rows"), [
    ("size", "=", "1", SIZE_ONE), ("size", "=", "1.0", SIZE_ONE), ("size", "=", "+1.000", SIZE_ONE),
    ("size", "!=", "1.0", [0, 1, 2, 3, 4]), ("torque", "=", "25.0", TORQUE_25),
    ("torque", "=", "2.5e1", TORQUE_25), ("torque", "!=", "25", [0, 1, 2, 3, 4, 7]),
    ("torque", "=", "TWENTY-five", [7]),  # text as before: case-folded
    ("code", "=", "7", [5, 6]), ("code", "=", "007", [5, 6]),  # leading zeros: the same number
    ("code", "=", "07A", [7]), ("code", "!=", "7.0", [0, 1, 2, 3, 4, 7]),
    ("big", "=", "9007199254740993", [5]),  # exact: one float, two numbers
    ("big", "!=", "9007199254740992", [0, 1, 2, 3, 4, 5, 7]),
    ("tags", "=", "1.5", [5, 6]), ("tags", "=", "10", [4, 7]), ("tags", "!=", "2.50", [0, 1, 2, 3, 4, 5, 6]),
    ("year", "=", "2024.0", [0]), ("n", "=", "3.50", [1]), ("n", "=", "0", [6, 7]),
    ("flag", "=", "1", []), ("flag", "=", "false", [7]),  # booleans stay words
    ("year", "=", "2023-05-01", [1]),  # dates stay text
])
def test_numbers_are_equal_as_numbers_in_both(coll, key, op, want, rows):
    """``=`` / ``!=`` compare as numbers when both sides read as numbers (1 = 1.0 = 1.00,
    25 = 25.0, 007 = 7), exactly (no float rounding), on the local mask and in Milvus alike;
    otherwise as case-folded text, as before."""
    assert _local(key, op, want) == rows
    assert _remote(coll, expr.condition(key, op, want)) == rows


numeric = st.one_of(
    st.integers(-30, 3000).map(str), st.sampled_from(["1", "1.0", "25.0", "007", "+1", "1e1",
                                                      "-0", "1_0", "１", "2.5", "1.50", "nan", "inf"]),
    st.decimals(allow_nan=False, allow_infinity=False, places=2).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(str))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["title", "tags", "year", "n", "lang", "doc", "size", "torque",
                            "code", "big"]), value=st.one_of(text, numeric),
       op=st.sampled_from(["=", "!=", ">=", "<=", ">", "<"]))
def test_hostile_values_select_what_the_local_mask_selects(coll, key, value, op):
    value = value.strip()  # parse_where strips values
    assert _remote(coll, expr.condition(key, op, value)) == _local(key, op, value)


@settings(max_examples=300, deadline=None)
@given(digits=st.integers(-10**15, 10**15), places=st.integers(-6, 12),
       zeros=st.integers(0, 3), shift=st.integers(-4, 4))
def test_a_number_written_otherwise_is_the_same_number(digits, places, zeros, shift):
    """Every way of writing one number (plain, trailing or leading zeros, exponent, sign)
    has one `number_key`; the next number at the same precision has another."""
    value = Decimal(digits).scaleb(-places)
    plain = format(value, "f")
    sign, rest = ("-", plain[1:]) if plain.startswith("-") else ("", plain)
    forms = [str(value), plain, format(value, "e"), f"{sign}{'0' * zeros}{rest}",
             plain + ("" if "." in plain else ".") + "0" * zeros,
             f"{format(value.scaleb(-shift), 'f')}e{shift}", ("+" + plain) if not sign else plain]
    keys = {number_key(f) for f in forms}
    assert len(keys) == 1 and None not in keys, forms
    assert number_key(format(value + Decimal(1).scaleb(-places), "f")) not in keys


# front matter holding lists of lists, end to end --------------------------------------
NESTED = {  # document → its `rotation` (a nested list), `plots` (lists of numbers)
    "knowledge/wheat.md": ("[[小麦, 玉米], [大豆]]", "[[1, 2], [3.0]]"),
    "knowledge/rice.md": ("[[Rice], [小麦]]", "[[10]]"),
    "knowledge/soy.md": ("[大豆, [Sorghum, 玉米]]", "[2, [25]]"),
    "knowledge/flat.md": ("玉米", "7"),
}


def _nested_doc(title: str, rotation: str, plots: str) -> str:
    return (f"---\ntitle: {title}\ncategory: engineering\nproject: demo\nsource: test\n"
            f"author: alice@example.org\ntimestamp: \"2026-03-14T09:30:00+08:00\"\n"
            f"verified: false\nrotation: {rotation}\nplots: {plots}\n---\n\n# {title}\n\n"
            f"Irrigation schedule of the {title} rotation plots: check the pump seal.\n")


@pytest.fixture(scope="module")
def nested(tmp_path_factory, milvus):  # noqa: F811
    """A repo whose documents hold nested lists in their front matter, built, and published
    into the engine: (local dist/, engine URL)."""
    docs = {path: _nested_doc(Path(path).stem, *values) for path, values in NESTED.items()}
    return published_repo(milvus, tmp_path_factory.mktemp("nested") / "kr", "nested", docs,
                          ("rotation", "plots"))


def _docs_found(args: list[str]) -> list[str]:
    res = CliRunner().invoke(main, ["query", "--json", "-k", "20", *args])
    assert res.exit_code == 0, res.output
    return sorted({r["doc"] for r in json.loads(res.output)["results"]})


@pytest.mark.parametrize(("where", "docs"), [
    ("rotation=小麦", ["rice", "wheat"]), ("rotation=rice", ["rice"]),
    ("rotation=SORGHUM", ["soy"]), ("rotation=玉米", ["flat", "soy", "wheat"]),
    ("rotation!=大豆", ["flat", "good", "rice"]), ("rotation>=大", ["flat", "rice", "soy", "wheat"]),
    ("plots=3", ["wheat"]), ("plots=25.0", ["soy"]), ("plots>=10", ["rice", "soy"]),
    ("plots<=1", ["wheat"]), ("plots!=2", ["flat", "good", "rice"]),
])
def test_members_of_nested_lists_filter_alike_in_the_engine(nested, where, docs):
    """A list inside a front-matter list (``rotation: [[小麦, 玉米], [大豆]]``) matches a filter
    when any of its members does, locally; the engine stored the inner list as one text
    ("['小麦', '玉米']"), so `--where rotation=小麦` found none of its documents there."""
    dist, url = nested
    question = ["irrigation pump seal", "--where", where]
    local = _docs_found([*question, "--index", str(dist)])
    assert local == [f"knowledge/{d}.md" for d in docs]
    assert _docs_found([*question, "--engine", url]) == local


@pytest.mark.parametrize(("where", "same", "docs"), [
    ("rotation=[Rice, 大豆]", "rotation=Rice,大豆", ["rice", "soy", "wheat"]),
    ('rotation=["小麦", 玉米]', "rotation=小麦,玉米", ["flat", "rice", "soy", "wheat"]),
    ("rotation!=[小麦, 大豆]", "rotation!=小麦,大豆", ["flat", "good"]),
    ("plots=[3, 25]", "plots=3,25", ["soy", "wheat"]),
])
def test_a_list_written_as_front_matter_writes_it_filters_alike_in_the_engine(nested, where,
                                                                            same, docs):
    """``--where rotation=[Rice, 大豆]`` (a YAML flow list, as the author writes it in front
    matter) was one value no document holds: nothing found, locally and in the engine. It is
    the list ``Rice,大豆``: any of them for ``=``, none of them for ``!=`` (session 41)."""
    dist, url = nested
    question = ["irrigation pump seal", "--where"]
    local = _docs_found([*question, where, "--index", str(dist)])
    assert local == [f"knowledge/{d}.md" for d in docs]
    assert _docs_found([*question, same, "--index", str(dist)]) == local
    assert _docs_found([*question, where, "--engine", url]) == local
