"""Each cell's reason says the value as the table read it, in the language it is asked in:
`CellMatch.reason_in` (the web table page) from the number `match_rules` read, and a
question's evaluation in the question's language on every surface (issue 17, session 48)."""

from __future__ import annotations

import json

import anyio
import pytest
from click.testing import CliRunner
from hostile import make_repo
from kbfixtures import RAIN_TABLE, scab_table, titled_page, top_evaluation
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import build_server
from kbtools.api import open_index, search
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.decision import build_table, match_rules
from kbtools.query.answers import evaluate_inputs
from kbtools.query.inputs import read_inputs
from kbtools.serve.app import create_app


@pytest.mark.parametrize(("header", "cells", "value", "en", "zh"), [
    ("Humidity", [">=85%", "<85%"], "一半", "50 is < 85", "50 满足 < 85"),
    ("Humidity", [">=85%", "<85%"], "九成", "90 is ≥ 85", "90 满足 ≥ 85"),
    ("Temp", ["<20℃", ">=20℃"], "77°F", "25 is ≥ 20", "25 满足 ≥ 20"),
])
def test_a_reason_in_either_language_says_the_value_as_read(header, cells, value, en, zh):
    """A column whose unit only its cells write (``>=85%``, ``<20℃``): the value was read
    in it (一半 as 50, 77°F as 25), but `reason_in` read it again without it and said
    ``1 is < 85`` and ``77 is ≥ 20`` on the table page."""
    table = build_table([header, "Act"], [[c, f"r{n}"] for n, c in enumerate(cells)],
                        decision=f"inputs={header}; outputs=Act")
    cell = match_rules(table, {header: value}).matches[0].cells[0]
    assert (cell.reason, cell.reason_in("en"), cell.reason_in("zh")) == (en, en, zh)
    assert "number" not in match_rules(table, {header: value}).to_dict()["matches"][0]["cells"][0]


SCAB_PAGE = titled_page("小麦赤霉病风险", "按温度、相对湿度和连续降雨天数判定。\n\n" + RAIN_TABLE)
ZH = "小麦赤霉病风险 温度25.5度 湿度80%"
ZH_REASONS = ["25.5 满足 > 20", "80 满足 < 85", "未给出；接受任意值（* 或空单元格）"]


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={"knowledge/scab.md": SCAB_PAGE})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


def test_a_chinese_questions_cell_reasons_are_chinese_on_every_surface(dist):
    """The answer was framed in Chinese and each cell's reason stayed English
    (``温度(℃): 25.5 is > 20``, ``连续降雨天数: not given; …``)."""
    ev = top_evaluation(dist, ZH, "scab.md")  # kb query --json
    assert ev["status"] == "match" and ev["outputs"] == [{"风险等级": "中"}], ev
    assert [c["reason"] for c in ev["cells"]] == ZH_REASONS
    assert [c["reason"] for r in ev["rows"] for c in r["cells"]] == ZH_REASONS
    top = search(open_index(dist), ZH, k=3).results[0]
    assert top.why["cells"] == ZH_REASONS
    text = CliRunner().invoke(main, ["query", ZH, "--index", str(dist), "-k", "3", "--no-log"])
    assert "     温度(℃): 25.5 满足 > 20\n" in text.output, text.output
    assert "     连续降雨天数: 未给出；接受任意值（* 或空单元格）\n" in text.output

    async def call():
        return await build_server(index=dist, root=dist.parent).call_tool(
            "search", {"query": ZH, "k": 3})

    result = anyio.run(call)
    got = json.loads(result.content[0].text)["results"][0]["evaluation"]
    assert [c["reason"] for c in got["cells"]] == ZH_REASONS
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        api = client.get("/api/search", params={"q": ZH, "k": 3}).json()
    assert [c["reason"] for c in api["results"][0]["evaluation"]["cells"]] == ZH_REASONS


def test_an_english_questions_cell_reasons_stay_english():
    table = scab_table(("小麦赤霉病风险",))
    ev = evaluate_inputs("knowledge/scab.md", 1, table, {"温度(℃)": "25.5", "相对湿度(%)": "80"})
    assert [c["reason"] for c in ev.cells] == [
        "25.5 is > 20", "80 is < 85", "not given; any value accepted (* or empty cell)"]
    assert all("number" not in c for c in ev.to_dict()["cells"])


RAIN = build_table(["Temperature (°C)", "Humidity (%)", "Rain days", "Risk"],
                   [["<15", "*", "*", "low"], [">=15", "<85", "*", "medium"],
                    [">=15", ">=85", "<=3", "high"], [">=15", ">=85", ">3", "very high"]],
                   decision="inputs=Temperature (°C),Humidity (%),Rain days; outputs=Risk")


@pytest.mark.parametrize(("question", "values", "unused"), [
    # ``over`` before a number bounds that number, not the one before it (90% was dropped);
    # the days the humidity lasted are no rain days: said so, of the humidity (v49, v49b)
    ("humidity 90% over 3 days, temperature 22",
     {"Humidity (%)": "90", "Temperature (°C)": "22"}, ()),
    ("humidity 90 under 3 days, temperature 22",
     {"Humidity (%)": "90", "Temperature (°C)": "22"}, ()),
    ("humidity 90%, rain over 3 days, temperature 22",
     {"Humidity (%)": "90", "Rain days": "over 3 days", "Temperature (°C)": "22"}, ()),
    # … and after it, with no number next, still bounds it: no exact value
    ("humidity 90 or over, temperature 22", {"Humidity (%)": "90 or over",
                                            "Temperature (°C)": "22"}, ()),
    ("temperature 22, humidity 85 above", {"Temperature (°C)": "22"}, ()),
])
def test_a_bound_word_before_the_next_number_leaves_this_one_exact(question, values, unused):
    assert RAIN is not None
    given = read_inputs(question, RAIN)
    assert (given.values, given.unused) == (values, unused), question


def test_rain_over_days_is_answered_from_the_row_of_both():
    given = read_inputs("humidity 90%, rain over 3 days, temperature 22", RAIN).values
    assert RAIN is not None and match_rules(RAIN, given).outputs == ({"Risk": "very high"},)


@pytest.mark.parametrize(("question", "values", "unused"), [
    # a space groups thousands only before three digits: 3 85 is two numbers, each said
    ("humidity pump 3 85", {}, ("humidity pump 3", "85")),
    ("temperature 22, humidity pump 3 85", {"Temperature (°C)": "22"},
     ("humidity pump 3", "85")),
    ("temperature 22, humidity 1 200", {"Temperature (°C)": "22", "Humidity (%)": "1200"}, ()),
])
def test_a_space_before_two_digits_groups_no_thousands(question, values, unused):
    assert RAIN is not None
    given = read_inputs(question, RAIN)
    assert (given.values, given.unused) == (values, unused), question


@pytest.mark.parametrize(("question", "unused"), [
    # the value after a machine named by number is said with it (85 alone said whose?)
    ("humidity pump no. 3 85", ("humidity pump no. 3 85",)),
    ("temperature 22, pump no. 3 85", ("pump no. 3 85",)),
    ("pump nr 3 85", ("pump nr 3 85",)),  # nr, No, number: no. as written (v48c)
    ("humidity pump No 3 85", ("humidity pump No 3 85",)),
    ("temperature 22, pump number 3 85", ("pump number 3 85",)),
    ("temperature 22 85", ("85",)),  # the 22 is a value: no machine's number
])
def test_a_value_after_a_numbered_machine_is_said_with_it(question, unused):
    assert RAIN is not None
    assert read_inputs(question, RAIN).unused == unused, question


MONTHS = build_table(["Filter age (months)", "Action"], [["<18", "keep"], [">=18", "replace"]],
                     decision="inputs=Filter age (months); outputs=Action")
HOURS = build_table(["Runtime (h)", "Action"], [["<48", "ok"], [">=48", "check"]],
                    decision="inputs=Runtime (h); outputs=Action")
ZH_MONTHS = build_table(["滤芯使用时间(月)", "处理"], [["<18", "保留"], ["≥18", "更换"]],
                        decision="inputs=滤芯使用时间(月); outputs=处理")


@pytest.mark.parametrize(("table", "value", "en", "zh"), [
    # a converted value's reason said its conversion in English units in a Chinese answer
    (MONTHS, "2 years", "2 years = 24 months; 24 is ≥ 18", "2年 = 24个月；24 满足 ≥ 18"),
    (MONTHS, "2年", "2年 = 24 months; 24 is ≥ 18", "2年 = 24个月；24 满足 ≥ 18"),
    (HOURS, "3days", "3days = 72 h; 72 is ≥ 48", "3天 = 72小时；72 满足 ≥ 48"),
    (ZH_MONTHS, "2 Years", "2 Years = 24 月; 24 is ≥ 18", "2年 = 24个月；24 满足 ≥ 18"),
])
def test_a_conversion_is_said_in_the_language_of_the_reason(table, value, en, zh):
    assert table is not None
    cell = match_rules(table, {table.header[0]: value}).matches[0].cells[0]
    assert (cell.reason_in("en"), cell.reason_in("zh")) == (en, zh)
    ev = evaluate_inputs("m.md", 1, table, {table.header[0]: value}, lang="zh")
    assert ev.cells[0]["reason"] == zh


def test_the_results_page_shows_each_cells_reason_in_the_questions_language(dist):
    """The search page showed an evaluation's verdict and outputs but none of its cells'
    reasons, which ``kb query`` and the JSON give (v49): they are listed under the matching
    row, in the question's language whatever the page's."""
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        pages = [client.get("/", params={"q": ZH, "lang": lang}).text for lang in ("zh", "en")]
    for page in pages:
        listed = page.split('<ul class="cell-reasons" lang="zh', 1)[1].split("</ul>", 1)[0]
        assert "温度(℃)</span>: 25.5 满足 &gt; 20</li>" in listed, listed
        assert "连续降雨天数</span>: 未给出；接受任意值（* 或空单元格）</li>" in listed, listed
