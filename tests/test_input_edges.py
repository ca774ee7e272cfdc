"""Input at the edges, through every door: numbers that are not whole (NaN, ±infinity,
``1e400``, booleans, fractions, other scripts' digits), JSON nested past any need, document
paths as short as docs/agents.md allows (``crops/x.md``) with an index, names too long for
the OS, and decision-table numbers in exponent form or beyond a float's range.

Each is a one-line error with its status (HTTP 400, exit 1 or 2) or a correct answer, never
a 500 or a traceback."""

from __future__ import annotations

import json
import math
import os
import shutil

import pytest
from click.testing import CliRunner
from servefixtures import error_of, make_served_repo
from starlette.testclient import TestClient

from kbtools.agents.read import open_knowledge, read_section, shared_folders
from kbtools.cli import main
from kbtools.decision import (
    build_table,
    input_value,
    match_rules,
    overflows,
    parse_condition,
    parse_number,
)
from kbtools.errors import KbError, TableError, UsageError
from kbtools.serve.api import MAX_BODY_DEPTH, json_depth
from kbtools.serve.app import create_app
from kbtools.serve.ops import MAX_K, ApiError, check_inputs, check_k, check_line, whole_number

BASE = "http://127.0.0.1"
SCAB = "knowledge/crops/wheat-scab.md"
SHORT = "crops/wheat-scab.md"
SCAB_INPUTS = {"相对湿度": 90, "连续降雨天数": 2}
K_MESSAGE = f"'k' must be a whole number from 1 to {MAX_K}"


def post(client, url, raw: str):
    """A POST of exactly `raw` (Python's json accepts NaN/Infinity/1e400; clients send them)."""
    return client.post(url, content=raw.encode("utf-8"),
                       headers={"content-type": "application/json"})


# ----------------------------------------------------------------- whole numbers (no server)

@pytest.mark.parametrize("value", [
    math.inf, -math.inf, math.nan, 1e400, True, False, 2.5, 3.0, 0, -1, MAX_K + 1, 10**400,
    "0", str(MAX_K + 1), "-1", "+3", "3.0", "1e1", "inf", "nan", "NaN", "٣", "³", "①", "3_0", "",
    "9" * 5000, [3], {"k": 3}, None,
])
def test_whole_number_refuses_what_is_not_one(value):
    assert whole_number(value, 1, MAX_K) is None


@pytest.mark.parametrize("value, expected", [(1, 1), (20, 20), ("7", 7), (" 7 ", 7), ("020", 20),
                                             ("１", 1), ("２０", 20), ("　１５　", 15)])
def test_whole_number_accepts_ints_and_ascii_digits(value, expected):
    """ASCII digits, and full-width ones as a Chinese input method types them (１５)."""
    assert whole_number(value, 1, MAX_K) == expected


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 1e400, True, 2.5, "1e400"])
def test_check_k_and_check_line_say_what_is_wanted(value):
    with pytest.raises(ApiError) as exc:
        check_k(value)
    assert (exc.value.status, exc.value.message) == (400, K_MESSAGE)
    with pytest.raises(ApiError) as exc:
        check_line(value, "line_start")
    assert exc.value.status == 400 and "'line_start' must be a line number" in exc.value.message


def test_json_depth_counts_without_recursion():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert json_depth(deep) == 100_001
    assert json_depth({"a": [1, {"b": 2}]}) == 3 and json_depth(5) == 0 and json_depth({}) == 1


# ----------------------------------------------------------------- decision-table numbers

@pytest.mark.parametrize("value, text", [
    (1e-7, "0.0000001"), (22.0, "22"), (-0.0, "0"), (0.1, "0.1"), (2.5e1, "25"),
    (1e308, "1e+308"), (-1e308, "-1e+308"), (5e-324, "5e-324"), (17.999999999999996,
                                                                  "17.999999999999996"),
    (12, "12"), (10**30, "1" + "0" * 30), ("18℃", "18℃"),
])
def test_input_value_writes_numbers_exactly(value, text):
    assert input_value(value, "温度") == text
    if not isinstance(value, str):
        assert parse_number(text) == float(value)  # read back as exactly that number


@pytest.mark.parametrize("value, words", [
    (True, "not a boolean"), (False, "not a boolean"), (math.nan, "finite"),
    (math.inf, "finite"), (-math.inf, "finite"), (10**400, "too large"), (None, "string or a number"),
    ([1], "string or a number"), ({"v": 1}, "string or a number"),
])
def test_input_value_refuses_what_no_decision_may_rest_on(value, words):
    with pytest.raises(TableError) as exc:
        input_value(value, "温度")
    assert words in exc.value.message and "温度" in exc.value.message


def test_exponent_inputs_are_numbers_and_overflow_is_refused():
    assert parse_number("1e-7") == 1e-7 and parse_number("2.5E3 h") == 2500
    assert parse_number("1e400") is None and overflows("1e400") and overflows("9" * 401)
    assert not overflows("abc") and not overflows("20℃") and parse_number("20e") == 20
    table = build_table(["温度(℃)", "风险"], [["<15", "低"], ["15-20", "中"], [">20", "高"]],
                        decision="inputs=温度(℃); outputs=风险")
    assert match_rules(table, {"温度": "1e-7"}).outputs[0]["风险"] == "低"
    assert match_rules(table, {"温度": "1e308"}).outputs[0]["风险"] == "高"
    for value in ("9" * 401, "-1e400", "1e999 ℃"):
        with pytest.raises(TableError, match="too large a number"):
            match_rules(table, {"温度": value})
    # a bare-number (text-compared) column refuses it too: no silent "no_match"
    plain = build_table(["档位", "转速"], [["1", "低"], ["2", "高"]], decision="inputs=档位")
    with pytest.raises(TableError, match="too large a number"):
        match_rules(plain, {"档位": "9" * 401})


def test_a_cell_beyond_a_float_is_text_and_an_annotated_numeric_column_refuses_it():
    assert parse_condition("<" + "9" * 401).kind == "text"
    assert parse_condition("1-" + "9" * 401).kind == "text"
    with pytest.raises(TableError):
        build_table(["温度(℃)", "风险"], [["<15", "低"], [">" + "9" * 401, "高"]],
                    decision="inputs=温度(℃); outputs=风险")


def test_check_inputs_uses_input_value():
    assert check_inputs({"温度": 1e-7, "湿度": "90%"}) == {"温度": "0.0000001", "湿度": "90%"}
    assert check_inputs({"温度": 1e308}) == {"温度": "1e+308"}
    for bad in (True, math.nan, math.inf):
        with pytest.raises(ApiError) as exc:
            check_inputs({"温度": bad})
        assert exc.value.status == 400


# ----------------------------------------------------------------- short paths, pure

def test_shared_folders():
    assert shared_folders(["knowledge/a.md", "knowledge/crops/b.md"]) == ("knowledge",)
    assert shared_folders(["knowledge/crops/a.md"]) == ("knowledge", "knowledge/crops")
    assert shared_folders(["docs/kb/a.md", "docs/kb/x/b.md"]) == ("docs", "docs/kb")
    assert shared_folders(["a.md", "knowledge/b.md"]) == () and shared_folders([]) == ()


# ----------------------------------------------------------------- over a built index

@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return make_served_repo(tmp_path_factory.mktemp("edges") / "kr")


@pytest.fixture(scope="module")
def client(repo):
    with TestClient(create_app(repo / "dist"), base_url=BASE) as c:
        yield c


@pytest.mark.slow
@pytest.mark.parametrize("k", ["1e400", "Infinity", "-Infinity", "NaN", "true", "false", "2.5",
                               "3.0", "0", str(MAX_K + 1), "100000000000000000000000000000", '"٣"',
                               '"1e1"', "[3]", '{"k": 3}'])
def test_search_k_that_is_no_whole_number_is_a_400(client, k):
    message = error_of(post(client, "/api/search", f'{{"query": "E17", "k": {k}}}'), 400)
    assert message == K_MESSAGE


@pytest.mark.slow
@pytest.mark.parametrize("k", ["1e400", "inf", "nan", "3.0", "³", "٣", "9" * 30, "-1"])
def test_search_k_in_the_query_string(client, k):
    assert error_of(client.get("/api/search", params={"q": "E17", "k": k}), 400) == K_MESSAGE
    assert client.get("/api/search", params={"q": "E17", "k": "2"}).status_code == 200


@pytest.mark.slow
@pytest.mark.parametrize("value", ["1e400", "nan", "inf", "2.0", "٣", "9" * 30, "0", "true"])
def test_read_line_numbers_that_are_no_whole_number_are_a_400(client, value):
    message = error_of(client.get("/api/read", params={"doc": SCAB, "line_start": value}), 400)
    assert "'line_start' must be a line number" in message


@pytest.mark.slow
def test_a_deeply_nested_body_is_a_400(client):
    deep = '{"query": "E17", "k": ' + "[" * 20000 + "]" * 20000 + "}"
    assert len(deep) < 64 * 1024
    for url in ("/api/search", "/api/table/evaluate"):
        message = error_of(post(client, url, deep), 400)
        assert "not a JSON object" in message and "nests deeper" in message
    just_over = '{"query": "E17", "k": ' + "[" * MAX_BODY_DEPTH + "]" * MAX_BODY_DEPTH + "}"
    assert "nests deeper" in error_of(post(client, "/api/search", just_over), 400)
    fine = {"doc": SCAB, "inputs": {"温度": 18, **SCAB_INPUTS}}
    assert client.post("/api/table/evaluate", json=fine).status_code == 200


@pytest.mark.slow
@pytest.mark.parametrize("length", [b"x", "²".encode("latin-1"), b"9" * 5000, b"-5"])
def test_content_length_that_is_no_number_is_refused(client, length):
    resp = client.post("/api/search", content=b'{"query": "E17"}',
                       headers={"content-length": length, "content-type": "application/json"})
    assert "larger than" in error_of(resp, 413)


@pytest.mark.slow
def test_short_paths_work_with_an_index(client, repo):
    kn = open_knowledge(index=repo / "dist")
    assert kn.rel(kn.resolve(SHORT)) == SCAB == kn.rel(kn.resolve("./" + SHORT))
    assert read_section(kn, SHORT, "3.2").doc == SCAB
    body = client.get("/api/read", params={"doc": SHORT, "heading_path": "3.2"}).json()
    assert body["doc"] == SCAB and body["citation"].startswith(f"{SCAB}:")
    result = client.post("/api/table/evaluate",
                         json={"doc": SHORT, "inputs": {"温度": 18, **SCAB_INPUTS}})
    assert result.status_code == 200 and result.json()["doc"] == SCAB
    assert client.get(f"/doc/{SHORT}").status_code == 200
    assert client.get(f"/table/{SHORT}").status_code == 200
    # a file name alone reads the one document so named (w45b); a doubled folder or a file
    # no document has is not found
    assert client.get("/api/read", params={"doc": "wheat-scab.md"}).json()["doc"] == SCAB
    for missing in ("knowledge/knowledge/crops/wheat-scab.md", "crops/nothing-here.md"):
        error_of(client.get("/api/read", params={"doc": missing}), 404)


@pytest.mark.slow
@pytest.mark.parametrize("doc", ["../crops/wheat-scab.md", "crops/../../x.md", "/crops/wheat-scab.md",
                                 "~/crops/wheat-scab.md", "crops\\wheat-scab.md", "C:/crops/x.md"])
def test_short_paths_keep_the_confinement(client, doc):
    error_of(client.get("/api/read", params={"doc": doc}), 400)


@pytest.mark.slow
def test_a_short_path_through_a_link_leaving_the_index_is_refused(repo, tmp_path):
    dist = tmp_path / "dist"
    shutil.copytree(repo / "dist", dist, symlinks=True)
    outside = tmp_path / "secret.md"
    outside.write_text("# secret\n", encoding="utf-8")
    os.symlink(outside, dist / "data" / "source" / "knowledge" / "crops" / "evil.md")
    kn = open_knowledge(index=dist)
    for doc in ("crops/evil.md", "knowledge/crops/evil.md"):
        with pytest.raises(UsageError, match="outside"):
            kn.resolve(doc)


@pytest.mark.slow
def test_table_eval_with_a_short_path_in_every_mode(repo, monkeypatch):
    monkeypatch.chdir(repo)
    runner = CliRunner()
    args = ["温度=18", "相对湿度=90", "连续降雨天数=2", "--json"]
    for extra in (["--index", "dist"], []):
        for doc in (SHORT, SCAB):
            res = runner.invoke(main, ["table", "eval", doc, *args, *extra])
            assert res.exit_code == 0, res.output
            assert json.loads(res.stdout)["doc"] == SCAB
        res = runner.invoke(main, ["table", "list", SHORT, *extra])
        assert res.exit_code == 0 and "风险等级" in res.output


@pytest.mark.slow
def test_table_eval_numbers_over_the_api(client):
    def evaluate(temp: str):
        raw = f'{{"doc": "{SCAB}", "inputs": {{"温度": {temp}, "相对湿度": 90, "连续降雨天数": 2}}}}'
        return post(client, "/api/table/evaluate", raw)

    for temp, shown in (("1e-7", "0.0000001"), ("1e308", "1e+308"), ("1.8e1", "18"),
                        ("22.0", "22")):
        resp = evaluate(temp)
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert body["status"] == "match" and body["inputs"]["温度(℃)"] == shown
    for temp, words in (("true", "boolean"), ("false", "boolean"), ("NaN", "finite"),
                        ("Infinity", "finite"), ("1e400", "finite"), ('"1e400"', "too large"),
                        ('"' + "9" * 151 + "0" * 50 + '"', "longer than"),
                        ("9" * 401, "too large")):
        assert words in error_of(evaluate(temp), 400)
    assert "no decision table named" in error_of(
        client.post("/api/table/evaluate", json={"doc": SCAB, "table": "²", "inputs": {}}), 400)
    assert client.get(f"/table/{SCAB}", params={"table": "²"}).status_code == 400


# ----------------------------------------------------------------- names too long for the OS

@pytest.mark.parametrize("command", ["eval", "list"])
def test_table_with_a_name_too_long_for_the_os_is_a_usage_error(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    doc = "a" * 5000 + ".md"
    extra = ["x=1"] if command == "eval" else []
    res = CliRunner().invoke(main, ["table", command, doc, *extra])
    assert res.exit_code in (1, 2), res.output
    assert "unexpected" not in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1 and len(res.output) < 400
    res = CliRunner().invoke(main, ["table", command, "knowledge/x.md", *extra,
                                    "--index", "d" * 5000])
    assert res.exit_code in (1, 2), res.output
    assert "unexpected" not in res.output and len(res.output.strip().splitlines()) == 1


def test_open_knowledge_of_an_index_too_long_for_the_os(tmp_path):
    with pytest.raises(KbError, match="cannot open index"):
        open_knowledge(index=tmp_path / ("d" * 5000))


@pytest.mark.parametrize(("header", "cells", "value", "says"), [
    ("运行小时", ["<2000", "≥2000"], "2 k", "'k' multiplies the number"),  # 2k: 2000
    ("运行小时", ["<2000", "≥2000"], "3个月", "it is in '个月', the column in '小时'"),
    ("温度(℃)", ["<15", ">20"], "72 kPa", "it is in 'kPa', the column in '°C'"),
    ("连续降雨天数", ["<3", "≥3"], "1个月", "the column in '天'"),  # no fixed number of days
    ("间隔", ["<7 天", "≥7 天"], "2 个月", "the column in '天'"),  # the cells' unit
])
def test_an_input_whose_unit_would_change_its_number_is_refused(header, cells, value, says):
    """An input in another known unit that no exact factor converts, or with a word that
    multiplies it, once matched as if its bare number were in the column's unit."""
    table = build_table([header, "措施"], [[c, f"行{i}"] for i, c in enumerate(cells)],
                        decision=f"inputs={header}; outputs=措施")
    with pytest.raises(TableError, match=says):
        match_rules(table, {header: value})


@pytest.mark.parametrize(("header", "cells", "value", "row", "reason", "zh"), [
    ("运行小时", ["<2000", "≥2000"], "3周", 1, "3周 = 504 小时; 504 is < 2000", "3周 = 504小时"),
    ("连续降雨天数", ["<3", "≥3"], "4周", 2, "4周 = 28 天; 28 is ≥ 3", "4周 = 28天"),
    ("间隔", ["<7 天", "≥7 天"], "2 周", 2, "2 周 = 14 天; 14 is ≥ 7", "2 周 = 14天"),  # cells' unit
    ("Filter age (months)", ["<=12", ">12"], "2 years", 2, "2 years = 24 months; 24 is > 12",
     "2年 = 24个月"),  # in Chinese units in Chinese (v48c)
    ("Filter age (months)", ["<=12", ">12"], "1年", 1, "1年 = 12 months; 12 is ≤ 12",
     "1年 = 12个月"),
    ("Voltage (V)", ["<1000", ">=1000"], "13.8 kV", 2, "13.8 kV = 13800 V; 13800 is ≥ 1000",
     "13.8 kV = 13800 V"),
    ("Runtime (h)", ["<2", ">=2"], "90 min", 1, "90 min = 1.5 h; 1.5 is < 2", "90分钟 = 1.5小时"),
])
def test_an_input_in_another_unit_of_its_columns_family_is_converted(header, cells, value,
                                                                    row, reason, zh):
    """2 years against a column of months was refused ("give the value in months"), the
    answer a technician asked for left to them: the factor is exact, the reason says it."""
    table = build_table([header, "措施"], [[c, f"行{i}"] for i, c in enumerate(cells)],
                        decision=f"inputs={header}; outputs=措施")
    result = match_rules(table, {header: value})
    assert result.selected == (row,)
    cell = result.matches[0].cells[0]
    assert cell.reason == reason and cell.reason_in("en") == reason
    assert cell.reason_in("zh").startswith(zh + "；")


@pytest.mark.parametrize(("header", "value"), [
    ("运行小时", "2000 小时"), ("运行小时", "2000h"), ("运行小时", "20000"),
    ("温度(℃)", "22度"), ("温度(℃)", "22 °C"), ("温度(℃)", "22℃"), ("相对湿度(%)", "85%"),
    ("连续降雨天数", "4天"), ("药量(kg)", "2千克"), ("温度", "22"), ("长度", "3 furlongs"),
])
def test_inputs_in_the_column_unit_or_an_unknown_one_are_read(header, value):
    table = build_table([header, "措施"], [["<1", "低"], ["≥1", "高"]],
                        decision=f"inputs={header}; outputs=措施")
    assert match_rules(table, {header: value}).outputs[0]["措施"] == "高"
