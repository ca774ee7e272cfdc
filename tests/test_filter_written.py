"""``--where`` values as they are written in Chinese and with grouped digits (session 48,
issues 5, 14): which language a refusal is said in, a value typed after ``=`` with an
operator of its own, and numbers whose thousands are grouped by commas."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import kbtools
from kbtools.errors import FilterError
from kbtools.query.filter_commas import written_in_chinese
from kbtools.query.filter_numbers import order_number, quantity
from kbtools.query.filter_text import parse_where, where_text
from kbtools.query.wording import is_cjk
from tests.milvus_server import facts_fixture, milvus, rows_alike  # noqa: F401 - fixtures


@pytest.mark.parametrize(("text", "zh"), [
    ("\u3400", True), ("\u9fff", True), ("功率", True), ("a，b", True), ("a、b", True),
    ("\u33ff", False), ("\ua000", False), ("power", False), ("a,b", False)])
def test_a_filter_is_chinese_by_the_projects_cjk_test_on_both_sides_of_its_range(text, zh):
    assert written_in_chinese(text) is zh
    assert all(is_cjk(c) is ("\u3400" <= c <= "\u9fff") for c in text)


def test_one_cjk_definition_serves_the_filters_and_the_query_readers():
    """The filters (`filter_numbers._LATIN_THEN_HAN`) and the query readers (values, naming,
    digits, compacted, wording) each wrote their own ``\\u3400-\\u9fff``, which left out the
    unified ideographs of the compatibility block (U+FA11 﨑, which NFC keeps): one definition
    now, `kbtools.index.tokenize.CJK_RANGES` (session 49, f49, issue 5)."""
    inline = re.compile(r"\\u(?:3400|4e00|4dbf|9fff|9fa5)|[\u3400\u4e00\u9fff]-|-[\u9fa5\u9fff]")
    written = [p.name for p in (Path(kbtools.__file__).parent / "query").glob("*.py")
               if inline.search(p.read_text(encoding="utf-8"))]
    assert written == []
    assert is_cjk("\ufa11") and written_in_chinese("\ufa11") and not is_cjk("\uf8ff") and \
        not is_cjk("") and not is_cjk("\ufb00")
    assert quantity("5kW\ufa11") is None and quantity("5kW之间") is None  # a unit and a word


@pytest.mark.parametrize(("key", "zh"), [("\u3400", True), ("\u9fff", True),
                                         ("\u33ff", False), ("\ua000", False)])
def test_a_dangling_or_is_refused_in_the_language_of_the_filters_key(key, zh):
    with pytest.raises(FilterError) as err:
        parse_where([f"\"{key}\">=5kW or"])
    assert ("后面没有值" in str(err.value)) is zh and ('nothing after "or"' in str(err.value)) is not zh


@pytest.mark.parametrize(("where", "shown", "quoted"), [
    ("温度=≤0℃", "'=≤'", '温度="≤0℃"'), ("温度＝ ≥ 5℃", "'＝≥'", '温度="≥5℃"'),
    ("温度=≠0", "'=≠'", '温度="≠0"'), ("温度>=≤0", "'>=≤'", '温度>="≤0"'),
    ("size=<1", "'=<'", 'size="<1"'), ("crop= =x", "'=='", 'crop="=x"'),
    ("a=<=5", "'=<='", 'a="<=5"')])
def test_a_doubled_operator_is_refused_as_typed(where, shown, quoted):
    with pytest.raises(FilterError) as err:
        parse_where([where])
    said = str(err.value)
    assert f"{shown} is not an operator" in said and said.endswith(f"{quoted})"), said


@pytest.mark.parametrize(("where", "meant"), [("温度=≤0℃", "for ≤0℃ write 温度<=0℃"),
                                              ("价格=＞ 100", "for ＞100 write 价格>100")])
def test_an_order_typed_after_equals_names_the_filter_it_may_mean(where, meant):
    with pytest.raises(FilterError, match=meant):
        parse_where([where])


GROUPED = [{"价格": p} for p in ("5,000", "1，200", "800", "12,5", "1,000,000", "免费", "2,500.5")]
grouped = facts_fixture("grouped", GROUPED)


@pytest.mark.parametrize(("where", "rows"), [  # a document's 5,000 was text, after every number as 12,5 is
    ("价格>=1000", [0, 1, 3, 4, 5, 6]), ("价格<1000", [2]), ("价格=1,000", []),
    ("价格=5000", [0]), ("价格=5,000", [0]), ("价格=1,200;800", [1, 2]),
    ("价格=1,000,000", [4]), ("价格!=5,000", [1, 2, 3, 4, 5, 6]), ("价格=2500.5", [6]),
])
def test_a_number_grouping_its_thousands_is_that_number_locally_and_in_milvus(grouped, where, rows):
    assert rows_alike(grouped, "grouped", GROUPED, where) == rows


@pytest.mark.parametrize(("text", "number"), [
    ("5,000", 5000), ("1，200", 1200), ("-1,234.5", -1234.5), ("1,000,000", 1000000),
    ("１，０００", 1000), ("12,5", None), ("1,2,3", None), ("0,500", None), ("1,0000", None),
    ("1,000,00", None)])
def test_only_thousands_grouped_in_threes_read_as_a_number(text, number):
    assert order_number(text) == number


@pytest.mark.parametrize(("where", "read"), [
    ("价格=1,000", "1,000"), ("价格=2,500", "2,500"), ("价格=12,050", "12,050"),
    ("价格=1,000,000", "1,000,000"), ("价格=1,2,3", ("1", "2", "3")), ("价格=12,5", ("12", "5")),
    ("价格=1,000、2,000", ("1,000", "2,000")), ("价格=1,000, 2,000", ("1,000", "2,000")),
    ('价格="1,000,2,000"', "1,000,2,000"), ("price=1000,500,2", ("1000", "500", "2"))])
def test_thousands_grouped_after_equals_are_one_number_and_a_plain_list_a_list(where, read):
    assert parse_where([where]) == [("价格" if where.startswith("价格") else "price", "=", read)]


@pytest.mark.parametrize(("where", "says"), [
    ("价格=1,000,2,000", "请写 价格=1000,2000（分组的数）或 价格=1;000;2;000（每个一个值）"),
    ("价格!=5,10,100", "请写 价格!=5,10100（分组的数）或 价格!=5;10;100（每个一个值）"),
    ("code=100,200", "the commas of 100,200 may group thousands or separate values; write "
                     "code=100200 (grouped numbers) or code=100;200 (each a value)")])
def test_numbers_a_comma_apart_read_two_ways_are_refused_naming_both(where, says):
    with pytest.raises(FilterError) as err:
        parse_where([where])
    assert says in str(err.value) and err.value.key == "grouping_ambiguous", str(err.value)


SHORT = [{"价格": p} for p in ("1万5", "15000", "3千5", "一万五", "三千五元", "1万50", "2万", "1.5万")]
short = facts_fixture("short", SHORT)


@pytest.mark.parametrize(("where", "rows"), [  # 1万5 was text: no number matched or ordered it
    ("价格=15000", [0, 1, 3, 7]), ("价格=1万5", [0, 1, 3, 7]), ("价格=三千五", [2]),
    ("价格>=1万", [0, 1, 3, 5, 6, 7]), ("价格<1万", [2, 4]), ("价格=3500元", [4]),
])
def test_a_number_said_short_is_that_number_locally_and_in_milvus(short, where, rows):
    assert rows_alike(short, "short", SHORT, where) == rows


@pytest.mark.parametrize(("text", "number"), [
    ("1万5", 15000), ("3千5", 3500), ("2亿3", 230000000), ("3百5", 350), ("-1万5", -15000),
    ("一万五", 15000), ("三千五", 3500), ("两百五", 250), ("一万零五", 10005),
    ("2万5千", 25000), ("1万50", None), ("1万05", None),
    ("5万3千2", 53200), ("-5万3千2", -53200), ("2万5千5", 25500), ("3万2千1", 32100), ("3万2百1", None),
    ("五万三千二", 53200), ("5千3万2", None)])  # session 49 (f49): 5万3千2 was no number
def test_one_digit_after_a_magnitude_is_the_next_place_down(text, number):
    assert order_number(text) == number


@pytest.mark.parametrize(("where", "says"), [  # session 49 (f49)
    ("价格=5万3千20", "5万3千20 不是明确的数，请全用数字写，如 价格=53020")])
def test_more_digits_after_several_magnitudes_are_refused_naming_the_digits(where, says):
    with pytest.raises(FilterError, match=says):
        parse_where([where])


@pytest.mark.parametrize(("where", "says"), [
    ("价格=1万50", "1万50 不是明确的数，请全用数字写，如 价格=10050"),
    ("price>=1万05元", "1万05 不是明确的数，请全用数字写，如 price>=10005元")])
def test_more_digits_after_a_magnitude_are_refused_naming_the_digits(where, says):
    with pytest.raises(FilterError, match=says):
        parse_where([where])


@pytest.mark.parametrize(("where", "says"), [
    ("功率>5kW or more", "范围（5kW or more）只能用 = 筛选（功率=5kW or more），否则请给一个界限（功率>5kW）"),
    ("功率!=5到10kW", "范围（5到10kW）只能用 = 筛选（功率=5到10kW），否则请给一个界限（功率>=5kW）"),
    ("power>5..10kW", "a range (5..10kW) is read with = alone (power=5..10kW); else give one "
                      "bound (power>5kW)")])
def test_a_range_after_an_order_is_refused_in_the_filters_language(where, says):
    with pytest.raises(FilterError) as err:
        parse_where([where])
    assert says in str(err.value), str(err.value)


@pytest.mark.parametrize("where", ["功率在5到10kW之间", "功率介于5和10kW之间", "功率 在 5kW到10kW"])
def test_a_range_said_in_words_with_no_operator_is_that_range(where):
    assert parse_where([where]) == [("功率", ">=", "5kW"), ("功率", "<=", "10kW")]


@pytest.mark.parametrize(("key", "op", "value"), [
    ("A", "=", "≤"), ("A", "=", "≥5"), ("A", ">=", "≥5"), ("A", ">=", "0,:"), ("A", ">", "a,b")])
def test_a_value_starting_with_a_wide_order_or_listing_after_an_order_is_written_back(key, op,
                                                                                       value):
    assert parse_where([where_text(key, op, value)]) == [(key, op, value)]
