"""A value the question gives that no input of the table takes (下雨3, 大风3天, 压力3MPa,
``pressure 3 MPa`` on a table of 温度 and 湿度) is said not used, in the question's language,
on every surface (`read_inputs`, the evaluation's message and JSON, ``kb query`` text and
``--json``, the MCP search tool, the search page); the row matched stays the same (issue 17,
session 45)."""

from __future__ import annotations

import json

import anyio
import pytest
from click.testing import CliRunner
from hostile import make_repo
from kbfixtures import SCAB_DOC, SCAB_TABLE, humidity_days_table
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import build_server
from kbtools.api import open_index, search
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.decision import build_table
from kbtools.query.inputs import read_inputs
from kbtools.serve.app import create_app

RISK = build_table(*SCAB_TABLE[:2], decision=SCAB_TABLE[2])
PUMP = build_table(["Temperature (°C)", "Humidity (%)", "Action"],
                   [["<20", "*", "close"], [">=20", ">=85", "open"], [">=20", "<85", "half"]],
                   decision="inputs=Temperature (°C),Humidity (%); outputs=Action")
LARVAE = build_table(["Larvae per 100 plants", "Treatment"], [[">=10", "spray"], ["<10", "none"]],
                     decision="inputs=Larvae per 100 plants; outputs=Treatment")


@pytest.mark.parametrize(("table", "question", "unused"), [
    (RISK, "温度20 湿度90 下雨3", ("下雨3",)),
    (RISK, "温度20 湿度90 下了3天雨", ("下了3天",)),
    (RISK, "温度20 湿度90 大风3天", ("大风3天",)),
    (RISK, "温度20 3号棚空气湿度85", ("空气湿度85",)),  # not 号棚空气湿度85 (v46)
    (RISK, "温度20 湿度85 3号泵80度", ("3号泵80度",)),  # a machine's, whole (v46)
    (RISK, "温度20度，湿度90%，压力3MPa", ("压力3MPa",)),
    (RISK, "温度20，湿度90，压力超过3MPa，风速5级", ("压力超过3MPa", "风速5")),
    (RISK, "温度20度 水温18度 湿度90", ("水温18度",)),
    (PUMP, "temperature 20 C, humidity 90%, pressure 3 MPa", ("pressure 3 MPa",)),
    # every value used, or no value (a place, a time of day, a date), or one already said
    (RISK, "温度20 湿度90", ()),
    (RISK, "3号棚温度20度，湿度90%，下午3点", ()),
    (RISK, "今天12月5日温度20 湿度90", ()),
    (RISK, "温度22度，湿度90%，温度23度", ()),  # two values: said as a conflict
    (RISK, "油温80度 湿度90", ()),  # said of another thing: said so
    (RISK, "温度25度 温度77°F 湿度90", ()),  # one temperature in both scales
    (LARVAE, "corn borer: larvae per 100 plants 40, which treatment?", ()),  # a name's number
    (LARVAE, "Larvae per 100 plants: 40, stage 3", ("stage 3",)),
])
def test_a_value_no_input_takes_is_read_as_unused(table, question, unused):
    assert table is not None
    assert read_inputs(question, table).unused == unused, question


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={"knowledge/risk.md": SCAB_DOC})
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


ZH = "小麦赤霉病风险：温度20 湿度90 下雨3 压力3MPa"
EN = "wheat scab risk: temperature 20 C, humidity 90%, pressure 3 MPa"
ZH_NOTE = "未使用：下雨3、压力3MPa，此表没有对应的输入"
EN_NOTE = "not used: pressure 3 MPa: the table has no such input"


@pytest.mark.parametrize(("question", "unused", "note"), [
    (ZH, ["下雨3", "压力3MPa"], ZH_NOTE), (EN, ["pressure 3 MPa"], EN_NOTE)])
def test_kb_query_json_text_and_mcp_say_the_unused_value(dist, question, unused, note):
    ev = search(open_index(dist), question, k=3).results[0].evaluation
    assert ev is not None and ev["status"] == "match" and ev["row"] == 2, ev  # row unchanged
    assert ev["outputs"] == [{"风险": "高"}]
    assert ev["unused"] == unused and note in ev["message"], ev
    out = CliRunner().invoke(main, ["query", question, "--index", str(dist), "--json", "-k", "3"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["results"][0]["evaluation"]["unused"] == unused
    text = CliRunner().invoke(main, ["query", question, "--index", str(dist), "-k", "3"])
    assert text.exit_code == 0, text.output
    assert f"   {note}\n" in text.output and "风险: 高" in text.output

    async def call():
        return await build_server(index=dist, root=dist.parent).call_tool(
            "search", {"query": question, "k": 3})

    result = anyio.run(call)
    assert not result.is_error, result.content[0].text
    got = json.loads(result.content[0].text)["results"][0]["evaluation"]
    assert got["unused"] == unused and note in got["message"] and got["row"] == 2


def test_the_search_page_says_the_unused_value_in_its_language(dist):
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        zh = client.get("/", params={"q": ZH, "lang": "zh"}).text
        en = client.get("/", params={"q": ZH, "lang": "en"}).text
        api = client.get("/api/search", params={"q": ZH, "k": 3}).json()
    assert "未使用：下雨3, 压力3MPa，此表没有对应的输入" in zh
    assert "not used: 下雨3, 压力3MPa (the table has no such input)" in en
    assert api["results"][0]["evaluation"]["unused"] == ["下雨3", "压力3MPa"]


def test_a_question_whose_values_are_all_used_says_nothing_more(dist):
    ev = search(open_index(dist), "小麦赤霉病风险：温度20度，湿度90%", k=3).results[0].evaluation
    assert ev is not None and ev["unused"] == [] and "未使用" not in ev["message"], ev


@pytest.mark.parametrize(("table", "question", "values", "differences"), [
    (RISK, "温度比昨天高5度，湿度90", {"相对湿度(%)": "90"}, ("比昨天高5度",)),
    (RISK, "温度20 比昨天高5度 湿度90", {"温度(℃)": "20", "相对湿度(%)": "90"}, ("比昨天高5度",)),
    (RISK, "湿度90 比前天低了3度", {"相对湿度(%)": "90"}, ("比前天低了3度",)),
    (RISK, "温度升高5度，湿度90", {"相对湿度(%)": "90"}, ("升高5度",)),
    (RISK, "温度降了3度 湿度90", {"相对湿度(%)": "90"}, ("降了3度",)),
    (RISK, "温度升高到25度，湿度90", {"温度(℃)": "25", "相对湿度(%)": "90"}, ()),  # reached
    (PUMP, "temperature 5 degrees higher than yesterday, humidity 90",
     {"Humidity (%)": "90"}, ("5 degrees higher than yesterday",)),
    (PUMP, "temp up 5 degrees from yesterday, humidity 90", {"Humidity (%)": "90"},
     ("up 5 degrees from yesterday",)),
    (PUMP, "temperature rose by 4 C, humidity 85", {"Humidity (%)": "85"}, ("rose by 4 C",)),
    (PUMP, "temperature rose to 25 C", {"Temperature (°C)": "25"}, ()),
    (PUMP, "temperature 25 C, 3 degrees above yesterday", {"Temperature (°C)": "25"},
     ("3 degrees above yesterday",)),
    (PUMP, "temperature dropped 4 degrees overnight, humidity 85", {"Humidity (%)": "85"},
     ("dropped 4 degrees",)),
])
def test_a_difference_is_no_reading(table, question, values, differences):
    """A value said as a difference from another time (比昨天高5度, ``5 degrees higher than
    yesterday``) is no reading of any input: not taken (温度20比昨天 was read as 20 天), and
    said not used as a difference (issue 17, v46)."""
    assert table is not None
    given = read_inputs(question, table)
    assert (given.values, given.differences, given.unused) == (values, differences, ()), question


def test_the_answer_says_a_difference_was_not_used(dist):
    ev = search(open_index(dist), "小麦赤霉病风险：温度22度，比昨天高5度，湿度90%", k=3).results[0].evaluation
    assert ev is not None and ev["outputs"] == [{"风险": "高"}], ev
    assert "（未使用：比昨天高5度，这是差值，不是读数）" in ev["message"], ev


RAIN_EN = humidity_days_table("Rain days")
RAIN_ZH = humidity_days_table("降雨天数(天)", "zh")
WET_EN = humidity_days_table("Humidity duration (days)")
WET_ZH = humidity_days_table("高湿持续天数(天)", "zh")


@pytest.mark.parametrize(("table", "question", "days", "of"), [
    (RAIN_EN, "humidity 90% over 3 days", None, "humidity"),
    (RAIN_EN, "humidity has been 90% for the past 3 days", None, "humidity"),
    (RAIN_ZH, "湿度90%，已经连续3天", None, "湿度"),
    # the duration's own name, or the column's name the quantity's duration: it fills
    (RAIN_EN, "humidity 90%, rain for 3 days", "3", None),
    (RAIN_ZH, "湿度90%，连续降雨3天", "3", None),
    (WET_EN, "relative humidity 90% for 3 days", "3", None),
    (WET_ZH, "湿度90%持续3天", "3", None),
])
def test_a_duration_said_of_another_quantity_fills_no_column_of_another_thing(
        table, question, days, of):
    """``humidity 90% over 3 days`` gave its 3 days to the table's only days column, rain
    days, though they were said of the humidity (v49): such a duration fills no column,
    unless the column's name is that quantity's duration; the answer says whose they are
    (``3 days is said of humidity, not of Rain days``: `Inputs.others`, v49b), not that the
    table has no such input."""
    assert table is not None
    given = read_inputs(question, table)
    assert (given.values.get(table.header[1]), given.unused) == (days, ()), question
    assert given.values.get(table.header[0]) == "90"
    assert given.others.get(table.header[1], ("", None))[1] == of, given.others
