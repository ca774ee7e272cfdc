"""Helpers to make small knowledge repos for tests (real files, real git, real builds)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import git

from kbtools.decision import DecisionTable, build_table

REPO = Path(__file__).resolve().parents[1]

# Front matter that passes the default schemas (category engineering needs a project).
GOOD_FM = """---
title: Generated
category: engineering
project: demo
source: test
author: alice@example.org
timestamp: "2026-03-14T09:30:00+08:00"
verified: false
---
"""
# a page of its own title and body: TITLED.format(title=…, body=…)
TITLED = GOOD_FM.replace("Generated", "{title}") + "\n# {title}\n\n{body}\n"
# a page of its own title, `source` and body: PAGE.format(title=…, source=…, body=…)
PAGE = (GOOD_FM.replace("Generated", "{title}").replace("source: test", "source: {source}")
        + "\n# {title}\n\n{body}\n")


# Author date of the import commit: before every verified_at of the example knowledge, so
# the import passes the review policy (docs/review.md, "Importing already-reviewed documents").
IMPORT_DATE = "2025-11-01T00:00:00"

def titled_page(title: str, body: str) -> str:
    """A valid document titled `title` (front matter and its H1) holding `body`."""
    return GOOD_FM.replace("Generated", title) + f"\n# {title}\n\n{body}\n"


# a decision table whose inputs are the generic 温度 and 湿度 (what a value said of another
# quantity, 油温, must not fill)
GREENHOUSE_PAGE = titled_page("大棚通风管理", """大棚通风按棚内温度和湿度决定。

<!-- decision: inputs=温度(℃),湿度(%); outputs=措施 -->
| 温度(℃) | 湿度(%) | 措施 |
|---|---|---|
| <20 | * | 关闭风口保温 |
| >=20 | >=85 | 打开风口通风排湿 |
| >=20 | <85 | 保持现状 |
""")
# the same table in English (a value of ``oil temperature`` must not fill its Temperature)
VENT_PAGE = titled_page("Greenhouse ventilation", """Ventilate the greenhouse by its air temperature and
humidity.

<!-- decision: inputs=Temperature (°C),Humidity (%); outputs=Action -->
| Temperature (°C) | Humidity (%) | Action |
|---|---|---|
| <20 | * | close the vents |
| >=20 | >=85 | open the vents |
| >=20 | <85 | keep as is |
""")

# A decision table of wheat scab risk by temperature and relative humidity, as a page
# (`SCAB_DOC`) and as parameters of `kbtools.decision.build_table` (`SCAB_TABLE`).
# the wheat-scab rule of three inputs, as a document writes it (temperature, humidity, rain days)
RAIN_TABLE = """<!-- decision: inputs=温度(℃),相对湿度(%),连续降雨天数; outputs=风险等级 -->
| 温度(℃) | 相对湿度(%) | 连续降雨天数 | 风险等级 |
|---|---|---|---|
| <15 | * | * | 低 |
| 15-20 | <85 | * | 低 |
| 15-20 | ≥85 | ≤3 | 中 |
| 15-20 | ≥85 | >3 | 高 |
| >20 | <85 | * | 中 |
| >20 | ≥85 | ≤3 | 高 |
| >20 | ≥85 | >3 | 极高 |
"""
SCAB_TABLE = (["温度(℃)", "相对湿度(%)", "风险"],
              [["<15", "*", "低"], ["≥15", "≥85", "高"], ["≥15", "<85", "中"]],
              "inputs=温度(℃),相对湿度(%); outputs=风险")
SCAB_DOC = GOOD_FM.replace("Generated", "小麦赤霉病风险") + """
# 小麦赤霉病风险

按温度和相对湿度判定赤霉病风险等级。

<!-- decision: inputs=温度(℃),相对湿度(%); outputs=风险 -->
| 温度(℃) | 相对湿度(%) | 风险 |
|---|---|---|
| <15 | * | 低 |
| ≥15 | ≥85 | 高 |
| ≥15 | <85 | 中 |
"""


def authored_repo(root: Path) -> git.Repo:
    """A new Git repository at `root` (made) whose own config names its author (作者), as a
    writer's machine has one: a commit from a hook or a Git app needs no environment."""
    root.mkdir(parents=True)
    repo = git.Repo.init(root)
    with repo.config_writer() as config:
        config.set_value("user", "name", "作者")
        config.set_value("user", "email", "author@example.org")
    return repo


def reviewed_by_trailers(root: Path) -> str:
    """One `Reviewed-by:` line per distinct verified_by under `root` (sorted)."""
    emails = sorted({m.group(1).strip().strip('"').lower()
                     for p in root.rglob("*.md")
                     for m in re.finditer(r"^verified_by:\s*(.+)$",
                                          p.read_text(encoding="utf-8"), re.M)})
    return "\n".join(f"Reviewed-by: {e.split('@')[0]} <{e}>" for e in emails)


def copy_example(dest: Path, docs: list[str] | None = None) -> Path:
    """Copy kb.toml, schemas and the example knowledge (or some of its docs) into `dest`
    and commit it, so builds there have a real source commit. The commit is a reviewed
    import (a Reviewed-by trailer for every verified_by, authored before the reviews), so
    the verified documents are served as verified."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "kb.toml", dest / "kb.toml")
    shutil.copytree(REPO / "assets", dest / "assets")
    if (REPO / "schemas").is_dir():
        shutil.copytree(REPO / "schemas", dest / "schemas")
    if docs is None:
        shutil.copytree(REPO / "knowledge", dest / "knowledge")
    else:
        for rel in docs:
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / rel, target)
    repo = git.Repo.init(dest)
    repo.index.add([str(p.relative_to(dest)) for p in dest.rglob("*")
                    if p.is_file() and ".git" not in p.parts])
    trailers = reviewed_by_trailers(dest / "knowledge")
    repo.index.commit("example knowledge" + (f"\n\n{trailers}\n" if trailers else ""),
                      author_date=IMPORT_DATE)
    return dest


def built_pages(root: Path, sections: list[tuple[str, str]], stem: str = "pump") -> Path:
    """A repository at `root` of one page (`TITLED`) per (title, body) of `sections`,
    ``knowledge/<stem>-<n>.md``, built: its dist/."""
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config
    from tests.hostile import make_repo

    repo = make_repo(root, docs={f"knowledge/{stem}-{n}.md": TITLED.format(title=h, body=b)
                                 for n, (h, b) in enumerate(sections)})
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    return repo / "dist"


def logging_git(folder: Path) -> tuple[Path, Path]:
    """(a folder to put first on PATH, a log): its `git` writes each call's arguments to the
    log, one line a call, then runs the real git. What a test counts git processes with."""
    real = shutil.which("git")
    assert real is not None
    shim, log = folder / "bin", folder / "git.log"
    shim.mkdir()
    (shim / "git").write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real}" "$@"\n')
    (shim / "git").chmod(0o755)
    return shim, log


def top_evaluation(dist: Path, question: str, doc: str) -> dict[str, Any]:
    """`kb query QUESTION --json -k 3` on `dist`: the evaluation of its top result, which
    must be knowledge/`doc`'s and carry one."""
    import json

    from click.testing import CliRunner

    from kbtools.cli import main

    out = CliRunner().invoke(main, ["query", question, "--index", str(dist), "--json",
                                    "-k", "3", "--no-log"])
    assert out.exit_code == 0, out.output
    top = json.loads(out.output)["results"][0]
    assert top["doc"] == f"knowledge/{doc}" and top["evaluation"] is not None, top
    evaluation: dict[str, Any] = top["evaluation"]
    return evaluation


def assert_asks_naming(dist: Path, question: str, doc: str, column: str,
                       inputs: dict[str, str], note: str) -> None:
    """`kb query QUESTION` on `dist` answers from knowledge/`doc`'s table by asking for input
    `column`, the others filled (`inputs`), saying whose value the question gave (`note`)."""
    ev = top_evaluation(dist, question, doc)
    assert (ev["status"], ev["inputs"], ev["missing"]) == ("missing_inputs", inputs, [column])
    assert ev["said_of_other"] == {column: note} and note in ev["message"]


def bare_table(header: str, heading: str = "") -> DecisionTable:
    """A decision table of one input `header` (bounds 40 in its unit) and an Action, under
    `heading` when given: what the decision-input tests read a question's values against."""
    table = build_table([header, "Action"], [["<40", "none"], [">=40", "vent"]],
                        decision=f"inputs={header}; outputs=Action",
                        heading_path=(heading,) if heading else ())
    assert table is not None
    return table


def vent_table() -> DecisionTable:
    """A greenhouse's ventilation by Temperature (°C) and Humidity (%) (close, open, keep):
    what the question-reading tests read English questions' values against."""
    table = build_table(["Temperature (°C)", "Humidity (%)", "Action"],
                        [["<20", "<85", "close"], [">=20", ">=85", "open"],
                         [">=20", "<85", "keep"]],
                        decision="inputs=Temperature (°C),Humidity (%); outputs=Action")
    assert table is not None
    return table


def zh_vent_table() -> DecisionTable:
    """The same in Chinese, 温度(℃) and 湿度(%) → 措施 (保温, 通风, 保持): what the
    question-reading tests read Chinese questions' values against."""
    table = build_table(["温度(℃)", "湿度(%)", "措施"],
                        [["<20", "*", "保温"], [">=20", ">=85", "通风"], [">=20", "<85", "保持"]],
                        decision="inputs=温度(℃),湿度(%); outputs=措施")
    assert table is not None
    return table


def scab_table(heading: tuple[str, ...]) -> DecisionTable:
    """The example's wheat-scab risk table (温度, 相对湿度, 连续降雨天数 → 风险等级) under
    `heading`: what the decision-input tests read Chinese and English questions against."""
    table = build_table(["温度(℃)", "相对湿度(%)", "连续降雨天数", "风险等级"],
                        [["<15", "*", "*", "低"], ["15-20", "<85", "*", "低"],
                         ["15-20", "≥85", "≤3", "中"], ["15-20", "≥85", ">3", "高"],
                         [">20", "<85", "*", "中"], [">20", "≥85", "≤3", "高"],
                         [">20", "≥85", ">3", "极高"]],
                        decision="inputs=温度(℃),相对湿度(%),连续降雨天数; outputs=风险等级",
                        heading_path=heading)
    assert table is not None
    return table


def corn_table(heading: tuple[str, ...]) -> DecisionTable:
    """The example's corn southern-rust risk table (日均温, 相对湿度 → 风险等级) under
    `heading`."""
    table = build_table(["日均温(℃)", "相对湿度(%)", "风险等级"],
                        [["<20", "*", "低"], ["20~32", "<80", "中"], ["20~32", "≥80", "高"],
                         [">32", "*", "中"]],
                        decision="inputs=日均温(℃),相对湿度(%); outputs=风险等级",
                        heading_path=heading)
    assert table is not None
    return table


def three_ways(repo: Path, monkeypatch: Any, doc: str,
               inputs: dict[str, str]) -> list[dict[str, Any]]:
    """What `kb table eval --json`, MCP `evaluate_table` and ``/api/table/evaluate`` give for
    knowledge/`doc` of the built `repo`: the result's status, message and outputs, or the
    error's message (one line)."""
    import json

    import anyio
    from click.testing import CliRunner
    from mcp.server.mcpserver.exceptions import ToolError
    from starlette.testclient import TestClient

    from kbtools.agents.mcp_server import build_server
    from kbtools.cli import main
    from kbtools.serve.app import create_app

    monkeypatch.chdir(repo)
    out = CliRunner().invoke(main, ["table", "eval", f"knowledge/{doc}", "--json",
                                    *(f"{k}={v}" for k, v in inputs.items())])
    cli = json.loads(out.output) if out.exit_code == 0 else {"error": out.output}

    async def call() -> Any:
        return await build_server(root=repo).call_tool(
            "evaluate_table", {"doc": f"knowledge/{doc}", "inputs": inputs})

    try:
        got = anyio.run(call)
        mcp = {"error": got.content[0].text} if got.is_error else json.loads(got.content[0].text)
    except ToolError as exc:  # a tool's refusal, as the server in-process raises it
        mcp = {"error": str(exc)}
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        resp = client.post("/api/table/evaluate", json={"doc": f"knowledge/{doc}",
                                                          "inputs": inputs})
    api = resp.json() if resp.status_code == 200 else {"error": resp.json()["error"]["message"]}
    return [{k: r[k] for k in ("status", "message", "outputs")} if "error" not in r
            else {"error": " ".join(r["error"].split())} for r in (cli, mcp, api)]


def humidity_days_table(days: str, lang: str = "en") -> DecisionTable:
    """Spray, watch or nothing by humidity and a column of days, ``days`` its name: rain days
    (`Rain days`, `降雨天数(天)`: a duration said of humidity is not theirs) or the humidity's
    own duration (`Humidity duration (days)`, `高湿持续天数(天)`): what the tests of a
    duration said of another quantity read questions against."""
    cols, actions = ((["Humidity (%)", days, "Action"], ["spray", "watch", "none"]) if lang == "en"
                     else (["湿度(%)", days, "措施"], ["喷药", "观察", "无"]))
    table = build_table(cols, [[">=85", ">=3", actions[0]], [">=85", "<3", actions[1]],
                               ["<85", "*", actions[2]]],
                        decision=f"inputs={cols[0]},{days}; outputs={cols[2]}")
    assert table is not None
    return table
