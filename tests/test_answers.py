"""Executable answers, exact identifiers and distinct results: the pure parts, on tables and
hits made here (the end-to-end behaviour on the example knowledge is in test_search.py)."""

from __future__ import annotations

import pytest

from kbtools.decision import NO_MATCH_MESSAGE, DecisionTable, build_table
from kbtools.decision.numerals import _written, chinese_number
from kbtools.errors import TableError
from kbtools.query import answers, inputs
from kbtools.query.answers import evaluate_inputs
from kbtools.query.distinct import diversify, one_per_section, section_key
from kbtools.query.fusion import Hit
from kbtools.query.identifiers import identifiers, match_level, promote
from kbtools.query.inputs import find_inputs, names_of

SCAB = build_table(
    ["温度(℃)", "相对湿度(%)", "连续降雨天数", "风险等级"],
    [["<15", "*", "*", "低"], ["15-20", "<85", "*", "低"], ["15-20", "≥85", "≤3", "中"],
     ["15-20", "≥85", ">3", "高"], [">20", "≥85", ">3", "极高"]],
    decision="inputs=温度(℃),相对湿度(%),连续降雨天数; outputs=风险等级")
HOURS = build_table(["运行小时", "保养项目"], [["<2000", "继续使用"], ["≥2000", "换油"]],
                    decision="inputs=运行小时; outputs=保养项目")
CROP = build_table(["作物", "温度(℃)", "措施"], [["小麦", ">20", "喷药"], ["水稻", ">20", "排水"]],
                   decision="inputs=作物,温度(℃); outputs=措施")


def test_the_input_readers_stay_importable_from_answers():
    # they moved to kbtools.query.inputs; code that imports them from answers keeps working
    assert SCAB is not None
    for name in ("find_inputs", "read_inputs", "names_of", "given_value", "Inputs",
                 "NAME_GAP", "NAME_GAP_LATIN"):
        assert getattr(answers, name) is getattr(inputs, name)
    assert answers.find_inputs("温度 22 度", SCAB) == {"温度(℃)": "22"}


def test_values_are_read_by_name_part_and_unit():
    assert SCAB is not None and HOURS is not None and CROP is not None
    q = "温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？"
    assert find_inputs(q, SCAB) == {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}
    # 气温 is no part of 温度: the number is taken by its unit; 降雨 2 天 by the unit of 天数
    assert find_inputs("气温 18℃，湿度 95%，降雨 2 天", SCAB) == {
        "温度(℃)": "18", "相对湿度(%)": "95", "连续降雨天数": "2"}
    assert find_inputs("换油后已经运行 2100 小时了", HOURS) == {"运行小时": "2100"}
    assert find_inputs("HX-260 累计运行了 500h", HOURS) == {"运行小时": "500"}  # 260 is no value
    assert find_inputs("E17 报警怎么复位", HOURS) == {}
    assert find_inputs("小麦 温度 25℃", CROP) == {"作物": "小麦", "温度(℃)": "25"}
    assert "湿度" in names_of("相对湿度(%)") and "连续降雨" in names_of("连续降雨天数")
    assert names_of("pressure") == ["pressure"]  # parts only of CJK headers


def test_decision_table_record_round_trip_and_refusal():
    for dt in (SCAB, HOURS, CROP):
        assert dt is not None and DecisionTable.from_record(dt.to_record()) == dt
    broken = SCAB.to_record() | {"inputs": [9]}  # a column the header does not have
    with pytest.raises(TableError, match="record unreadable"):
        DecisionTable.from_record(broken)
    with pytest.raises(TableError, match="record unreadable"):
        DecisionTable.from_record({"header": ["a"]})


def test_synonyms_name_inputs():
    assert SCAB is not None
    # 湿度 is a trailing part of 相对湿度, but 空气湿度 and 土壤湿度 are other compounds of it:
    # which one measures the column only the knowledge's synonyms can say
    assert find_inputs("空气湿度 90%", SCAB) == {} == find_inputs("土壤湿度 30%", SCAB)
    assert find_inputs("空气湿度 90%", SCAB, {"相对湿度": ["空气湿度"]}) == {"相对湿度(%)": "90"}
    assert find_inputs("雨日 5", SCAB, {"连续降雨天数": ["雨日"]}) == {"连续降雨天数": "5"}


def test_evaluation_match_wildcards_missing_and_no_match():
    assert SCAB is not None and CROP is not None
    ev = evaluate_inputs("d.md", 1, SCAB, {"温度(℃)": "22", "相对湿度(%)": "90",
                                            "连续降雨天数": "4"})
    assert (ev.status, ev.row, ev.outputs) == ("match", 5, {"风险等级": "极高"})
    assert [c["matched"] for c in ev.cells] == [True, True, True]
    assert ev.cells[0]["reason"] == "22 is > 20"
    # 12 ℃ selects row 1 whatever the humidity and rain: certain without them
    ev = evaluate_inputs("d.md", 1, SCAB, {"温度(℃)": "12"})
    assert (ev.status, ev.row) == ("match", 1)
    assert "any value" in ev.cells[-1]["reason"] and ev.cells[-1]["value"] is None
    # 18 ℃ alone cannot decide between rows 2-4: the missing inputs are named, no row guessed
    ev = evaluate_inputs("d.md", 1, SCAB, {"温度(℃)": "18"})
    assert ev.status == "missing_inputs" and ev.row is None and not ev.outputs
    assert ev.missing == ("相对湿度(%)", "连续降雨天数")
    ev = evaluate_inputs("d.md", 1, SCAB, {"温度(℃)": "25", "相对湿度(%)": "70",
                                            "连续降雨天数": "1"})
    assert (ev.status, ev.message, ev.row, ev.outputs) == ("no_match", NO_MATCH_MESSAGE, None, {})
    ev = evaluate_inputs("d.md", 1, CROP, {"作物": "玉米", "温度(℃)": "25"})
    assert ev.status == "no_match"
    assert ev.to_dict()["status"] == "no_match" and ev.to_dict()["cells"] == []


def test_identifiers_are_recognised_whole():
    assert identifiers("E17 报警后怎么复位？") == ["E17"]
    assert identifiers("HX-260 按 4.3 节检查") == ["4.3", "HX-260"]
    assert identifiers("what does tidb_enable_fast_create_table do") == ["tidb_enable_fast_create_table"]
    assert identifiers("error [ddl:8204] while adding an index") == ["[ddl:8204]"]
    assert identifiers("call POST /v3/clients/{client_id}/secrets now") == \
        ["/v3/clients/{client_id}/secrets"]
    assert identifiers("the kb:publish scope and TokenCache") == ["kb:publish", "TokenCache"]
    # numbered sections and articles, Traditional script as Simplified
    assert identifiers("4.3 節 講什麼") == identifiers("4.3 节讲什么") == ["4.3"]
    assert identifiers("第 12 條 規定了什麼") == identifiers("第12条规定了什么") == ["第12条"]
    assert identifiers("第 4.3 節和第 3 章") == ["4.3", "第3章"]
    # amounts and plain numbers or words are not identifiers
    assert identifiers("列出 12 条记录，買 3 節電池") == []
    assert identifiers("photos above 25MB, 温度 22 度, timeout 10s, the ingest API") == []


def test_a_slashed_date_or_fraction_is_no_api_path():
    """2024/03/01 was read as the API path /03/01 (and 1/2/3 as /2/3): a specific identifier
    of the question, whose holders joined its ranking and whose chunks *about* it answered it.
    An API path has a name or a {parameter} in it."""
    assert identifiers("2024/03/01 巡检") == identifiers("1/2/3") == identifiers("/1/2") == []
    assert identifiers("2024/03/01 E17 巡检记录") == ["E17"]
    assert identifiers("GET /api/v1/users, then /v3/clients/{id}/7") == \
        ["/api/v1/users", "/v3/clients/{id}/7"]


def test_exact_identifier_levels_and_promotion():
    row = "故障码: E17\n含义: 伺服过载"
    assert match_level(["E17"], row) == 3
    assert match_level(["E17"], "三号机 E17 反复报警") == 2
    assert match_level(["E17", "E21"], "E17 后又报 E21") == 4  # holding both beats one
    assert match_level(["E17"], "报 E170 或 XE17 时") == 0
    assert match_level(["4.3"], "", "4.3 液压系统压力异常") == 3
    assert match_level(["4.3"], "见 4.3.1 节") == 0
    assert match_level(["4.3"], "", "4.3 節 液壓系統") == 3
    assert match_level(["第12条"], "", "第 12 條 起算日") == 3
    assert match_level(["第12条"], "依第12条办理") == 2
    # a short subsection chunked with its section: a heading inside the text heads it
    doc = "# 网关错误码\n\n## GW-7731 错误\n\nGW-7731 表示设备证书过期。\n\n## 重试策略\n"
    assert match_level(["GW-7731"], doc, "网关错误码") == 3
    assert match_level(["GW-7731"], doc.replace("## GW-7731 错误", "## 证书"), "网关错误码") == 2
    assert match_level(["第12条"], "依第 120 條、第 1 條辦理") == 0
    # a name's heading may go on with its arguments, a bracketed note or the version that
    # brought it (the definition of a setting in a reference), not with further words
    assert match_level(["tidb_gc_life_time"], "", "tidb_gc_life_time 从 v5.0 版本开始引入") == 3
    assert match_level(["MERGE_JOIN"], "", "MERGE_JOIN(t1_name [, tl_name ...])") == 3
    assert match_level(["JSON_EXTRACT"], "", "`JSON_EXTRACT()`") == 3
    assert match_level(["alter_pk"], "", "alter_pk（已废弃）") == 3
    assert match_level(["cache_size"], "", "cache_size (since 2.1)") == 3
    assert match_level(["pre_split_regions"], "", "pre_split_regions 示例") == 2
    assert match_level(["INL_JOIN"], "", "INL_JOIN Hint 不生效") == 2
    assert match_level(["p53"], "", "p53 mutation in breast cancer. Correlation with 2 types") == 2
    hits = ["e12-row", "report", "e17-row", "other"]
    level = {"e12-row": 0, "report": 1, "e17-row": 2, "other": 0}
    assert promote(hits, level.__getitem__) == ["e17-row", "report", "e12-row", "other"]
    assert promote(hits, lambda h: 0) == hits


def _rows(spec):
    return {n: {"doc": d, "heading_path": list(p)} for n, (d, p) in enumerate(spec)}


def test_one_result_per_section_keeps_the_rest_reachable():
    rows = _rows([("a.md", ["T"]), ("a.md", ["T"]), ("b.md", ["X"]), ("a.md", ["T"]),
                  ("a.md", ["U"])])
    hits = [Hit(n, 1.0 - n / 10) for n in range(5)]
    kept, more = one_per_section(hits, lambda n: section_key(rows[n]))
    assert [h.num for h in kept] == [0, 2, 4] and more == {0: [1, 3]}


def test_document_diversity_lets_a_second_document_in():
    rows = _rows([("a.md", ["1"]), ("a.md", ["2"]), ("a.md", ["3"]), ("b.md", ["1"])])
    hits = [Hit(0, 1.0), Hit(1, 0.95), Hit(2, 0.9), Hit(3, 0.8)]
    out = diversify(hits, lambda n: rows[n]["doc"], 0.8)
    assert [h.num for h in out] == [0, 3, 1, 2]
    assert out[2].why["doc_decay"] == 0.8 and out[3].why["doc_decay"] == 0.64
    assert diversify(hits, lambda n: rows[n]["doc"], 1.0) == hits


@pytest.mark.parametrize(("question", "table", "column", "given", "status"), [
    ("运行了 2万 小时，要换液压油吗", HOURS, "运行小时", "2万小时", "match"),  # not 2 hours
    ("运行小时 2k 了", HOURS, "运行小时", "2k", "match"),  # 2000 hours (session 39)
    ("运行了 2500 小时", HOURS, "运行小时", "2500", "match"),
    ("温度 72 kPa，湿度 90%，连续降雨 4 天", SCAB, "温度(℃)", "72kPa", "no_match"),
    ("温度 77°F，湿度 90%，连续降雨 4 天", SCAB, "温度(℃)", "25", "match"),  # converted
    ("温度 22 度，湿度 90%，连续降雨 4 周", SCAB, "连续降雨天数", "4周", "match"),  # 28 天
    ("温度 22 度，湿度 90%，连续降雨 1 个月", SCAB, "连续降雨天数", "1个月", "no_match"),
    ("温度 22 度，湿度 90%，连续降雨 4 天", SCAB, "温度(℃)", "22", "match"),
])
def test_a_question_value_whose_unit_would_change_it_is_not_read_as_its_bare_number(
        question, table, column, given, status):
    """'2万 小时' was evaluated as 运行小时=2 (keep using the oil), '72°F' as 72 ℃."""
    found = find_inputs(question, table)
    assert found[column] == given
    ev = evaluate_inputs("d.md", 1, table, found)
    assert ev.status == status, ev.message


@pytest.mark.parametrize(("question", "column", "given"), [
    ("温度零下5度，湿度 90%，连续降雨 4 天", "温度(℃)", "-5"),  # not 5
    ("温度负3度，湿度 90%，连续降雨 4 天", "温度(℃)", "-3"),
    # a bound or a span the table reads goes to it as written (`test_answers_ranges`)
    ("温度不到15度，湿度 90%，连续降雨 4 天", "温度(℃)", "不到15度"),
    ("温度20多度，湿度 90%，连续降雨 4 天", "温度(℃)", None),
    ("温度20来度，湿度 90%，连续降雨 4 天", "温度(℃)", None),  # about 20
    ("温度 22~25 度，湿度 90%，连续降雨 4 天", "温度(℃)", "22~25度"),  # a span: not one end
    ("温度22度到25度，湿度 90%，连续降雨 4 天", "温度(℃)", "22度到25度"),
    ("温度 22 度，湿度 90% 以上，连续降雨 4 天", "相对湿度(%)", "90%以上"),
    ("温度 22 度，湿度 90%，连续降雨 4 天", "温度(℃)", "22"),
])
def test_a_question_value_is_read_as_the_number_it_means(question, column, given):
    """'零下5度' was read as 5 ℃, '不到15度' as 15, '22~25 度' as 25: a bound or a span is no
    one value; the table gets it as written (read as `kb table eval` reads it), or, when no
    range the table reads (20多度), asks for one (missing_inputs) rather than guess a row."""
    found = find_inputs(question, SCAB)
    assert found.get(column) == given
    if given is None:
        assert evaluate_inputs("d.md", 1, SCAB, found).status == "missing_inputs"


@pytest.mark.parametrize(("question", "table", "expected"), [
    # a number that belongs to another quantity is not the column's
    ("今天气温比昨天高5度，达到22度，湿度90%，连续降雨2天", SCAB,  # 5度 a difference (v46)
     {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "2"}),
    ("气温下午3点28度，相对湿度90%，连续降雨2天", SCAB, {"相对湿度(%)": "90", "连续降雨天数": "2"}),
    ("运行小时按6.2节判定，目前2500小时，要换吗？", HOURS, {"运行小时": "2500"}),
    ("玉米病叶率3%，温度22度，连续降雨5天", SCAB, {"温度(℃)": "22", "连续降雨天数": "5"}),
    ("3月2日起气温22度、湿度90%", SCAB, {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("扬花后第3天，气温22度，湿度90%", SCAB, {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("已经连续喷了2次药，气温22度，湿度90%", SCAB, {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("温度不是22度，是18度，湿度90%，连续降雨2天", SCAB,
     {"相对湿度(%)": "90", "连续降雨天数": "2"}),  # two candidates: neither is taken
    # two neighbouring numerals are a rough range (session 43), never another number
    ("温度二十五六度，湿度90%，最低温15度，连续降雨2天", SCAB,
     {"温度(℃)": "二十五到二十六度", "相对湿度(%)": "90", "连续降雨天数": "2"}),
    # a bound is given as written, read as the table reads it (test_answers_bounds.py)
    ("气温已超20度，湿度90%，连续降雨2天", SCAB,
     {"温度(℃)": "超20度", "相对湿度(%)": "90", "连续降雨天数": "2"}),
    ("温度在20度之上，湿度90%，连续降雨3+天", SCAB,
     {"温度(℃)": "20度之上", "相对湿度(%)": "90", "连续降雨天数": "3+天"}),
    ("温度从18度升到25度，湿度90%", SCAB, {"相对湿度(%)": "90"}),
    ("换油后每天运行20小时，已经100天了", HOURS, {}),  # a rate
    ("连续5天没有下雨，温度22度，湿度90%", SCAB, {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("温度22度，湿度90%，连续降雨4天，不知道风险", SCAB,
     {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}),  # a clause apart
])
def test_a_question_gives_a_column_only_a_number_that_is_its_value(question, table, expected):
    """Each was read as another number of the question: the change (5度), the hour of the
    day (3点), a section (6.2节), a rate (病叶率3%), a date (3月2日), an ordinal (第3天), a
    count (2次), the negated value (不是22度), another temperature (最低温15度), a bound."""
    assert find_inputs(question, table) == expected


def test_fahrenheit_is_converted_and_tenths_are_a_percentage():
    """华氏80度 is converted to the column's ℃ (session 45; it was refused); 9成 was refused ("'成' multiplies the number"); a share in tenths is a percentage
    (session 37: tests/test_answers_said_forms.py), 90 % here, refused only in a column of
    another unit."""
    assert find_inputs("温度华氏80度，湿度85%", SCAB)["温度(℃)"] == "26.666667"
    ev = evaluate_inputs("d.md", 1, SCAB, {"温度(℃)": "22", "相对湿度(%)": "9成",
                                            "连续降雨天数": "4"})
    assert ev.status == "match" and ev.row == evaluate_inputs("d.md", 1, SCAB, {
        "温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}).row, ev.message
    ev = evaluate_inputs("d.md", 1, SCAB, {"温度(℃)": "9成", "相对湿度(%)": "90",
                                            "连续降雨天数": "4"})
    assert ev.status == "no_match" and "9成" in ev.message, ev.message


@pytest.mark.parametrize(("question", "expected"), [
    ("温度二十六度，湿度百分之九十，连续降雨三天",
     {"温度(℃)": "26", "相对湿度(%)": "90", "连续降雨天数": "3"}),
    ("温度零下五度，湿度九十五点五%，连续降雨两天",
     {"温度(℃)": "-5", "相对湿度(%)": "95.5", "连续降雨天数": "2"}),
    ("连续降雨十天，温度十八℃", {"连续降雨天数": "10", "温度(℃)": "18"}),
    ("温度26度一整天，湿度90%，连续降雨两天了",  # 一整天, 两天: words, no tenths
     {"温度(℃)": "26", "相对湿度(%)": "90", "连续降雨天数": "2"}),
    ("温度26度5，湿度90%", {"相对湿度(%)": "90"}),
    # not a value: a spoken decimal (26.5); 三四天 is the rough range 三到四天 (session 43:
    # its answer says it was rough), 百分之八九十 the rough range 八十到九十% (session 44)
    ("温度二十六度五，湿度百分之八九十，连续降雨三四天",
     {"相对湿度(%)": "八十到九十%", "连续降雨天数": "三到四天"}),
    # (a bound is given as written, as 90%以上 is: the table reads it)
    ("温度二十多度，湿度达到百分之九十以上，连续降雨二十来天", {"相对湿度(%)": "百分之九十以上"}),
    ("温度二十到二十五度，湿度90%", {"温度(℃)": "二十到二十五度", "相对湿度(%)": "90"}),
    ("温度一度达到三十度，湿度90%", {"相对湿度(%)": "90"}),
    # numerals that count something else: a date, words (一些, 十分)
    ("三月二日开始降雨，一些叶片十分严重，温度十八度", {"温度(℃)": "18"}),
])
def test_chinese_numerals_are_read_only_where_they_are_the_value(question, expected):
    """二十六度 was left missing; a standard numeral a unit follows is now read like 26度, and
    one that is no exact value (二十多, 二十六度五) still is no value."""
    assert find_inputs(question, SCAB) == expected


@pytest.mark.parametrize(("numeral", "value"), [
    ("二十六", "26"), ("十", "10"), ("十五点五", "15.5"), ("两千", "2000"), ("一百零五", "105"),
    ("一万零五百", "10500"), ("十万", "100000"), ("〇点五", "0.5"), ("零", "0"),
    ("三四", None), ("二三十", None), ("二十五六", None), ("一万五", None), ("一百十五", None),
    ("点五", None), ("二十点", None), ("万", None), ("一亿", None),
])
def test_chinese_number_reads_only_the_standard_form(numeral, value):
    assert chinese_number(numeral) == value


def test_chinese_number_reads_every_standard_numeral_back():
    assert all(chinese_number(_written(n)) == str(n) for n in (*range(0, 30_000, 7), 99_999_999))



@pytest.mark.parametrize(("question", "expected"), [
    ("温度22度，湿度 90 要不要喷药", {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("温度22度，连续降雨4天，相对湿度 90 需不需要打药", {"温度(℃)": "22", "相对湿度(%)": "90",
                                                     "连续降雨天数": "4"}),
    ("湿度90%有没有赤霉病风险，温度22度", {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("温度22度是不是该防治，湿度90%", {"温度(℃)": "22", "相对湿度(%)": "90"}),
    # a negation is still one
    ("湿度90%，连续5天没有下雨，要不要喷药", {"相对湿度(%)": "90"}),
])
def test_a_question_asked_the_a_not_a_way_keeps_its_values(question, expected):
    """湿度 90 要不要喷药 left 相对湿度 missing: 要不要 (whether to) was read as a negation of
    the 90, as 5天没有下雨 is."""
    assert find_inputs(question, SCAB) == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("温度 30 度 湿度 90% 要不要喷药", {"温度(℃)": "30", "相对湿度(%)": "90"}),
    ("连续降雨3天温度22度湿度90%", {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "3"}),
    ("连续降雨三天湿度90%温度22度", {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "3"}),
    ("温度22度土壤湿度30%", {"温度(℃)": "22"}),  # another thing's 湿度 still is
])
def test_the_unit_of_a_number_is_no_part_of_the_name_after_it(question, expected):
    """温度 30 度 湿度 90% (compacted 温度30度湿度90%) left 相对湿度 missing: the word before 90
    was 度湿度, read as a compound naming another thing's 湿度 (as 土壤湿度 is)."""
    assert find_inputs(question, SCAB) == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("温度22度，湿度90%，连续降雨4天，温度23度", {"相对湿度(%)": "90", "连续降雨天数": "4"}),
    ("温度22度，湿度90%，湿度70%", {"温度(℃)": "22"}),
    ("温度22度，最低温度15度，湿度90%", {"温度(℃)": "22", "相对湿度(%)": "90"}),  # another one
    ("温度22度，湿度90%，温度22度", {"温度(℃)": "22", "相对湿度(%)": "90"}),  # said twice
])
def test_two_values_for_one_input_leave_it_missing(question, expected):
    """The first was taken and the second dropped without a word: the answer came from a
    value the user may have corrected."""
    assert SCAB is not None
    assert find_inputs(question, SCAB) == expected


@pytest.mark.parametrize(("question", "expected"), [
    # two values of one quantity joined: neither is taken (22 was, 24 dropped)
    ("温度22度和24度，湿度90%，连续降雨4天", {"相对湿度(%)": "90", "连续降雨天数": "4"}),
    ("温度22或24度，湿度90%", {"相对湿度(%)": "90"}),
    ("温度22度、湿度90%、连续降雨3、4天", {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("连续降雨3天和2次喷药，温度22度", {"温度(℃)": "22", "连续降雨天数": "3"}),  # two things
    # a name after 和 is a name of its own (湿度 was taken for a compound, 和湿度, and lost)
    ("温度22度和湿度90%", {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("气温22度及湿度90%", {"温度(℃)": "22", "相对湿度(%)": "90"}),
    ("温度22度和土壤湿度30%", {"温度(℃)": "22"}),
])
def test_values_joined_by_a_conjunction(question, expected):
    assert SCAB is not None
    assert find_inputs(question, SCAB) == expected
