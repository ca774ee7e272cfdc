"""`evaluate_table`'s `table` takes a section as `kb read` and citations name it: its
number ("4.4", "section 4.4", "第4.5节"), its heading without the number, or a citation's
heading path; in the library, the MCP tool and the JSON API alike. It took only a heading
exactly as written, so "4.4" (what `read` takes and a citation shows) was no table."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import Context, tool_evaluate_table
from kbtools.decision.documents import evaluate_table
from kbtools.errors import TableError
from kbtools.serve.app import create_app
from kbtools.serve.i18n import error_zh
from tests.hostile import built_repo_index
from tests.kbfixtures import GOOD_FM

DOC = GOOD_FM.replace("Generated", "设备巡检规程") + """
# 设备巡检规程

## 4. 风险判定

### 4.4 风险等级表

<!-- decision: inputs=温度(℃); outputs=风险等级 -->
| 温度(℃) | 风险等级 |
|---|---|
| <15 | 低 |
| >=15 | 高 |

### 4.5 保养周期

<!-- decision: inputs=运行小时; outputs=保养项目 -->
| 运行小时 | 保养项目 |
|---|---|
| <1000 | 常规检查 |
| >=1000 | 更换液压油 |

## 5. 附录

### 5.1 压力阈值

<!-- decision: inputs=压力(MPa); outputs=动作 -->
| 压力(MPa) | 动作 |
|---|---|
| <2 | 正常 |
| >=2 | 停机 |
"""
REL = "knowledge/inspect.md"
INPUTS = {1: {"温度": "18"}, 2: {"运行小时": "1200"}, 3: {"压力": "3"}}
OUTPUT = {1: {"风险等级": "高"}, 2: {"保养项目": "更换液压油"}, 3: {"动作": "停机"}}
CHOSEN = [("4.4", 1), ("section 4.4", 1), ("Section 4.5", 2), ("第4.5节", 2), ("§ 5.1", 3),
          ("风险等级表", 1), ("4. 风险判定 > 4.5", 2), ("设备巡检规程 > 4. 风险判定 > 4.4 风险等级表", 1),
          ("section 5", 3), ("第5章", 3), ("5. 附录", 3), ("4.5 保养周期", 2), (" 4.4 ", 1)]
REFUSED = [("4", "'section 4' names sections holding 2 decision tables (1: 设备巡检规程 > 4. "
                 "风险判定 > 4.4 风险等级表 (lines 18-21); 2: 设备巡检规程 > 4. 风险判定 > 4.5 保养周期 "
                 "(lines 26-29)); choose one by number"),
           ("4.9", "no decision table named '4.9' (1: 设备巡检规程 > 4. 风险判定 > 4.4 风险等级表; "
                   "2: 设备巡检规程 > 4. 风险判定 > 4.5 保养周期; 3: 设备巡检规程 > 5. 附录 > 5.1 "
                   "压力阈值)"),
           ("5", "no decision table 5 (there are 3: 1: 设备巡检规程 > 4. 风险判定 > 4.4 风险等级表; "
                 "2: 设备巡检规程 > 4. 风险判定 > 4.5 保养周期; 3: 设备巡检规程 > 5. 附录 > 5.1 压力阈值); "
                 "for the section numbered 5, write 'section 5'"),
           ("7", "no decision table 7 (there are 3: 1: 设备巡检规程 > 4. 风险判定 > 4.4 风险等级表; "
                 "2: 设备巡检规程 > 4. 风险判定 > 4.5 保养周期; 3: 设备巡检规程 > 5. 附录 > 5.1 压力阈值)")]


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return built_repo_index(tmp_path_factory.mktemp("sections"), {REL: DOC},
                            model="test-hash").parent


@pytest.mark.parametrize(("table", "n"), CHOSEN)
def test_a_table_is_chosen_by_its_section_as_read_names_it(repo, table, n):
    result = evaluate_table(repo / REL, table, INPUTS[n])
    assert (result.table_index, result.outputs) == (n, (OUTPUT[n],))
    mcp = tool_evaluate_table(Context(index=repo / "dist", root=repo), REL, INPUTS[n], table)
    assert (mcp["table"]["index"], mcp["outputs"]) == (n, [OUTPUT[n]])
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as api:
        resp = api.post("/api/table/evaluate", json={"doc": REL, "inputs": INPUTS[n],
                                                     "table": table})
    assert resp.status_code == 200, resp.text
    assert (resp.json()["table"]["index"], resp.json()["outputs"]) == (n, [OUTPUT[n]])


@pytest.mark.parametrize(("table", "said"), [(f"section {REFUSED[0][0]}", REFUSED[0][1]),
                                             *REFUSED[1:]])
def test_an_ambiguous_or_unknown_section_names_the_choices(repo, table, said):
    with pytest.raises(TableError) as info:
        evaluate_table(repo / REL, table, {"温度": "18"})
    assert info.value.message.endswith(said), info.value.message
    assert error_zh(info.value)  # a page shows it in Chinese too
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as api:
        resp = api.post("/api/table/evaluate", json={"doc": REL, "inputs": {"温度": "18"},
                                                     "table": table})
    assert resp.status_code == 400 and resp.json()["error"]["message"].endswith(said)
