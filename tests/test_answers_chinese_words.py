"""An evaluation of a Chinese question is said in Chinese: its match and no-match messages
and the notes they end with (`query.answers`), as its missing inputs already were; `kb
query`'s text frames it in Chinese too (`tests/test_answers_other_inputs.py`,
`tests/test_answers_approximate.py`). An English question's stays English."""

from __future__ import annotations

import pytest

from kbtools.decision import NO_MATCH_MESSAGE, build_table
from kbtools.decision.matching import NO_MATCH_ZH
from kbtools.query.answers import evaluate_inputs

RISK = build_table(["温度(℃)", "相对湿度(%)", "风险"],
                   [["<15", "*", "低"], [">=15", ">=85", "高"], [">=15", "<85", "中"]],
                   decision="inputs=温度(℃),相对湿度(%); outputs=风险")
OVERLAP = build_table(["温度(℃)", "措施"], [["<20", "保温"], ["<30", "通风"]],
                      decision="inputs=温度(℃); outputs=措施")
GAP = build_table(["温度(℃)", "措施"], [["<20", "保温"], [">30", "通风"]],
                  decision="inputs=温度(℃); outputs=措施")


@pytest.mark.parametrize(("table", "values", "zh", "en"), [
    (RISK, {"温度(℃)": "20", "相对湿度(%)": "90"}, "第2行匹配", "row 2 matches"),
    (OVERLAP, {"温度(℃)": "10"}, "第1、2行匹配；按 first 策略取第1行",
     "rows 1, 2 match; policy 'first' applied: row 1"),
    (GAP, {"温度(℃)": "25"}, NO_MATCH_ZH, NO_MATCH_MESSAGE),
])
def test_a_match_or_none_is_said_in_the_questions_language(table, values, zh, en):
    """A Chinese question's match was ``row 2 matches`` in its JSON, API and MCP message,
    its missing inputs ``缺少输入：…``."""
    assert table is not None
    assert evaluate_inputs("d.md", 1, table, values, lang="zh").message == zh
    assert evaluate_inputs("d.md", 1, table, values).message == en


def test_the_notes_a_chinese_match_ends_with_are_chinese():
    assert RISK is not None
    ev = evaluate_inputs("d.md", 1, RISK, {"温度(℃)": "25", "相对湿度(%)": "90"},
                         approximate={"相对湿度(%)": "90%"}, lang="zh",
                         readings={"温度(℃)": ("二十五", "25")})
    assert ev.message == "第2行匹配（读作：温度(℃) 二十五 为 25）（近似值：相对湿度(%) 90%）"
    assert ev.readings == {"温度(℃)": "二十五 as 25"}  # (the JSON's field as it was)
    ev = evaluate_inputs("d.md", 1, RISK, {"温度(℃)": "15", "相对湿度(%)": "90"},
                         approximate={"温度(℃)": "约15度"}, lang="zh")
    assert ev.message == "第2行匹配（近似值：温度(℃) 约15度；结果取决于确切数值：温度(℃) >=15）"
