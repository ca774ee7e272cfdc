"""A section of a Chinese document named by English words alone (session 42): an agent
reading `3.2 风险等级表` in English asks for "Risk level table". With its number ("3.2 Risk
level table") the name matched; without it, `read` said there was no such section and
`evaluate_table` no such table. The name is now matched by meaning, with the multilingual
model the knowledge is embedded with, against each heading's words; a name close to no
section, or in the heading's own script, still names none (`kbtools.agents.heading_meaning`).
"""

from __future__ import annotations

from mcpfixtures import calls, git, make_repo, session

PUMP = "knowledge/notes/pump.md"
PUMP_TEXT = """---
title: 泵维护
category: notes
---

# 泵维护

## 3. 维护规程

### 3.1 日常检查

每班检查泵体有无渗漏、异响，记录出口压力。

### 3.2 风险等级表

<!-- decision: inputs=振动(mm/s),温升(℃); outputs=风险等级,处理 -->
| 振动(mm/s) | 温升(℃) | 风险等级 | 处理 |
|---|---|---|---|
| <4.5 | <40 | 低 | 继续运行 |
| 4.5-7.1 | * | 中 | 安排检修 |
| >7.1 | * | 高 | 立即停机 |

### 3.3 润滑油更换

运行小时 ≥2000 时更换润滑油，使用 46 号抗磨液压油。
"""


def test_an_english_section_name_reads_and_evaluates_a_chinese_section(tmp_path):
    repo = make_repo(tmp_path / "repo")
    (repo / PUMP).write_text(PUMP_TEXT, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pump")
    reads = [{"doc": PUMP, "heading_path": "Risk level table"},
             {"doc": PUMP, "heading_path": "Lubricating oil replacement"},
             {"doc": PUMP, "heading_path": ["Maintenance procedures", "Daily inspection"]},
             {"doc": PUMP, "heading_path": "Wiring diagram"},  # no such section
             {"doc": PUMP, "heading_path": "风险表格"}]  # Chinese words of no heading
    tables = [{"doc": PUMP, "table": "Risk level table", "inputs": {"振动": 5, "温升": 30}},
              {"doc": PUMP, "table": "Daily inspection", "inputs": {"振动": 5, "温升": 30}}]

    async def scenario(c):
        return (await calls(c, "read", reads, lambda r: (r["heading_path"][-1], r["citation"])),
                await calls(c, "evaluate_table", tables, lambda r: r["outputs"]))

    read, evaluated = session(repo, "--no-log", scenario=scenario)
    assert read[0] == ("ok", ("3.2 风险等级表", f"{PUMP}:14-21 § 泵维护 > 3. 维护规程 > 3.2 风险等级表"))
    assert read[1][1][0] == "3.3 润滑油更换" and read[2][1][0] == "3.1 日常检查"
    for (kind, said), start in zip(read[3:], ("no section 'Wiring diagram'",  # never a guess:
                                              "文档 knowledge/notes/pump.md 中没有“风险表格”这一节"),
                                   strict=True):  # the sections are listed, as before, in the
        assert kind == "error" and said.startswith(start) and "3.2 风险等级表" in said  # asker's
    assert evaluated[0] == ("ok", [{"风险等级": "中", "处理": "安排检修"}])
    assert evaluated[1][0] == "error" and "no decision table" in evaluated[1][1]
