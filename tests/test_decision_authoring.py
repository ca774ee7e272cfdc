"""Decision tables as an author writes them: what `kb check` says about a table that cannot
be read as rules, and the same decision through every door for the tables it accepts."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from kbfixtures import GOOD_FM

from kbtools.check.decision_tables import table_findings
from kbtools.cli import main
from kbtools.decision import build_table, match_rules, parse_condition
from kbtools.errors import TableError
from kbtools.query.inputs import find_inputs

FRONT = "---\ntitle: 判定\n---\n\n# 判定\n\n"


# ----------------------------------------------------------------- units of cells vs column

@pytest.mark.parametrize("header,rows,needle", [
    # ℉ cells under a ℃ header: 20 ℃ was compared with 60 and read as "below 60 °F"
    (["温度(℃)", "等级"], [["<60°F", "低"], ["≥60°F", "高"]], "row 1, column 温度(℃): '<60°F' is in °F"),
    (["株高(cm)", "处理"], [["<50", "否"], ["50mm-80mm", "是"], [">80", "是"]], "'50mm-80mm' is in mm"),
    (["连续降雨天数", "风险"], [["≤3周", "低"], [">3", "高"]], "'≤3周' is in 周, the column in 天"),
    # no unit in the header: the cells must agree among themselves
    (["时长", "处理"], [["<30min", "否"], ["30min-2h", "看"], [">2h", "是"]], "'30min-2h' is in h"),
])
def test_a_cell_in_another_unit_than_its_column_is_malformed(header, rows, needle):
    with pytest.raises(TableError, match=re.escape(needle)) as info:
        build_table(header, rows, decision=f"inputs={header[0]}", line_start=7,
                    row_lines=tuple(range(9, 9 + len(rows))))
    assert info.value.line == 9 + int(info.value.message.split("row ")[1].split(",")[0]) - 1


def test_cells_in_the_column_unit_or_another_spelling_of_it_are_rules():
    for header, cells in ((["温度(℃)", "r"], ["<15℃", "15度-20度", ">20 °C"]),
                          (["运行小时", "r"], ["<2000 h", "≥2000小时"]),
                          (["病叶率", "r"], ["<5%", "5%-10%", ">10%"]),
                          (["坡度(°)", "r"], ["<15度", "≥15度"])):  # ° is no unit we know
        table = build_table(header, [[c, "x"] for c in cells], decision=f"inputs={header[0]}")
        assert table is not None and table.numeric == (0,)


def test_an_unannotated_table_in_mixed_units_is_no_rule():
    assert build_table(["温度(℃)", "等级"], [["<60°F", "低"], ["≥60°F", "高"]]) is None


def test_check_reports_the_unit_at_the_cell_line(tmp_path):
    path = tmp_path / "k.md"
    path.write_text(FRONT + "<!-- decision: inputs=温度(℃); outputs=等级 -->\n"
                    "| 温度(℃) | 等级 |\n|---|---|\n| <15 | 低 |\n| ≥59°F | 高 |\n",
                    encoding="utf-8")
    [(line, code, message)] = table_findings(path)
    assert (line, code) == (11, "decision-malformed") and "'≥59°F' is in °F" in message
    result = CliRunner().invoke(main, ["table", "eval", str(path), "温度=20"])
    assert result.exit_code == 1 and "is in °F, the column in °C" in result.output


# ----------------------------------------------------------------- comparisons in words

@pytest.mark.parametrize("cell,inside,outside", [
    ("低于15", [14.9], [15]), ("不足15", [14], [15]), ("未满15", [14], [15]),
    ("不低于30", [30, 31], [29.9]), ("不少于 2 天", [2], [1]), ("至少3", [3], [2]),
    ("超过30", [30.1], [30]), ("高于30℃", [31], [30]), ("大于等于30", [30], [29]),
    ("不超过3次", [3], [3.1]), ("不高于 20 ℃", [20], [21]), ("5天以内", [5], [6]),
    ("below 150", [149], [150]), ("under 2", [1], [2]), ("less than 2 bar", [1.9], [2]),
    ("above 170", [171], [170]), ("more than 1,000 h", [1001], [1000]),
    ("at least 2", [2], [1.9]), ("not below 40", [40], [39]), ("2 or more", [2], [1]),
    ("140 °F or more", [140], [139]), ("5+", [5], [4]), ("at most 3", [3], [4]),
    ("up to 5 days", [5], [6]), ("10 or less", [10], [11]),
    ("150 to 170", [150, 170], [149, 171]), ("between 150 and 170", [150, 170], [171]),
    ("from 10 h to 20 h", [10, 20], [21]), ("-5 to 0", [-5, 0], [1]),
])
def test_comparisons_and_ranges_written_in_words(cell, inside, outside):
    cond = parse_condition(cell)
    assert cond.numeric, cell
    assert all(cond.accepts_number(x) for x in inside) and \
        not any(cond.accepts_number(x) for x in outside)


@pytest.mark.parametrize("cell", ["超过期限", "under construction", "C++", "A1+", "Between 1 and",
                                  "1 or more items", "低于", "over"])
def test_words_without_their_number_stay_text(cell):
    cond = parse_condition(cell)
    assert cond.kind == "text" and cond.text == cell.casefold()


def test_a_table_in_words_is_rules_checked_and_evaluated_like_one_in_symbols(tmp_path):
    """低于15 / 不低于15 was a text column: kb check said nothing and no number ever matched
    (20 ℃ "does not equal '低于15'"); an English table in words was no table at all."""
    table = build_table(["温度(℃)", "等级"], [["低于15", "低"], ["不低于15", "高"]],
                        decision="inputs=温度(℃)")
    assert table is not None and table.numeric == (0,)
    result = match_rules(table, {"温度": "15"})
    assert result.selected == (2,) and result.matches[0].cells[0].reason == "15 is ≥ 15"
    path = tmp_path / "k.md"
    path.write_text(FRONT + "<!-- decision: inputs=Seal temperature (°F); outputs=Action -->\n"
                    "| Seal temperature (°F) | Action |\n|---|---|\n| below 150 | Monitor |\n"
                    "| 151 to 170 | Inspect |\n| above 170 | Replace |\n", encoding="utf-8")
    assert table_findings(path) == [(8, "decision-gap",
                                     "判定: no row covers Seal temperature (°F) =150")]
    result = CliRunner().invoke(main, ["table", "eval", str(path), "Seal temperature=170"])
    assert result.exit_code == 0 and "170 is in 151–170 (both ends inclusive)" in result.output


# ----------------------------------------------------------------- bounded on both sides

@pytest.mark.parametrize("cell,inside,outside,words", [
    ("above 4 and at most 8", [4.01, 8], [4, 8.01], "> 4 and ≤ 8"),
    (">4, ≤8", [5], [4, 9], "> 4 and ≤ 8"), ("> 4 and <= 8", [8], [4], "> 4 and ≤ 8"),
    ("at least 2,000 h and below 5,000 h", [2000, 4999], [1999, 5000], "≥ 2000 and < 5000"),
    ("高于4且不超过8", [8], [4], "> 4 and ≤ 8"), ("不低于4，低于8", [4], [8], "≥ 4 and < 8"),
])
def test_a_cell_bounded_on_both_sides_is_one_interval(cell, inside, outside, words):
    cond = parse_condition(cell)
    assert cond.kind == "range" and cond.describe() == words
    assert all(cond.accepts_number(x) for x in inside) and \
        not any(cond.accepts_number(x) for x in outside)


@pytest.mark.parametrize("cell", ["above 4 and above 8", "rain and wind", "below 4 and",
                                  "1,000, 2,000", "at most 8, at most 9"])
def test_two_bounds_need_a_lower_and_an_upper_one(cell):
    assert parse_condition(cell).kind != "range"


def test_bands_sharing_their_endpoints_tile_the_number_line(tmp_path):
    """NFPA 70E's PPE table (1.2 to 4, above 4 and at most 8, …) could not be written: 'above
    4 and at most 8' was "not a numeric condition", and 4.1 to 8 left 4–4.1 uncovered."""
    path = tmp_path / "k.md"
    path.write_text(FRONT + "<!-- decision: inputs=Incident energy (cal/cm²); outputs=PPE -->\n"
                    "| Incident energy (cal/cm²) | PPE |\n|---|---|\n| below 1.2 | none |\n"
                    "| 1.2 to 4 | 1 |\n| above 4 and at most 8 | 2 |\n| above 8 | 3 |\n",
                    encoding="utf-8")
    assert table_findings(path) == []
    for energy, row in (("4", 2), ("4.01", 3), ("8", 3), ("8.5", 4)):
        result = CliRunner().invoke(main, ["table", "eval", str(path), f"Incident energy={energy}"])
        assert result.exit_code == 0 and f"row {row} matches" in result.output, result.output


# ----------------------------------------------------------------- "any" as authors write it

@pytest.mark.parametrize("cell", ["-", "—", "–", "－", "任意", "不限", "any", "Any", " * "])
def test_a_dash_or_the_word_any_accepts_any_value(cell):
    assert parse_condition(cell).kind == "any"


def test_a_table_with_dash_and_any_cells_has_no_gap_and_matches(tmp_path):
    """任意 and - were text values: 品种=抗病 matched no row, and kb check reported gaps
    ("no row covers 温度 <20, 品种=任意") that only made sense if 任意 were a variety."""
    path = tmp_path / "k.md"
    path.write_text(FRONT + "<!-- decision: inputs=温度(℃),品种; outputs=等级 -->\n"
                    "| 温度(℃) | 品种 | 等级 |\n|---|---|---|\n| <20 | - | 低 |\n"
                    "| ≥20 | 任意 | 高 |\n", encoding="utf-8")
    assert table_findings(path) == []
    result = CliRunner().invoke(main, ["table", "eval", str(path), "温度=20", "品种=抗病"])
    assert result.exit_code == 0 and "row 2 matches" in result.output



def test_an_empty_cell_under_a_filled_one_is_named_where_rows_overlap(tmp_path):
    """A table written as if cells were merged (the empty 温度 cell meaning "15-20 as above")
    answered 25 ℃ / 90 % from row 2 (中) instead of row 4 (高); kb check said only that the
    rows overlap."""
    path = tmp_path / "k.md"
    path.write_text(FRONT + "<!-- decision: inputs=温度(℃),相对湿度(%); outputs=等级 -->\n"
                    "| 温度(℃) | 相对湿度(%) | 等级 |\n|---|---|---|\n| 15-20 | <85 | 低 |\n"
                    "|  | ≥85 | 中 |\n| >20 | <85 | 中 |\n|  | ≥85 | 高 |\n", encoding="utf-8")
    overlaps = [f for f in table_findings(path) if f[1] == "decision-overlap"]
    assert overlaps == [(13, "decision-overlap", "判定: rows 2 and 4 (lines 11 and 13) both "
                         "match some inputs (no policy declared: the first matching row wins; "
                         "declare policy=first or policy=all in the decision annotation if that "
                         "is meant); row 2's empty 温度(℃) cell accepts any value: if it "
                         "continues '15-20' above, write that again")]


# ----------------------------------------------------------------- policy all through search

PESTS = GOOD_FM.replace("Generated", "Corn borer treatment") + """
# Corn borer treatment

## Treatment table

Several treatments may apply at once; count the larvae per hundred plants.

<!-- decision: inputs=Larvae per 100 plants,Stage; outputs=Treatment; policy=all -->
| Larvae per 100 plants | Stage | Treatment |
|---|---|---|
| >=10 | * | Release Trichogramma wasps |
| >=30 | * | Spray chlorantraniliprole |
| >=30 | tasseling | Hand-pick egg masses |
| <10 | * | No treatment |
"""


@pytest.fixture(scope="module")
def pests_index(tmp_path_factory):
    from hostile import make_repo

    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config
    repo = make_repo(tmp_path_factory.mktemp("pests"), docs={"knowledge/pests.md": PESTS})
    build(load_config(repo), BuildOptions(progress=False))
    return repo


def test_search_answers_a_policy_all_table_with_every_row_it_selects(pests_index):
    from kbtools.api import evaluate_table, open_index, search
    cli = evaluate_table(pests_index / "knowledge" / "pests.md",
                         {"Larvae per 100 plants": "40", "Stage": "tasseling"})
    index = open_index(pests_index / "dist")
    try:
        top = search(index, "corn borer: larvae per 100 plants 40, stage tasseling, "
                     "which treatment?").results[0]
        ev = top.evaluation
        assert ev is not None and ev["status"] == "match"
        # every selected row, as kb table eval gives them (the first row alone was answered)
        assert [r["outputs"] for r in ev["rows"]] == list(cli.outputs) == [
            {"Treatment": "Release Trichogramma wasps"}, {"Treatment": "Spray chlorantraniliprole"},
            {"Treatment": "Hand-pick egg masses"}]
        assert [r["row"] for r in ev["rows"]] == list(cli.selected) == [1, 2, 3]
        assert ev["message"] == cli.message
        assert [c["reason"] for r in ev["rows"] for c in r["cells"]] == [
            c.reason for m in cli.matches for c in m.cells]
        assert top.kind == "table"  # the passage shows every row, not row 1 alone
        # a missing input is certain only when every selected row accepts any value for it
        ev = search(index, "larvae per 100 plants 40, which treatment?").results[0].evaluation
        assert ev is not None and (ev["status"], ev["missing"]) == ("missing_inputs", ["Stage"])
        ev = search(index, "larvae per 100 plants 15, which treatment?").results[0].evaluation
        assert ev is not None and ev["status"] == "match"
        assert [r["outputs"]["Treatment"] for r in ev["rows"]] == ["Release Trichogramma wasps"]
    finally:
        index.close()


def test_the_search_page_and_the_api_show_every_row_of_a_policy_all_answer(pests_index):
    import html

    from starlette.testclient import TestClient

    from kbtools.serve.app import create_app
    question = "larvae per 100 plants 40, stage tasseling, which treatment?"
    with TestClient(create_app(pests_index / "dist"), base_url="http://127.0.0.1") as client:
        page = html.unescape(client.get("/", params={"q": question, "lang": "en"}).text)
        block = page[page.index('class="evaluation'):]
        block = block[:block.index("</div>")]
        for n, treatment in ((1, "Release Trichogramma wasps"), (2, "Spray chlorantraniliprole"),
                             (3, "Hand-pick egg masses")):
            # each output in the knowledge's language (the page's may be another)
            assert f'row {n} → <span lang="en"><strong>Treatment</strong>: {treatment}</span>' \
                in block, block
        client.cookies.clear()
        api = client.post("/api/table/evaluate", json={
            "doc": "knowledge/pests.md", "inputs": {"Larvae per 100 plants": 40,
                                                    "Stage": "tasseling"}}).json()
    assert api["selected"] == [1, 2, 3]



def test_the_library_reads_input_values_as_the_api_and_mcp_do(tmp_path):
    """kbtools.evaluate_table took str(value): True became the text 'True' (a text column
    matched it), where the HTTP API and MCP refuse a boolean."""
    from kbtools.api import evaluate_table
    path = tmp_path / "k.md"
    path.write_text(FRONT + "<!-- decision: inputs=温度(℃),带病; outputs=等级 -->\n"
                    "| 温度(℃) | 带病 | 等级 |\n|---|---|---|\n| <20 | True | 低 |\n"
                    "| ≥20 | * | 高 |\n", encoding="utf-8")
    with pytest.raises(TableError, match="input '带病' must be a string or a number, not a boolean"):
        evaluate_table(path, {"温度": 10, "带病": True})
    assert evaluate_table(path, {"温度": 19.5, "带病": "true"}).selected == (1,)
    assert evaluate_table(path, {"温度": 1e-07, "带病": "x"}).status == "no_match"


# ----------------------------------------------------------------- 以上 / 以下 and (含) / (不含)


def assert_bounds(cell: str, inside: list[float], outside: list[float]) -> None:
    """`cell` reads as a bound or interval holding every value of `inside`, none of `outside`."""
    cond = parse_condition(cell)
    assert cond.is_rangeish, cell
    assert all(cond.accepts_number(x) for x in inside) and \
        not any(cond.accepts_number(x) for x in outside)


@pytest.mark.parametrize("cell,inside,outside", [
    ("6.5以下（不含）", [6.4, 5], [6.5]), ("7.5以上(不含)", [7.6], [7.5]),
    ("7以上（含7）", [7, 9], [6.9]), ("7以上(含 7 ℃)", [7], [6.9]), ("5天以内(不含)", [4], [5]),
    ("30 ℃ 以上", [30, 31], [29]), ("3 m/s 以下", [3, 1], [3.1]), ("60 cm 以上", [60], [59]),
    ("4-8 (inclusive)", [4, 8], [3.9, 8.1]), ("4-8 (exclusive)", [5], [4, 8]),
    ("6.0-6.5（不含6.5）", [6, 6.4], [6.5]),
])
def test_a_bound_left_open_by_its_words_is_closed_by_its_bracket(cell, inside, outside):
    """6.5以下（不含） was the number 6.5 with the unit "以下(不含)": only 6.5 matched it, the
    reverse of what the author wrote; 30 ℃ 以上 (a space before 以上) was no condition."""
    assert_bounds(cell, inside, outside)


@pytest.mark.parametrize("cell", ["<7 (含)", "6.5（含）", "6-6.5(不含7)", "30以上人", "6.5以下备注"])
def test_a_bracket_contradicting_its_cell_or_a_bound_word_with_more_text_is_no_number(cell):
    cond = parse_condition(cell)
    assert not cond.numeric, cell


def test_ph_bands_with_excluded_ends_answer_the_boundary_right(tmp_path):
    path = tmp_path / "k.md"
    path.write_text(FRONT + "<!-- decision: inputs=pH; outputs=类别 -->\n| pH | 类别 |\n|---|---|\n"
                    "| 6.5以下（不含） | 酸性 |\n| 6.5-7.5 | 中性 |\n| 7.5以上（不含） | 碱性 |\n",
                    encoding="utf-8")
    assert table_findings(path) == []
    for value, want in (("6.5", "中性"), ("5", "酸性"), ("7.5", "中性"), ("7.6", "碱性")):
        result = CliRunner().invoke(main, ["table", "eval", str(path), f"pH={value}", "--json"])
        assert result.exit_code == 0 and f'"类别": "{want}"' in result.output, (value, result.output)


def test_an_input_value_with_a_bound_word_is_no_number():
    """温度=30以上 was read as 30: a bound is not a value. Since session 32 it is the range it
    says: answered when one row holds all of it, else the rows it spans are named."""
    table = build_table(["温度(℃)", "措施"], [["<30", "正常"], ["30 ℃ 以上", "遮阴"]],
                        decision="inputs=温度(℃)")
    assert table is not None
    assert match_rules(table, {"温度": "30以上"}).outputs == ({"措施": "遮阴"},)
    with pytest.raises(TableError, match=r"row 1 \(<30 → 正常\), row 2 \(30 ℃ 以上 → 遮阴\)"):
        match_rules(table, {"温度": "25以上"})


# ----------------------------------------------------------------- formulas: 2.8 < v ≤ 7.1

@pytest.mark.parametrize("cell,inside,outside", [
    ("v ≤ 2.8", [2.8], [2.81]), ("v > 18", [18.1], [18]), ("pH<5.5", [5.4], [5.5]),
    ("2.8 < v ≤ 7.1", [2.81, 7.1], [2.8, 7.2]), ("6.0 ≤ pH < 6.5", [6, 6.4], [6.5, 5.9]),
    ("7.1 ≥ v > 2.8", [7.1], [2.8]), ("2.8 mm/s < v ≤ 7.1 mm/s", [5], [2.8]),
    ("温度≥30℃", [30], [29]),
])
def test_a_formula_about_the_value_is_its_interval(cell, inside, outside):
    assert_bounds(cell, inside, outside)


@pytest.mark.parametrize("cell", ["2.8 < v > 7.1", "a<b<c", "v1 < 3"])
def test_a_formula_pointing_two_ways_is_text(cell):
    assert parse_condition(cell).kind == "text"


def test_vibration_zones_written_as_formulas_are_rules(tmp_path):
    """ISO 10816's zones as an engineer writes them (v ≤ 2.8, 2.8 < v ≤ 7.1, …) were a text
    column: kb check said nothing and every vibration got no rule."""
    path = tmp_path / "k.md"
    path.write_text(FRONT + "<!-- decision: inputs=振动(mm/s); outputs=等级 -->\n"
                    "| 振动(mm/s) | 等级 |\n|---|---|\n| v ≤ 2.8 | A |\n| 2.8 < v ≤ 7.1 | B |\n"
                    "| 7.1 < v ≤ 18 | C |\n| v > 18 | D |\n", encoding="utf-8")
    assert table_findings(path) == []
    for value, want in (("2.8", "A"), ("5", "B"), ("7.1", "B"), ("18.5", "D")):
        result = CliRunner().invoke(main, ["table", "eval", str(path), f"振动={value}", "--json"])
        assert result.exit_code == 0 and f'"等级": "{want}"' in result.output, (value, result.output)


# ----------------------------------------------------------------- "as above": 同上, 〃, ditto

@pytest.mark.parametrize("ditto", ["同上", "〃", "ditto", '"', "Same as above"])
def test_an_input_cell_saying_as_above_is_malformed_at_its_line(tmp_path, ditto):
    """同上 was compared as the text 同上: 玉米 with pH 6 matched no row, and kb check only
    reported a gap for 作物=同上."""
    path = tmp_path / "k.md"
    path.write_text(FRONT + "<!-- decision: inputs=作物,土壤pH; outputs=措施 -->\n"
                    "| 作物 | 土壤pH | 措施 |\n|---|---|---|\n| 玉米 | <5.5 | 施石灰 |\n"
                    f"| {ditto} | ≥5.5 | 不施 |\n", encoding="utf-8")
    findings = table_findings(path)
    assert [(line, code) for line, code, _ in findings] == [(11, "decision-malformed")]
    assert "row 2, column 作物" in findings[0][2] and "write '玉米' again" in findings[0][2]
    result = CliRunner().invoke(main, ["table", "eval", str(path), "作物=玉米", "土壤pH=6"])
    assert result.exit_code == 1 and "k.md:11: " in result.output


def test_as_above_in_an_output_cell_is_left_to_the_author():
    table = build_table(["pH", "措施", "备注"], [["<5.5", "施石灰", "见下"], ["≥5.5", "不施", "同上"]],
                        decision="inputs=pH; outputs=措施,备注")
    assert table is not None


# ----------------------------------------------------------------- names in two scripts: 土壤pH

def test_a_column_named_in_two_scripts_is_named_by_either_part():
    """土壤pH could be named neither pH nor 土壤: kb table eval pH=6.2 said "no column 'pH'"
    and 'pH 6.2 种玉米 石灰用量多少' left 土壤pH missing (name parts were CJK or English)."""
    table = build_table(["土壤pH", "作物", "石灰用量(kg/亩)"],
                        [["<5.5", "玉米", "100"], ["5.5-6.5", "玉米", "25"], [">6.5", "玉米", "0"]],
                        decision="inputs=土壤pH,作物")
    assert table is not None
    assert match_rules(table, {"pH": "6.2", "作物": "玉米"}).outputs == ({"石灰用量(kg/亩)": "25"},)
    assert find_inputs("pH 6.2 种玉米 石灰用量多少", table) == {"土壤pH": "6.2", "作物": "玉米"}
    two = build_table(["土壤pH", "水pH", "措施"], [["<5.5", "<6", "施石灰"]],
                      decision="inputs=土壤pH,水pH")
    assert two is not None and "土壤pH" not in find_inputs("pH 6.2", two)  # names both: neither
    with pytest.raises(TableError, match="no column 'pH'"):
        match_rules(two, {"pH": "6.2", "水pH": "6"})


# ----------------------------------------------------------------- the minus sign −

def test_the_minus_sign_is_a_minus_in_cells_inputs_and_questions():
    """A frost table copied from a typeset page (<−5, −5~−2) was text, an input −3 no number,
    and the question 最低气温 −3 度 gave 3: 'no frost protection' for a frost of −3."""
    table = build_table(["最低气温(℃)", "防冻措施"],
                        [["<−5", "覆膜+熏烟"], ["−5~−2", "熏烟"], ["−2~0", "灌水"], [">0", "无"]],
                        decision="inputs=最低气温(℃)")
    assert table is not None and table.numeric == (0,)
    assert match_rules(table, {"最低气温": "−3"}).outputs == ({"防冻措施": "熏烟"},)
    assert find_inputs("最低气温 −3 度 怎么防冻", table) == {"最低气温(℃)": "-3"}


# ----------------------------------------------------------------- ≥7¹: a footnote mark or a power

@pytest.mark.parametrize("cell", ["≥7¹", "<5.5²", "≥10³ CFU/g", "6.0-6.5³"])
def test_a_raised_digit_after_a_number_is_not_glued_onto_it(cell):
    """NFKC made ≥7¹ (a footnote mark) ≥71 and ≥10³ ≥103: a pH of 7.5 matched no row and a
    count of 500 passed a limit of 1000. Either reading is a guess: the cell is no number,
    which kb check reports at its line."""
    assert not parse_condition(cell).numeric
    with pytest.raises(TableError, match="is not a numeric condition"):
        build_table(["pH", "措施"], [[cell, "a"], ["<1", "b"]], decision="inputs=pH")


def test_a_raised_digit_after_a_letter_is_still_read_by_nfkc():
    table = build_table(["气体", "措施"], [["CO₂", "通风"]], decision="inputs=气体")
    assert table is not None and match_rules(table, {"气体": "CO2"}).status == "match"


# ----------------------------------------------------------------- 三天以下: numerals in cells

@pytest.mark.parametrize("cell,inside,outside", [
    ("三天以下", [3, 1], [3.5]), ("三天以上（不含）", [4], [3]), ("不超过五次", [5], [6]),
    ("二十至三十度", [20, 30], [19, 31]), ("五点五以下", [5.5], [5.6]), ("一万小时以上", [10000], [9999]),
    ("高于四且不超过八", [8], [4]),
])
def test_a_bound_written_in_chinese_numerals_is_read(cell, inside, outside):
    assert_bounds(cell, inside, outside)


@pytest.mark.parametrize("cell", ["一级", "十字花科", "五", "三四天以上", "二十五六度"])
def test_a_numeral_that_bounds_nothing_stays_text(cell):
    assert parse_condition(cell).kind == "text"


def test_a_rain_table_in_numerals_is_rules_and_its_units_are_checked(tmp_path):
    """三天以下 / 三天以上（不含） was a text column: 5 days matched no row and kb check said
    nothing."""
    path = tmp_path / "k.md"
    path.write_text(FRONT + "<!-- decision: inputs=降雨天数; outputs=措施 -->\n| 降雨天数 | 措施 |\n"
                    "|---|---|\n| 三天以下 | 观察 |\n| 三天以上（不含） | 喷药 |\n", encoding="utf-8")
    assert table_findings(path) == []
    result = CliRunner().invoke(main, ["table", "eval", str(path), "降雨天数=5"])
    assert result.exit_code == 0 and "=> 措施=喷药" in result.output
    with pytest.raises(TableError, match="'两周以内' is in 周, the column in 天"):
        build_table(["连续降雨天数", "风险"], [["两周以内", "低"], ["三天以上", "高"]],
                    decision="inputs=连续降雨天数")


# ----------------------------------------------------------------- 8 max, min 4, but, thru

@pytest.mark.parametrize("cell,inside,outside", [
    ("8 max", [8, 2], [8.1]), ("8 mm/s max", [8], [9]), ("Max 8", [8], [9]), ("max. 8", [1], [9]),
    ("8 maximum", [8], [9]), ("4 minimum", [4, 9], [3]), ("min 4", [4], [3.9]),
    ("less than or equal to 8", [8], [8.1]), ("greater than or equal to 4", [4], [3]),
    ("up to and including 8", [8], [9]), ("≥ 4 but < 8", [4], [8]), ("4 thru 8", [4, 8], [9]),
    ("最高40℃", [40], [41]), ("最低4", [4], [3]),
])
def test_limits_written_as_max_and_min_are_bounds(cell, inside, outside):
    """8 max / 4 minimum were the numbers 8 and 4 with a unit 'max' / 'minimum': only exactly 8
    matched a row meaning 'at most 8'."""
    assert_bounds(cell, inside, outside)


@pytest.mark.parametrize("cell", ["4 min", "30 min."])  # minutes
def test_min_after_a_number_is_minutes(cell):
    assert parse_condition(cell).kind == "number"
