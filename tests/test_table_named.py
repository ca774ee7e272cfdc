"""What one tool gives, the next takes: a document named as a search result, a citation or
a document's own link names it (``x.md#32-风险等级判定表``, escaped or not, a custom id, a
heading's text, a section number; ``x.md:65-73 § A > B``) is taken by table evaluation on
every surface, ``kb table eval``, ``/api/table/evaluate`` and the MCP tool
``evaluate_table``, with the same verdict and the same error text (`kbtools.agents.named`).
A section holding two decision tables, a heading with no table, a document the release
does not hold: one line saying what to send instead. Chinese and English knowledge."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from hostile import built_repo_index
from kbfixtures import GOOD_FM
from mcpfixtures import calls, session
from servefixtures import app_client

from kbtools.cli import main

FRONT = GOOD_FM.replace("Generated", "{title}") + "\n"  # FRONT.format(title=…) + body

ZH = FRONT.format(title="病害风险判定") + """# 病害风险判定

## 1. 发生条件

温度 15～20℃、相对湿度 85% 以上时最易流行。

## 2. 常用药剂

| 药剂 | 说明 |
|---|---|
| 戊唑醇 | 见标签 |

## 3.2 风险等级判定表

<!-- decision: inputs=温度(℃),相对湿度(%); outputs=风险等级 -->
| 温度(℃) | 相对湿度(%) | 风险等级 |
|---|---|---|
| <15 | * | 低 |
| 15-20 | <85 | 中 |
| 15-20 | ≥85 | 高 |
| >20 | * | 中 |

## 4. 两张表

### 4.1 白天

<!-- decision: inputs=温度(℃); outputs=措施 -->
| 温度(℃) | 措施 |
|---|---|
| <25 | 开窗 |
| ≥25 | 遮阳 |

### 4.2 夜间

<!-- decision: inputs=温度(℃); outputs=措施 -->
| 温度(℃) | 措施 |
|---|---|
| <10 | 保温 |
| ≥10 | 通风 |

## 5. 说明

判定不出结果时交植保站人工复核。
"""

EN = FRONT.format(title="Pump service") + """# Pump service

## Oil change interval {#oil-change}

<!-- decision: inputs=Running hours; outputs=Action -->
| Running hours | Action |
|---|---|
| <500 | Check the oil level |
| >=500 | Change the oil |

## Alarm limits

<!-- decision: inputs=Pressure (bar); outputs=Alarm -->
| Pressure (bar) | Alarm |
|---|---|
| <8 | none |
| >=8 | high pressure |

<!-- decision: inputs=Temperature (C); outputs=Alarm -->
| Temperature (C) | Alarm |
|---|---|
| <80 | none |
| >=80 | overheating |

## Notes

Log every alarm in the service book.
"""

ZH_DOC, EN_DOC = "knowledge/crops/risk.md", "knowledge/equipment/pump.md"


def line_of(text: str, needle: str) -> int:
    """The 1-based line of `text` that starts with `needle`."""
    return next(n for n, line in enumerate(text.split("\n"), 1) if line.startswith(needle))


HOT_ROW = line_of(EN, "| >=80")  # the overheating row of the temperature table
HUMID_ROW = line_of(ZH, "| 15-20 | ≥85")
# a line number as a Chinese input method types it, in full-width digits
WIDE_HOT, WIDE_HUMID = (str(n).translate(str.maketrans("0123456789", "０１２３４５６７８９"))
                        for n in (HOT_ROW, HUMID_ROW))

# (doc, inputs, table) → a verdict (the outputs of the row chosen and the table's number)
# or an error (words it holds, with the surface's name of `table`: `{table}`)
CASES = [
    # a link to the section: its anchor, escaped or not, its heading's text, its number
    (f"{ZH_DOC}#32-风险等级判定表", {"温度": "18", "相对湿度": "90"}, None, ({"风险等级": "高"}, 1)),
    (f"{ZH_DOC}#{quote('32-风险等级判定表')}", {"温度": "18", "相对湿度": "90"}, None,
     ({"风险等级": "高"}, 1)),
    (f"{ZH_DOC}#3.2 风险等级判定表", {"温度": "18", "相对湿度": "90"}, None, ({"风险等级": "高"}, 1)),
    (f"{ZH_DOC}#3.2", {"温度": "22", "相对湿度": "50"}, None, ({"风险等级": "中"}, 1)),
    ("crops/risk.md#41-白天", {"温度": "30"}, None, ({"措施": "遮阳"}, 2)),
    (f"{ZH_DOC} § 4.2 夜间", {"温度": "5"}, None, ({"措施": "保温"}, 3)),
    (f"{ZH_DOC}:{HUMID_ROW}-{HUMID_ROW} § 病害风险判定 > 3.2 风险等级判定表",
     {"温度": "18", "相对湿度": "90"}, None, ({"风险等级": "高"}, 1)),
    (f"{EN_DOC}#oil-change", {"Running hours": "620"}, None, ({"Action": "Change the oil"}, 1)),
    # a citation as agents and people paste it: with its release after it, as `kb query`
    # shows it, a code host's line anchor, a link URL-escaped whole
    (f"{ZH_DOC}:{HUMID_ROW}-{HUMID_ROW} § 病害风险判定 > 3.2 风险等级判定表 @ 0123abcd4567",
     {"温度": "18", "相对湿度": "90"}, None, ({"风险等级": "高"}, 1)),
    (f"{ZH_DOC} › 病害风险判定 › 3.2 风险等级判定表 (line {HUMID_ROW})",
     {"温度": "18", "相对湿度": "90"}, None, ({"风险等级": "高"}, 1)),
    (f"{EN_DOC}#L{HOT_ROW}", {"Temperature": "85"}, None, ({"Alarm": "overheating"}, 3)),
    (quote(f"{ZH_DOC}#41-白天", safe=""), {"温度": "30"}, None, ({"措施": "遮阳"}, 2)),
    (f"{EN_DOC}:{HOT_ROW} § Pump service > Alarm limits", {"Temperature": "85"}, None,
     ({"Alarm": "overheating"}, 3)),
    # its line numbers typed full-width: the colon, the digits, the 'L', the range's dash
    (f"{ZH_DOC}：{WIDE_HUMID} § 病害风险判定 > 3.2 风险等级判定表",
     {"温度": "18", "相对湿度": "90"}, None, ({"风险等级": "高"}, 1)),
    (f"{EN_DOC}#Ｌ{WIDE_HOT}－Ｌ{WIDE_HOT}", {"Temperature": "85"}, None,
     ({"Alarm": "overheating"}, 3)),
    (f"{EN_DOC}:{WIDE_HOT}～{WIDE_HOT}", {"Temperature": "85"}, None, ({"Alarm": "overheating"}, 3)),
    # a search result's heading path, a list, as the table (as `read` takes it), and a
    # link's anchor as the table
    (ZH_DOC, {"温度": "5"}, ["病害风险判定", "4. 两张表", "4.2 夜间"], ({"措施": "保温"}, 3)),
    (ZH_DOC, {"温度": "18", "相对湿度": "90"}, "#32-风险等级判定表", ({"风险等级": "高"}, 1)),
    ("equipment/pump.md", {"Running hours": "20"}, "#oil-change",
     ({"Action": "Check the oil level"}, 1)),
    # a section holding two decision tables: their numbers, and where to send one
    (f"{ZH_DOC}#4-两张表", {"温度": "30"}, None,
     ["holding 2 decision tables", "give the document path knowledge/crops/risk.md alone with "
      "{table}=2 or {table}=3"]),
    (f"{EN_DOC}#alarm-limits", {"Pressure": "9"}, None,
     ["holding 2 decision tables", "{table}=2 or {table}=3"]),
    (EN_DOC, {"Pressure": "9"}, "#alarm-limits",
     ["holding 2 decision tables", "{table}=2 or {table}=3"]),
    # a heading with no table: said so, with the tables there are
    (f"{ZH_DOC}#5-说明", {"温度": "30"}, None,
     ["'#5-说明' names a section of knowledge/crops/risk.md", "holds no decision table",
      "{table}=1 or {table}=2 or {table}=3"]),
    (f"{EN_DOC}#notes", {"Pressure": "9"}, None, ["holds no decision table"]),
    (f"{ZH_DOC} § 1. 发生条件", {"温度": "30"}, None, ["holds no decision table"]),
    # an anchor no heading has: the anchors there are, and the argument a section goes in
    (f"{ZH_DOC}#不存在的表", {"温度": "30"}, None,
     ["has the anchor '#不存在的表'", "#32-风险等级判定表", "give the section as {table}"]),
    # a link naming its table and `table` naming one too
    (f"{EN_DOC}#oil-change", {"Running hours": "620"}, 1,
     ["names a table by its link and {table} names one too"]),
    # a plain path's errors, as each surface said them before
    (ZH_DOC, {"温度": "18"}, 1, ["missing input for column(s) 相对湿度(%)"]),
    (ZH_DOC, {"温度": "18", "相对湿度": "130"}, 1, ["相对湿度"]),
    (ZH_DOC, {"风速": "3"}, 1, ["风速"]),
    (EN_DOC, {"Running hours": "10"}, 9, ["no decision table 9 (there are 3:"]),
    (EN_DOC, {"Running hours": "10"}, None, ["3 decision tables; choose one by number or name"]),
    (EN_DOC, {"Running hours": "lots"}, "oil change interval", ["Running hours"]),
    # a document the release does not hold, named by a link or a citation
    ("knowledge/crops/gone.md#32-风险等级判定表", {"温度": "18"}, None,
     ["no such document in the index: knowledge/crops/gone.md"]),
    ("knowledge/crops/gone.md:5-9", {"温度": "18"}, None,
     ["no such document in the index: knowledge/crops/gone.md"]),
]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    return built_repo_index(tmp_path_factory.mktemp("named"), {ZH_DOC: ZH, EN_DOC: EN},
                            model="test-hash")


def cli_outcome(dist: Path, doc: str, inputs: dict, table) -> tuple[str, object]:
    """("ok", result) or ("error", its one line) of `kb table eval --index`."""
    args = ["table", "eval", "--index", str(dist), "--json", doc,
            *(f"{k}={v}" for k, v in inputs.items())]
    if table is not None:
        args += ["--table", " > ".join(table) if isinstance(table, list) else str(table)]
    res = CliRunner().invoke(main, args)
    if res.exit_code == 0:  # with --index, the release it was read from, as the others say
        return "ok", {k: v for k, v in json.loads(res.stdout).items() if k != "release"}
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kb: error: "), res.stderr
    return "error", lines[0].removeprefix("kb: error: ").replace("--table", "table")


def http_outcome(client, doc: str, inputs: dict, table) -> tuple[str, object]:
    body = {"doc": doc, "inputs": inputs, **({"table": table} if table is not None else {})}
    resp = client.post("/api/table/evaluate", json=body)
    if resp.status_code == 200:
        return "ok", {k: v for k, v in resp.json().items() if k != "release"}
    assert resp.status_code in (400, 404), resp.text
    return "error", resp.json()["error"]["message"]


def mcp_outcomes(c, cases):
    asks = [{"doc": doc, "inputs": inputs, **({"table": table} if table else {})}
            for doc, inputs, table, _ in cases]
    return calls(c, "evaluate_table", asks,
                 lambda got: {k: v for k, v in got.items() if k != "release"})


def assert_expected(outcome: tuple[str, object], expected, table: str) -> None:
    kind, got = outcome
    if isinstance(expected, tuple):
        assert kind == "ok", got
        assert got["outputs"] == [expected[0]] and got["table"]["index"] == expected[1], got
    else:
        assert kind == "error", got
        for words in expected:
            assert words.format(table=table) in got, got


def surfaces_outcomes(dist, tmp_path, cases):
    """Each case's outcome on the CLI, the JSON API and the MCP tool: three lists."""
    cli = [cli_outcome(dist, doc, inputs, table) for doc, inputs, table, _ in cases]
    client_gen = app_client(dist)
    client = next(client_gen)
    try:
        http = [http_outcome(client, doc, inputs, table) for doc, inputs, table, _ in cases]
    finally:
        client_gen.close()
    mcp = session(tmp_path, "--index", str(dist), scenario=lambda c: mcp_outcomes(c, cases))
    return cli, http, mcp


def test_every_surface_takes_what_another_names_alike(dist, tmp_path):
    """Each case on the CLI, the JSON API and the MCP tool: the expected verdict or error,
    and one answer across the three (the CLI's error names `--table` where the others
    name `table`)."""
    cli, http, mcp = surfaces_outcomes(dist, tmp_path, CASES)
    for case, a, b, c in zip(CASES, cli, http, mcp, strict=True):
        assert_expected(a, case[3], "table")
        assert_expected(b, case[3], "table")
        assert_expected(c, case[3], "table")
        assert a == b == c, case[0]


def test_a_citation_whose_lines_moved_is_the_table_its_heading_path_names(dist):
    """A citation from an earlier release: lines that now hold another table, or none, with
    the heading path of the table it cited. The heading path decides (as `read` reads it);
    lines with no heading path, or one no heading has any more, still say where."""
    first_row = line_of(EN, "| <500")
    moved = f"{EN_DOC}:{first_row}-{first_row} § Pump service > Alarm limits"
    kind, got = cli_outcome(dist, moved, {"Pressure": "9"}, None)
    assert kind == "error" and "holding 2 decision tables" in got  # not the oil table's row
    kind, got = cli_outcome(dist, f"{ZH_DOC}:5-6 § 3.2 风险等级判定表",
                            {"温度": "18", "相对湿度": "90"}, None)
    assert kind == "ok" and got["outputs"] == [{"风险等级": "高"}]
    kind, got = cli_outcome(dist, f"{EN_DOC}:{first_row} § Renamed heading",
                            {"Running hours": "10"}, None)
    assert kind == "ok" and got["outputs"] == [{"Action": "Check the oil level"}]
    kind, got = cli_outcome(dist, f"{ZH_DOC}:5-6", {"温度": "18"}, None)
    assert kind == "error" and "no decision table at knowledge/crops/risk.md lines 5-6" in got


def test_a_link_is_taken_by_kb_table_eval_in_a_repository(dist, monkeypatch):
    """Without --index, in the repository the release was built from: the working tree's
    document, named by a link (its path as cited or inside the knowledge folder)."""
    monkeypatch.chdir(dist.parent)
    res = CliRunner().invoke(main, ["table", "eval", f"{EN_DOC}#alarm-limits", "Pressure=9"])
    assert res.exit_code == 1 and "--table=2 or --table=3" in res.stderr
    res = CliRunner().invoke(main, ["table", "eval", "--json", "equipment/pump.md#oil-change",
                                    "Running hours=620"])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["outputs"] == [{"Action": "Change the oil"}]
    res = CliRunner().invoke(main, ["table", "list", "--json", f"{ZH_DOC}#41-白天"])
    assert res.exit_code == 0, res.stderr  # the document's tables, as the link's path names
    assert [t["index"] for t in json.loads(res.stdout)] == [1, 2, 3]


@pytest.mark.parametrize("name, hint", [
    ("line_start", "give the lines as a citation in doc"),
    ("heading_path", "give the section as table"),
])
def test_a_reads_argument_given_to_table_evaluation_says_what_to_send(dist, tmp_path, name,
                                                                        hint):
    """A search result's `line_start` or `heading_path` passed to table evaluation by its
    name: refused (it was dropped by neither), naming what to send it as instead."""
    client_gen = app_client(dist)
    client = next(client_gen)
    try:
        resp = client.post("/api/table/evaluate", json={"doc": EN_DOC, name: 3,
                                                        "inputs": {"Running hours": "1"}})
    finally:
        client_gen.close()
    assert resp.status_code == 400 and hint in resp.json()["error"]["message"]

    async def scenario(c):
        return await c.call_tool("evaluate_table", {"doc": EN_DOC, name: 3,
                                                    "inputs": {"Running hours": "1"}})

    res = session(tmp_path, "--index", str(dist), scenario=scenario)
    assert res.is_error and hint in res.content[0].text


NEW_TABLE = """## 0. 预检表

<!-- decision: inputs=温度(℃); outputs=预检 -->
| 温度(℃) | 预检 |
|---|---|
| <0 | 防冻 |
| ≥0 | 正常 |

"""


def two_releases(root: Path) -> tuple[Path, str]:
    """A device serving r1 (both documents) with r2 beside it: a decision table added
    before the others of risk.md (every table renumbered, every line moved) and pump.md
    removed. Returns (device, r1's citation of risk.md's humid row)."""
    from hostile import git, make_repo

    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config

    repo = make_repo(root / "repo", docs={ZH_DOC: ZH, EN_DOC: EN})
    device = root / "device"
    build(load_config(repo), BuildOptions(out=device / "releases" / "r1", progress=False))
    (repo / ZH_DOC).write_text(ZH.replace("## 1. 发生条件", NEW_TABLE + "## 1. 发生条件"),
                               encoding="utf-8")
    (repo / EN_DOC).unlink()
    git(repo, "commit", "-q", "-am", "r2: a table added first, the pump removed")
    build(load_config(repo), BuildOptions(out=device / "releases" / "r2", progress=False))
    (device / "current").symlink_to("releases/r1")
    return device, f"{ZH_DOC}:{HUMID_ROW}-{HUMID_ROW} § 病害风险判定 > 3.2 风险等级判定表"


def test_what_an_earlier_release_named_is_answered_in_the_one_served_now(tmp_path):
    """After a sync renumbered risk.md's tables and moved its lines, and dropped pump.md:
    r1's citation is still its table (its heading path decides); r1's number names the
    table now numbered so, and the result names it and the release; pump.md, by a link or
    a citation, is said to be gone from the release served now, not "no such document"."""
    device, cited = two_releases(tmp_path)
    humid = {"温度": "18", "相对湿度": "90"}

    async def scenario(c):
        before = await c.call_tool("evaluate_table", {"doc": cited, "inputs": humid})
        (device / "current").unlink()
        (device / "current").symlink_to("releases/r2")  # as `kb sync` switches
        after = {"cited": await c.call_tool("evaluate_table", {"doc": cited, "inputs": humid}),
                 "number": await c.call_tool("evaluate_table", {"doc": ZH_DOC, "table": 1,
                                                                "inputs": {"温度": "5"}})}
        gone = [await c.call_tool("evaluate_table", {"doc": doc, "inputs": {"Pressure": 9}})
                for doc in (f"{EN_DOC}#alarm-limits", f"{EN_DOC}:{HOT_ROW}")]
        gone.append(await c.call_tool("read", {"doc": f"{EN_DOC}#alarm-limits"}))
        return before, after, gone

    before, after, gone = session(tmp_path, "--index", str(device), scenario=scenario)
    first, cited_now = before.structured_content, after["cited"].structured_content
    assert first["outputs"] == cited_now["outputs"] == [{"风险等级": "高"}]
    assert (first["table"]["index"], cited_now["table"]["index"]) == (1, 2)
    assert cited_now["release"] != first["release"]
    number = after["number"].structured_content
    assert number["table"]["heading_path"][-1] == "0. 预检表" and number["outputs"] == [
        {"预检": "正常"}]
    for res in gone:
        assert res.is_error
        assert f"{EN_DOC} is not in the release served now" in res.content[0].text


def test_every_table_result_of_a_search_is_taken_back_as_it_came(example_index, tmp_path):
    """The example knowledge, built: each decision table a search evaluates is evaluated
    again, through the MCP tool and the JSON API, from each thing the result carries — its
    citation, its document with its heading path (a list) or its `evaluation.table_index`,
    and a link to its section as the documents link sections — with the verdict the search
    gave; and `read` takes the same link to the section the table lies in."""
    questions = ["小麦扬花期 日均温22度 相对湿度90% 连续降雨4天 赤霉病风险",
                 "玉米南方锈病 日均温28度 相对湿度85% 风险",
                 "HX260 运行了2000小时 需要做哪些保养"]
    from kbtools.markdown.parser import slugify

    async def scenario(c):
        out = []
        for q in questions:
            found = (await c.call_tool("search", {"query": q, "k": 3})).structured_content
            hit = next(r for r in found["results"] if r.get("evaluation"))
            ev = hit["evaluation"]
            assert ev["status"] == "match", ev
            link = f"{hit['doc']}#{slugify(hit['heading_path'][-1])}"
            asks = [{"doc": hit["citation"]}, {"doc": hit["doc"], "table": hit["heading_path"]},
                    {"doc": hit["doc"], "table": ev["table_index"]}, {"doc": link}]
            got = [await c.call_tool("evaluate_table", {**ask, "inputs": ev["inputs"]})
                   for ask in asks]
            out.append((hit, asks, got, await c.call_tool("read", {"doc": link})))
        return out

    rounds = session(tmp_path, "--index", str(example_index), scenario=scenario)
    client_gen = app_client(example_index)
    client = next(client_gen)
    try:
        for hit, asks, got, section in rounds:
            expected = hit["evaluation"]["outputs"]
            for ask, res in zip(asks, got, strict=True):
                assert not res.is_error, (ask, res.content[0].text)
                assert res.structured_content["outputs"] == expected, ask
                resp = client.post("/api/table/evaluate",
                                   json={**ask, "inputs": hit["evaluation"]["inputs"]})
                assert resp.status_code == 200, (ask, resp.text)
                assert resp.json()["outputs"] == expected
            assert section.structured_content["heading_path"] == hit["heading_path"]
            read = client.get("/api/read", params={"doc": asks[-1]["doc"]})  # the link
            assert read.status_code == 200 and read.json()["heading_path"] == hit["heading_path"]
    finally:
        client_gen.close()


def test_a_results_table_index_and_csv_name_are_the_table_evaluation_takes(dist, tmp_path):
    """risk.md holds a plain table (its 2. 常用药剂) before its three decision tables:
    a search result's `extra.table_index` and its `extra.csv` (a name the build derived,
    risk-3.csv), passed back as `table`, evaluate the table the result cites, on the CLI,
    the JSON API and the MCP tool alike. The Markdown table's number is `markdown_table`;
    the plain table has no `table_index` and its CSV name is said to be no decision table."""
    hits = []
    for question in ("白天 温度 措施 开窗 遮阳", "夜间 温度 措施 保温 通风", "常用药剂 戊唑醇"):
        res = CliRunner().invoke(main, ["query", "--index", str(dist), "--json", "-k", "5",
                                        question])
        assert res.exit_code == 0, res.stderr
        hits += [r for r in json.loads(res.stdout)["results"]
                 if r["doc"] == ZH_DOC and r["kind"] in ("table", "table_row")]
    decision = {(r["extra"]["csv"], r["extra"]["table_index"], r["line_start"]) for r in hits
                if "table_index" in r["extra"]}
    assert {(csv, n) for csv, n, _ in decision} >= {("risk-3.csv", 2), ("risk-4.csv", 3)}
    plain = next(r for r in hits if r["extra"]["csv"] == "risk-1.csv")
    assert plain["extra"]["markdown_table"] == 1 and "table_index" not in plain["extra"]
    asks = [(csv_or_n, line) for csv, n, line in decision for csv_or_n in (csv, n)]
    inputs = {"温度": "30"}
    cli = [cli_outcome(dist, ZH_DOC, inputs, table) for table, _ in asks]
    client_gen = app_client(dist)
    client = next(client_gen)
    try:
        http = [http_outcome(client, ZH_DOC, inputs, table) for table, _ in asks]
        refused = http_outcome(client, ZH_DOC, inputs, "risk-1.csv")
    finally:
        client_gen.close()
    mcp = session(tmp_path, "--index", str(dist), scenario=lambda c: mcp_outcomes(
        c, [(ZH_DOC, inputs, table, None) for table, _ in asks]))
    for (table, line), a, b, c in zip(asks, cli, http, mcp, strict=True):
        assert a == b == c and a[0] == "ok", (table, a, b, c)
        got = a[1]["table"]
        assert got["line_start"] <= line <= got["line_end"], (table, got)
    assert refused[0] == "error" and "which is no decision table" in refused[1]


# a column's name as pasted from a chat app or a PDF: invisible characters around or inside
# it, full-width letters and spaces an input method types
PASTED = [
    (ZH_DOC, {"温度\u200b": "18", "\ufeff相对湿度": "90"}, 1, ({"风险等级": "高"}, 1)),
    (ZH_DOC, {"温\u200d度": "18", "相对湿度\u2060 ": "90"}, 1, ({"风险等级": "高"}, 1)),
    (ZH_DOC, {"溫度\u200b": "18", "相对湿度": "90"}, 1, ({"风险等级": "高"}, 1)),
    (EN_DOC, {"Ｒｕｎｎｉｎｇ\u3000ｈｏｕｒｓ\u200b": "620"}, "oil change interval",
     ({"Action": "Change the oil"}, 1)),
    # an agent's snake_case key
    (EN_DOC, {"running_hours": "620"}, "oil change interval", ({"Action": "Change the oil"}, 1)),
    # the table's number typed full-width, as an input method types it (was "no decision
    # table named '１'")
    (ZH_DOC, {"温度": "18", "相对湿度": "90"}, "１", ({"风险等级": "高"}, 1)),
    (ZH_DOC, {"温度": "18", "相对湿度": "90"}, " ９ ", ["no decision table 9 (there are 3"]),
    # a column the table has not, named as read; two values for one column refused
    (ZH_DOC, {"温度": "18", "风速\u200b": "3"}, 1, ["no column '风速' (inputs are 温度(℃), 相对湿度(%))"]),
    (ZH_DOC, {"温度\u200b": "18", "温度": "25", "相对湿度": "90"}, 1,
     ["two values for column 温度(℃)", "=18", "=25"]),
]


def test_a_pasted_column_name_is_read_on_every_surface(dist, tmp_path):
    """`温度\u200b` pasted from a chat app was refused as no column by `kb table eval`,
    `/api/table/evaluate` and the MCP tool alike: a name is read without the invisible
    characters a paste carries (`agents.named.pasted_name`), as the Markdown reader reads
    the header (an agent's snake_case key as words); an unknown one is still refused, named
    without them."""
    cli, http, mcp = surfaces_outcomes(dist, tmp_path, PASTED)
    for case, a, b, c in zip(PASTED, cli, http, mcp, strict=True):
        assert_expected(a, case[3], "table")
        assert a == b == c, case[1]


@pytest.mark.parametrize("given, typed", [
    ({"温度": "18\u200b", "相对湿度": "\ufeff9\u200d0\u2060 "}, ["温度=18\u200b", "相对湿度=90"]),
    ({"温度": "１８", "相对湿度": "９０\u3000"}, ["温度=１８", "相对湿度=９０"]),
], ids=["invisible", "full-width"])
def test_a_value_is_read_and_echoed_as_its_column_reads_it(dist, tmp_path, given, typed):
    """A value pasted from a chat app (`18\u200b`) was echoed with its zero-width space in
    `inputs`, and one after a byte-order mark (`\ufeff90`) refused as no number; a Chinese
    input method's full-width digits (`温度=１８`) were read as 18 but echoed `１８`, beside
    reasons that said 18: a value is read as its column's cells are, without the invisible
    characters a paste carries, and echoed as read, on every surface."""
    cli, http, mcp = surfaces_outcomes(dist, tmp_path, [(ZH_DOC, given, 1, None)])
    for got in (cli[0], http[0], mcp[0]):
        assert got[0] == "ok", got
        assert got[1]["outputs"] == [{"风险等级": "高"}], got
        assert got[1]["inputs"] == {"温度(℃)": "18", "相对湿度(%)": "90"}, got[1]["inputs"]
    res = CliRunner().invoke(main, ["table", "eval", "--index", str(dist), "--table", "1", ZH_DOC,
                                    *typed])
    assert "inputs: 温度(℃)=18, 相对湿度(%)=90" in res.stdout.splitlines(), res.stdout
