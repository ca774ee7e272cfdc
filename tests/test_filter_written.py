"""``--where`` values as they are written in Chinese and with grouped digits (session 48,
issues 5, 14): which language a refusal is said in, a value typed after ``=`` with an
operator of its own, and numbers whose thousands are grouped by commas."""

from __future__ import annotations

import pytest

from kbtools.errors import FilterError
from kbtools.query.filter_text import parse_where, written_in_chinese
from kbtools.query.wording import is_cjk


@pytest.mark.parametrize(("text", "zh"), [
    ("\u3400", True), ("\u9fff", True), ("功率", True), ("a，b", True), ("a、b", True),
    ("\u33ff", False), ("\ua000", False), ("power", False), ("a,b", False)])
def test_a_filter_is_chinese_by_the_projects_cjk_test_on_both_sides_of_its_range(text, zh):
    assert written_in_chinese(text) is zh
    assert all(is_cjk(c) is ("\u3400" <= c <= "\u9fff") for c in text)


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
