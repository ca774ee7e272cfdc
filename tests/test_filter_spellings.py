"""``--where`` values as people type them, and one table of units for the filters and the
decision tables (session 43, issues 5, 14, 8, 13).

``power=5–10kW`` (an en dash, as a word processor or a datasheet writes a range; an em
dash, 〜, ``5 to 10 kW``) was one text value no document holds; ``crop=小麦;玉米`` (``；``)
the one value "小麦;玉米"; ``power>=1e3W`` was refused ("compare it with one"); ``5 cm²``,
``5cm2``, ``5 ㎠`` and ``5 mm²`` were never converted (m² was); and the decision tables
converted none of hp, psi, inches, pounds or gallons, which the filters did, from a table of
their own. Locally and in Milvus alike."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.decision import build_table, match_rules
from kbtools.decision.units import SCALES, scale, scaled_units
from kbtools.errors import FilterError
from kbtools.query.filter_checks import _check_order
from kbtools.query.filter_numbers import quantity
from kbtools.query.filter_text import parse_where, where_text
from kbtools.query.filter_units import measured
from kbtools.query.filters import value_matches
from kbtools.serve.i18n import error_zh
from tests.milvus_server import engine_rows, facts_collection, local_rows, milvus  # noqa: F401


@pytest.mark.parametrize(("value", "ends"), [
    ("5–10kW", ("5kW", "10kW")), ("5 — 10 kW", ("5kW", "10 kW")), ("5——10kW", ("5kW", "10kW")),
    ("5kW–10kW", ("5kW", "10kW")), ("5〜10kW", ("5kW", "10kW")), ("5 to 10 kW", ("5kW", "10 kW")),
    ("5...10kW", ("5kW", "10kW")), ("5…10kW", ("5kW", "10kW")),  # not 5 to .10kW
    ("-10–-5℃", ("-10℃", "-5℃")),  # the unit as written carried to the first end
    ("2024-01–2024-03", ("2024-01", "2024-03")), ("1e3..2e3W", ("1e3W", "2e3W")),
])
def test_a_range_with_a_dash_or_words_is_its_two_bounds(value, ends):
    assert parse_where([f"power={value}"]) == [("power", ">=", ends[0]), ("power", "<=", ends[1])]


@pytest.mark.parametrize("value", ["A–B", "北京到上海", "up to 5kW", "12-24V"])
def test_text_with_a_dash_stays_one_value(value):
    assert parse_where([f"name={value}"]) == [("name", "=", value)]


@pytest.mark.parametrize(("where", "says"), [
    ("power=10..5kW", "the range 10..5kW holds nothing, its first end above its last; write "
                      "power=5kW..10kW"),
    ("power=10kW–500W", "write power=500W..10kW"), ("t=-5..-10℃", "write t=-10℃..-5℃"),
    ("size=5~3", "write size=3..5"), ("fw=v2..v1", "write fw=v1..v2"),
])
def test_a_range_whose_ends_are_reversed_is_refused_not_empty(where, says):
    """``power=10..5kW`` filtered everything out, silently: one line naming the range."""
    with pytest.raises(FilterError, match=re.escape(says)):
        parse_where([where])
    assert len(parse_where(["fw=1.9..1.10"])) == 2  # versions beside such numbers: 1.9.5


@pytest.mark.parametrize("where", ["crop=小麦;玉米", "crop=小麦；玉米", "crop=小麦; 玉米",
                                   "crop=[小麦；玉米]"])
def test_a_semicolon_separates_values_as_a_comma_does(where):
    read = parse_where([where])
    assert read == [("crop", "=", ("小麦", "玉米"))]
    assert parse_where([where_text(*read[0])]) == read
    assert parse_where(['title="a;b"']) == [("title", "=", "a;b")]  # quoted: one value
    assert parse_where([where_text("title", "=", "a;b")]) == [("title", "=", "a;b")]


@pytest.mark.parametrize(("where", "values"), [  # session 45 (f45b, issue 3): was one text
    ("功率=5kW或10kW", ("5kW", "10kW")), ("crop=小麦或玉米", ("小麦", "玉米")),
    ("crop=小麦或者玉米、大豆", ("小麦", "玉米", "大豆")), ("power=5kW or 10kW", ("5kW", "10kW")),
    ("crop=Wheat OR corn", ("Wheat", "corn")), ("crop!=小麦 或 玉米", ("小麦", "玉米")),
])
def test_or_between_values_separates_them_as_a_comma_does(where, values):
    read = parse_where([where])
    assert read == [(where.split("=")[0].rstrip("!"), "!=" if "!=" in where else "=", values)]
    assert parse_where([where_text(*read[0])]) == read


@pytest.mark.parametrize(("where", "says"), [  # session 46 (f46, issue 1): "compare it with one"
    ("功率>=5kW或10kW", "比较（>=）只取一个界限，如 功率>=5kW；几个值中的任一个请用 =，如 功率=5kW,10kW"),
    ("power>=5kW or 10kW", "an order (>=) takes one bound, e.g. power>=5kW; for any of several "
                           "values use =, e.g. power=5kW,10kW"),
    ("power<5kW或者10kW", "比较（<）只取一个界限，如 power<5kW"), ("数量>5、10", "如 数量=5,10"),
    ("日期<=2024-03或2024-05", "如 日期=2024-03,2024-05"), ("power>5kW,10kW", "e.g. power>5kW;"),
])
def test_an_order_given_several_values_says_what_to_write_in_its_language(where, says):
    with pytest.raises(FilterError) as err:
        parse_where([where])
    assert says in str(err.value) and err.value.key == "order_listed"
    zh = error_zh(err.value)  # a Chinese search page's words
    assert zh is not None and where in zh and "只取一个界限" in zh


@pytest.mark.parametrize(("where", "says"), [  # session 47 (f47): a generic refusal, or text
    ("功率>=5kW或", "“或”后面没有值；请写 功率>=5kW，要取几个值中的任一个请用 = 并列出它们，如 功率=5kW,…"),
    ("功率>=5kW 或者，", "“或者”后面没有值；请写 功率>=5kW，"), ("功率=5kW或", "“或”后面没有值；请写 功率=5kW"),
    ("功率>=或5kW", "“或”前面没有值；请写 功率>=5kW"), ("功率=5kW,10kW或", "请写 功率=5kW,10kW"),
    ("power>=5kW or", 'nothing after "or"; write power>=5kW, or for any of several values use = '
                      "and list them, e.g. power=5kW,…"),
    ("power=5 kW OR", 'nothing after "or"; write power=5 kW'), ("date<=2024-03或", "请写 date<=2024-03"),
])
def test_an_or_with_no_value_after_it_says_what_to_write_in_its_language(where, says):
    with pytest.raises(FilterError) as err:
        parse_where([where])
    assert says in str(err.value) and err.value.key == "or_dangling", str(err.value)
    zh = error_zh(err.value)  # a Chinese search page's words, of an English filter too
    assert zh is not None and where in zh and "没有值" in zh


@pytest.mark.parametrize("where", ["title=A or", "title=或许", "功率=或", 'title="5kW或"',
                                   "功率=5kW或10kW", "crop=小麦或"])
def test_a_word_ending_in_or_is_no_half_list(where):
    assert parse_where([where])


@pytest.mark.parametrize("where", ["n>=1,000", "n>=12,5kW", 'n>="a,b"', "n>=或许", "n<5kW;",
                                   "power>=5kW..10kW"])
def test_an_order_of_one_value_written_with_a_comma_or_or_is_not_a_list(where):
    try:
        assert len(parse_where([where])) in (1, 2)
    except FilterError as err:
        assert err.key != "order_listed", err


@pytest.mark.parametrize("value", ["或许", "或多或少", "是否或许", "color", "A or", "或然率"])
def test_a_value_holding_or_as_part_of_a_word_stays_one_value(value):
    assert parse_where([f"title={value}"]) == [("title", "=", value)]
    for held in ("小麦或玉米", "5kW or 10kW"):  # one value in quotes, written back so
        assert parse_where([f'title="{held}"']) == [("title", "=", held)]
        assert parse_where([where_text("title", "=", held)]) == [("title", "=", held)]


def test_a_number_in_scientific_notation_with_its_unit_is_a_quantity():
    assert quantity("1e3W") == ("w", 1000) and quantity("2.5E-1 kW") == ("kw", Fraction(1, 4))
    _check_order("power", ">=", "1e3W", ["5kW", "800 W"])  # was "compare it with one"
    assert quantity("5A2") is None and quantity("1e3") is None  # a code; a bare number


@pytest.mark.parametrize(("want", "held", "says"), [
    ("1,200条", [3, 5], "1,200条 groups its thousands, write 1200条; power is a number in this"),
    ("二十条", ["5kW"], "二十条 is in Chinese numerals, write 20条; power is a number with"),
    ("12,5kW", ["5kW"], "12,5kW has a decimal comma, write 12.5kW; power is a number with"),
    ("0，75", [3, 5], "write 0.75; power is a number in this index"),
])
def test_an_order_on_a_number_written_otherwise_says_what_to_write(want, held, says):
    """``power>=5,000W`` was refused as any text is ("compare it with one"): the line now
    says what to write (a Chinese numeral before a unit known, ``十亩``, is read:
    `tests/test_filter_numerals.py`)."""
    with pytest.raises(FilterError, match=re.escape(says)):
        _check_order("power", ">=", want, held)


@pytest.mark.parametrize(("written", "in_mu"), [
    ("5 cm²", "7.5E-7"), ("5cm2", "7.5E-7"), ("5 ㎠", "7.5E-7"), ("5平方厘米", "7.5E-7"),
    ("5 mm²", "7.5E-9"), ("5 ㎟", "7.5E-9"), ("1 ㎡", "0.0015"), ("2000 m²", "3"),
])
def test_square_centimetres_and_millimetres_convert(written, in_mu):
    amount = quantity(written)
    assert amount is not None and measured(*amount) == ("亩", Fraction(in_mu))


@pytest.mark.parametrize(("written", "same"), [
    ("5 pounds", "5 lb"), ("2 meters", "200 cm"), ("150 centimetres", "1.5 m"),
    ("3 kilograms", "6斤"), ("2 litres", "2000 ml"), ("5 kilowatts", "5000 W"),
    ("2 tonnes", "2000 kg"), ("300 kilopascals", "3 bar"), ("2 kilovolts", "2000 V"),
])
def test_units_spelled_in_english_words_convert(written, same):
    """``weight>=5 pounds`` or ``length>=2 meters`` compared the word only with itself."""
    a, b = quantity(written), quantity(same)
    assert a is not None and b is not None and measured(*a) == measured(*b)


AREAS = [{"面积": a, "weight": w} for a, w in [
    ("20 cm²", "2 ㎏"),  # 0
    ("0.5 m2", "1500g"),  # 1
    ("300平方毫米", "3 lb"),  # 2: 1.36 kg
    ("1 ㎡", "1e3g"),  # 3
]]


@pytest.fixture(scope="module")
def area_coll(milvus):  # noqa: F811
    with facts_collection(milvus, "spellings", "spellings", [(f, False) for f in AREAS]) as engine:
        yield engine


@pytest.mark.parametrize(("key", "op", "want", "rows"), [
    ("面积", ">", "10cm2", [0, 1, 3]), ("面积", "<", "3000 mm²", [0, 2]),
    ("面积", "=", "10000 cm²", [3]), ("面积", "=", "5000㎠", [1]), ("面积", "<=", "0.003平方米", [0, 2]),
    ("面积", "=", "5–50cm²", [0]), ("weight", ">=", "1.5e3 g", [0, 1]), ("weight", ">", "1.3e3 g", [0, 1, 2]),
    ("weight", "=", "1kg", [3]), ("weight", "<", "2000 g", [1, 2, 3]),
    ("weight", "=", "2 ㎏或1kg", [0, 3]), ("weight", "!=", "2kg or 1kg", [1, 2]),  # session 45
])
def test_spellings_filter_alike_locally_and_in_milvus(area_coll, key, op, want, rows):
    conditions = parse_where([f"{key}{op}{want}"])
    got = [set(local_rows(AREAS, k, o, w)) for k, o, w in conditions]
    engine = [set(engine_rows(area_coll, "spellings", k, o, w, AREAS)) for k, o, w in conditions]
    assert got == engine
    assert sorted(set.intersection(*got)) == rows


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=st.builds(lambda n, sp, u: f"{n}{sp}{u}",
                      st.sampled_from(["0", "2e1", "20", "1.5E3", "3000", "0.5", "1e-2", "-1e3"]),
                      st.sampled_from(["", " "]),
                      st.sampled_from(["cm²", "cm2", "㎠", "mm²", "㎟", "m²", "平方厘米", "亩",
                                       "g", "㎏", "lb", "kg"])),
       op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]), key=st.sampled_from(["面积", "weight"]))
def test_any_spelling_filters_alike_locally_and_in_milvus(area_coll, want, op, key):
    assert engine_rows(area_coll, "spellings", key, op, want, AREAS) == \
        local_rows(AREAS, key, op, want)


@pytest.mark.parametrize(("header", "value", "row", "said"), [
    ("Pressure (psi)", "3 bar", 2, "3 bar = 43.511321319062766 psi"),
    ("压力(kPa)", "30 psi", 2, "30 psi = 206.84271879505084 kPa"),
    ("功率(kW)", "10 hp", 2, "10 hp = 7.456998715822702 kW"),
    ("功率(kW)", "10马力", 2, "10马力 = 7.3549875 kW"), ("Power (W)", "1 hp", 2, None),
    ("Size (in)", "30 cm", 1, "30 cm = 11.811023622047244 in"),
    ("Size (cm)", "12 in", 2, "12 in = 30.48 cm"),
    ("面积(亩)", "2000 m²", 2, "2000 m² = 3 亩"), ("面积(m²)", "5000 cm2", 1, "5000 cm2 = 0.5 m2"),
    ("Weight (kg)", "12 lb", 2, None), ("Tank (L)", "3 gal", 2, None),
])
def test_a_decision_table_converts_the_units_the_filters_do(header, value, row, said):
    """A table's column in psi given bar, in kW given hp, in inches given cm was refused
    (or not converted) where ``--where`` converted them: one table of units for both."""
    cells = {"Power (W)": ["<500", ">=500"], "Weight (kg)": ["<5", ">=5"],
             "Tank (L)": ["<10", ">=10"], "Size (in)": ["<12", ">=12"],
             "Size (cm)": ["<30", ">=30"], "面积(亩)": ["<3", ">=3"],
             "面积(m²)": ["<1", ">=1"], "压力(kPa)": ["<200", ">=200"]}.get(header, ["<40", ">=40"])
    if header.startswith("功率"):
        cells = ["<5", ">=5"]
    table = build_table([header, "措施"], [[c, f"行{i}"] for i, c in enumerate(cells)],
                        decision=f"inputs={header}; outputs=措施")
    result = match_rules(table, {header: value})
    assert result.selected == (row,)
    if said:
        assert result.matches[0].cells[0].reason.startswith(said + ";")


def test_the_tables_and_the_filters_convert_by_one_table():
    """Every pair of units of one family converts alike in a table and in a filter."""
    units = scaled_units()
    for family in SCALES:
        for a in family:
            for b in family:
                if a == b or a == "w":  # a value in w is 2万 to a table
                    continue
                n, d = scale(a, b) or (1, 1)
                mine, theirs = measured(a, Decimal(7)), measured(b, Decimal(7) * n / d)
                if mine is not None and theirs is not None:
                    assert isinstance(mine[1], Decimal) and isinstance(theirs[1], Decimal)
                    assert abs(mine[1] - theirs[1]) <= abs(mine[1]) * Decimal("1e-20"), (a, b)
                assert units[a][0] == units[b][0]


@pytest.mark.parametrize("typed", [  # session 49 (f49, issue 14): 5\u200bkW was text
    "功率=5\u200bkW", "功\u200b率=5kW", "功率=\ufeff5kW", "功率=5\u00adkW", "功率=5\u2060kW",
    "功率\u00a0=\u00a05kW", "功率=5\u00a0kW", "功率=5\u202fkW"])
def test_a_value_with_a_character_that_shows_nothing_reads_as_typed_without_it(typed):
    conditions = parse_where([typed])
    assert [(k, op) for k, op, _ in conditions] == [("功率", "=")]
    want = conditions[0][2]
    assert "\u200b" not in want and "\ufeff" not in want and "\u00ad" not in want
    for held in ("5kW", "5 kW", "5000W", "5\u200bkW", "5\u00a0kW"):
        assert value_matches("功率", held, "=", want), held
    assert not value_matches("功率", "6kW", "=", want)
    assert value_matches("功率", "4kW", "<", want) and parse_where([typed.replace("=", ">=", 1)])


def test_a_document_value_with_other_spaces_or_unseen_characters_is_the_text_typed():
    assert value_matches("name", "Hello\u00a0World", "=", "hello world")
    assert value_matches("name", "小\u200b麦", "=", "小麦")
    assert not value_matches("name", "小 麦", "=", "小麦")  # a blank shows: another value
    assert parse_where(["功率=\u200b,5kW"]) == [("功率", "=", "5kW")]
    quoted = parse_where(['功率="5\u200bkW"'])  # in quotes as typed, and shown back so
    assert quoted == [("功率", "=", "5\u200bkW")] and value_matches("功率", "5kW", "=", quoted[0][2])
    assert parse_where([where_text(*quoted[0])]) == quoted
