"""``--where 价格>=50`` against ``价格: ¥80`` / ``$12.50`` / ``80元`` (session 45, f45b;
issue 2). A currency's sign before its amount was no quantity: ``¥80`` was text, after every
number, and ``价格>=50元`` never found it. Money is now a quantity of its currency (``¥`` is
``元``), compared within it and never converted to another; locally and in Milvus alike."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.errors import FilterError
from kbtools.query.filter_numbers import order_number, quantity
from kbtools.query.filter_text import parse_where
from tests.milvus_server import (  # noqa: F401 - milvus: a fixture
    engine_rows,
    facts_fixture,
    local_rows,
    milvus,
    rows_alike,
)

FACTS = [{"价格": p} for p in ("¥80", "$12.50", "80元", "￥ 30", "€5", "免费", "45")]
coll = facts_fixture("money", FACTS)


@pytest.mark.parametrize(("where", "rows"), [
    ("价格>=50", [0, 2, 5]),  # a bare number orders with every amount; 免费 is text, after them
    ("价格>=50元", [0, 2, 5]), ("价格>=¥50", [0, 2, 5]), ("价格<50元", [3, 6]),  # ¥ is 元; 45 bare
    ("价格=80元", [0, 2]), ("价格=$12.5", [1]), ("价格>$10", [1, 5, 6]),  # never ¥80 for $
    ("价格=20元..100元", [0, 2, 3, 6]), ("价格=¥30或€5", [3, 4]),
])
def test_money_is_a_quantity_of_its_currency_locally_and_in_milvus(coll, where, rows):
    assert rows_alike(coll, "money", FACTS, where) == rows


DOLLARS = [{"价格": p} for p in ("US$12", "HK$12", "NT$12", "S$12", "$12", "12港元", "HK$ 80")]
dollars = facts_fixture("dollars", DOLLARS)


@pytest.mark.parametrize(("where", "rows"), [
    ("价格=HK$12", [1, 5]), ("价格=$12", [0, 4]), ("价格=US$12", [0, 4]),  # US$ is $, HK$ 港元
    ("价格=NT$12", [2]), ("价格=S$12", [3]), ("价格>HK$50", [6]), ("价格<=20美元", [0, 4]),
    ("价格=12..12", list(range(6))),  # a bare number orders with every amount
])
def test_a_dollar_with_its_country_is_its_own_currency_locally_and_in_milvus(dollars, where,
                                                                              rows):
    assert rows_alike(dollars, "dollars", DOLLARS, where) == rows


@pytest.mark.parametrize(("text", "read"), [
    ("¥80", ("¥", 80)), ("$12.50", ("$", 12.5)), ("€ 5", ("€", 5)), ("￥80", ("¥", 80)),
    ("£3.5", ("£", 3.5)), ("80¥", ("¥", 80)), ("$HOME", None), ("¥", None), ("$1,000", ("$", 1000)),
    ("US$12", ("us$", 12)), ("HK$ 12", ("hk$", 12)), ("nt$12", ("nt$", 12)), ("12S$", ("s$", 12)),
    ("HK12", None), ("XX$12", None), ("RMB80", ("rmb", 80)), ("cny 80", ("cny", 80)),
    ("EUR5", ("eur", 5)), ("80RMB", ("rmb", 80)), ("RMBX80", None), ("USDT5", None),
])
def test_a_currency_sign_before_or_after_an_amount_is_its_unit(text, read):
    got = quantity(text)
    assert (None if got is None else (got[0], float(got[1]))) == read


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=st.builds(lambda s, n: f"{s}{n}", st.sampled_from(["¥", "$", "€", "", "￥"]),
                      st.sampled_from(["0", "12.5", "30", "45", "80", "100", "-1"])),
       op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]))
def test_any_amount_filters_alike_locally_and_in_milvus(coll, want, op):
    try:
        conditions = parse_where([f"价格{op}{want}"])
    except FilterError:
        return
    for key, o, w in conditions:
        assert engine_rows(coll, "money", key, o, w, FACTS) == local_rows(FACTS, key, o, w)


CODES = [{"价格": p} for p in ("RMB80", "USD12", "CNY 80", "EUR5", "80RMB", "¥80", "$12",
                               "usd 12.50", "CAD2000", "RMBX80", "12 HKD")]
codes = facts_fixture("codes", CODES)


@pytest.mark.parametrize(("where", "rows"), [  # session 46 (f46, issue 3): RMB80 was text
    ("价格=80元", [0, 2, 4, 5]), ("价格=¥80", [0, 2, 4, 5]), ("价格=RMB80", [0, 2, 4, 5]),
    ("价格=$12", [1, 6]), ("价格=USD12", [1, 6]), ("价格>=USD12", [1, 6, 7, 9]),  # never ¥80
    ("价格<€10", [3]), ("价格>=CNY 50", [0, 2, 4, 5, 9]), ("价格=HK$12", [10]),  # RMBX80 text
    ("价格=c$2000", [8]), ("价格=12..12", [1, 6, 10]),  # a bare number: any amount of 12
])
def test_money_with_its_currency_code_first_is_that_currency_locally_and_in_milvus(codes, where,
                                                                                  rows):
    assert rows_alike(codes, "codes", CODES, where) == rows


WAN = [{"价格": p} for p in ("1.5万元", "3万元", "8000元", "¥12000", "2百万元", "1万美元",
                             "RMB 20000", "2万吨")]
wan = facts_fixture("wan", WAN)


@pytest.mark.parametrize(("where", "rows"), [  # session 46 (f46): 1.5万元 was a unit of its own
    ("价格>=10000元", [0, 1, 3, 4, 6]), ("价格<2万元", [0, 2, 3]), ("价格=15000元", [0]),
    ("价格=1.5万元", [0]), ("价格=20000元..3万元", [1, 6]), ("价格>$5000", [5]),  # never 元
    ("价格>=15000吨", [7]), ("价格=2万元", [6]),
])
def test_an_amount_in_wan_or_yi_is_that_many_of_its_unit_locally_and_in_milvus(wan, where, rows):
    assert rows_alike(wan, "wan", WAN, where) == rows


BARE_WAN = [{"价格": p} for p in ("1.5万", "15000", "8000元", "2万5千", "3千", "-1.2万", "1.5万元",
                                  "免费")]
bare_wan = facts_fixture("barewan", BARE_WAN)


@pytest.mark.parametrize(("where", "rows"), [  # session 47 (f47): a bare 1.5万 was a unit 万
    ("价格>=1.5万", [0, 1, 3, 6, 7]), ("价格=1.5万", [0, 1]), ("价格<2万", [0, 1, 2, 4, 5, 6]),
    ("价格=1万..2万", [0, 1, 6]), ("价格>=10000元", [0, 1, 3, 6, 7]),  # bare beside 元: in 元
    ("价格<0", [5]), ("价格=２万５千", [3]), ("价格<=3千", [4, 5]),
])
def test_a_bare_number_in_wan_is_that_number_locally_and_in_milvus(bare_wan, where, rows):
    assert rows_alike(bare_wan, "barewan", BARE_WAN, where) == rows


@pytest.mark.parametrize(("text", "number"), [
    ("1.5万", 15000), ("2亿", 200000000), ("-1.5万", -15000), ("１．５万", 15000), ("3千", 3000),
    ("2万5千", 25000), ("1.5万亿", 1500000000000), ("5百", 500), ("三万", 30000),
])
def test_a_number_in_digits_times_wan_reads_as_its_value(text, number):
    assert order_number(text) == number and quantity(text) is None


@pytest.mark.parametrize(("text", "read"), [
    ("3千克", ("千克", 3)), ("1.5万元", ("元", 15000)), ("5百米", ("米", 500)),
    ("百分之百", ("%", 100)), ("百分之一百", ("%", 100)), ("百分之十", ("%", 10)),
    ("千分之千", ("‰", 1000)),
])
def test_a_unit_after_a_magnitude_or_a_whole_share_in_words_is_read(text, read):
    got = quantity(text)
    assert got is not None and (got[0], float(got[1])) == read


GROUPED = [{"价格": p} for p in ("¥1,000", "1,000元", "RMB 1,200", "100块", "$1,000", "800元",
                                 "三块钱", "1，500元", "90 yuan")]
grouped = facts_fixture("grouped", GROUPED)


@pytest.mark.parametrize(("where", "rows"), [  # session 47 (f47): ¥1,000 and 100块 were text
    ("价格>=¥1,000", [0, 1, 2, 7]), ("价格>=500元", [0, 1, 2, 5, 7]), ("价格=1000元", [0, 1]),
    ("价格=¥1,000", [0, 1]), ("价格=1,000元,¥1,200", [0, 1, 2]), ("价格<=200块", [3, 6, 8]),
    ("价格=100元", [3]), ("价格=3元", [6]), ("价格=二十块..100块", [3, 8]), ("价格=$1,000", [4]),
    ("价格=1,500元、100块", [3, 7]), ("价格=80元..100元", [3, 8]),
])
def test_an_amount_grouping_its_thousands_or_in_kuai_is_money_locally_and_in_milvus(
        grouped, where, rows):
    assert rows_alike(grouped, "grouped", GROUPED, where) == rows


@pytest.mark.parametrize(("text", "read"), [
    ("¥1,000", ("¥", 1000)), ("1,000元", ("元", 1000)), ("1，000元", ("元", 1000)),
    ("RMB 1,200", ("rmb", 1200)), ("5,000W", ("w", 5000)), ("$1,000,000.5", ("$", 1000000.5)),
    ("100块", ("元", 100)), ("100块钱", ("元", 100)), ("二十块", ("元", 20)), ("5元钱", ("元", 5)),
    ("5 yuan", ("元", 5)), ("5 kgs", ("kg", 5)),  # session 47: units of their own
    ("1,000", None), ("12,5kW", None), ("1,2345W", None), ("1,00W", None),
])
def test_thousands_grouped_before_a_unit_and_kuai_are_read(text, read):
    got = quantity(text)
    assert (None if got is None else (got[0], float(got[1]))) == read


def test_an_order_on_an_amount_grouping_its_thousands_is_one_value():
    """``价格>=¥1,000`` was refused as an order given two values (¥1 and 000)."""
    assert parse_where(["价格>=¥1,000"]) == [("价格", ">=", "¥1,000")]
    assert parse_where(["价格=¥1,000,¥2,000"]) == [("价格", "=", ("¥1,000", "¥2,000"))]
    assert parse_where(["code=1,2"]) == [("code", "=", ("1", "2"))]  # no amount: a list
    assert parse_where(["价格=1,000"]) == [("价格", "=", "1,000")]  # session 48: one number
