"""Which unknown terms of a question only make up its values (`kbtools.query.coverage.
value_terms`): they name no subject, so they weigh nothing in a passage's share of the
question, nor in the unknown-share rule."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.decision.numerals import _written
from kbtools.query.coverage import value_terms
from kbtools.query.digits import numeral_values


def _substrings(text: str) -> list[str]:
    """Every piece of `text`: the terms a tokenizer could make of it."""
    return list(dict.fromkeys(text[i:j] for i in range(len(text))
                              for j in range(i + 1, len(text) + 1)))


@pytest.mark.parametrize(("question", "unknown", "values"), [
    # jieba's search-mode terms of each question that the example index does not know
    ("油温八十度怎么办", ["八十", "十度", "八十度"], {"八十", "十度", "八十度"}),
    ("油温 八十 度 怎么办", ["八十", "度"], {"八十", "度"}),
    ("温度二十至三十度", ["二十", "三十", "十度", "三十度"], {"二十", "三十", "十度", "三十度"}),
    ("湿度百分之九十", ["百分", "九十", "百分之", "百分之九十"],
     {"百分", "九十", "百分之", "百分之九十"}),
    ("连续三天下雨", ["三天"], {"三天"}),
    ("油温八十 度", ["度"], {"度"}),  # the unit of a numeral the index knows
    ("三个小时", ["三个"], {"三个"}),
    ("油温八十五度", ["八十", "十五", "八十五", "度"], {"八十", "十五", "八十五", "度"}),
    ("十五点五度", ["十五", "五度"], {"十五", "五度"}),
    ("运行两千小时", ["两千"], {"两千"}),
    ("油温80度怎么办", ["度"], {"度"}),  # a unit after an Arabic number, as before
    # subjects holding numeral characters keep their weight
    ("十字花科", ["十字", "花科", "十字花", "十字花科"], set()),
    ("三七", ["三七"], set()),  # not a numeral written the standard way (三十七)
    ("一氧化碳", ["氧化", "化碳", "氧化碳", "一氧化碳"], set()),
    ("一氧化碳", ["一", "氧化碳"], set()),  # 一 alone, no unit after it: no value
    ("七星瓢虫", ["七星"], set()),
    ("韭菜根蛆", ["韭菜", "蛆"], set()),
    ("三年级", ["三年", "年级", "三年级"], set()),  # 年级 is no unit
    ("连续三四天", ["三四", "四天", "三四天"], set()),  # three or four: not read
    ("百日咳", ["百日", "日咳", "百日咳"], set()),
    ("十六烷值", ["十六", "十六烷值"], {"十六"}),  # the word itself still weighs
    ("三十度的十字花科", ["三十度", "十度", "十字"], {"三十度", "十度"}),
    ("二十度还是二十三四度", ["二十"], set()),  # also in 二十三四, a numeral not read
])
def test_value_terms_are_the_terms_only_values_make_up(question, unknown, values):
    assert value_terms(question, unknown) == values


def test_numeral_values_take_the_measure_word_and_a_one_character_unit():
    assert numeral_values("油温八十度怎么办") == [(2, 5)]
    assert numeral_values("三个月后") == [(0, 3)]
    assert numeral_values("八十 度") == [(0, 4)]
    assert numeral_values("二十至三十度") == [(0, 2), (3, 6)]
    assert numeral_values("湿度百分之九十") == [(2, 7)]
    assert numeral_values("一天") == [(0, 2)]
    assert numeral_values("一氧化碳、三七、十字") == [(8, 9)]  # 十 alone is ten; 字 no unit


_PLAIN = st.text(alphabet="油温怎么办请问过高低压力泵", max_size=6)  # no numeral, unit or 个


@settings(max_examples=600, deadline=None)
@given(before=_PLAIN, n=st.integers(2, 99_999_999), unit=st.sampled_from(["", "度", "天", "周"]),
       after=_PLAIN)
def test_the_pieces_of_a_written_value_and_only_they_are_values(before, n, unit, after):
    """Of every piece of a question writing a value in Chinese numerals, those within the
    value (numeral and unit) are values; every piece reaching outside it names words."""
    value = _written(n) + unit
    question = before + value + after
    assert value_terms(question, _substrings(question)) == set(_substrings(value))
