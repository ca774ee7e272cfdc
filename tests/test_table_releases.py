"""A decision table evaluated in the release a citation came from: `kb table eval`,
``/api/table/evaluate`` and the MCP tool `evaluate_table` share `read`'s resolver
(`kbtools.agents.cited_table`) and give one answer.

A real device serving kb-r2 keeps kb-r1 beside it: kb-r2 added a line above wheat-scab.md's
risk table (its lines moved) and changed the answer of its last row (极高 → 特高). A
citation of kb-r1's table, with its release after it or given as `commit`/`release`,
evaluates kb-r1's rules; once kb-r1 is pruned, kb-r2's table at the citation's heading
path, with `release_gone` saying so; a citation of lines alone is then refused.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from device_fixtures import EDITED, make_device
from mcpfixtures import as_mcp_says, calls, session
from servefixtures import app_client
from test_release_helpers import git

from kbtools.cli import main

HEADING = "小麦赤霉病监测与防控操作规程 > 3. 发病风险判定 > 3.2 风险等级判定表"
INPUTS = {"温度": "22", "相对湿度": "90", "连续降雨天数": "4"}  # the table's last row


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> tuple[Path, str]:
    """(the device, kb-r1's citation of the risk table by lines and heading path)."""
    d = make_device(tmp_path_factory.mktemp("tables"))
    doc = d.kr / EDITED
    text = doc.read_text(encoding="utf-8")
    lines = text.split("\n")
    first = lines.index("| 温度(℃) | 相对湿度(%) | 连续降雨天数 | 风险等级 | 建议措施 |") + 1
    last = next(n for n, line in enumerate(lines, 1) if line.startswith("| >20 | ≥85 | >3 |"))
    doc.write_text(text.replace("### 3.2 风险等级判定表\n", "### 3.2 风险等级判定表\n\n2026 年修订。\n")
                   .replace("| 极高 |", "| 特高 |"), encoding="utf-8")
    git(d.kr, "commit", "-qam", "the risk table's last row says 特高")
    assert d.publish() == "kb-r2"
    code, out = d.sync()
    assert code == 0, out
    return d.dev, f"{EDITED}:{first}-{last} § {HEADING}"


def r1_commit(dev: Path) -> str:
    manifest = json.loads((dev / "releases" / "kb-r1" / "manifest.json").read_text("utf-8"))
    return str(manifest["source"]["commit"])


def cli_eval(dev: Path, ask: dict) -> tuple[str, object]:
    args = ["table", "eval", "--json", "--index", str(dev), ask["doc"],
            *(f"{k}={v}" for k, v in ask["inputs"].items())]
    for name in ("table", "commit", "release"):
        if name in ask:
            args += [f"--{name}", str(ask[name])]
    res = CliRunner().invoke(main, args)
    if res.exit_code == 0:
        return "ok", json.loads(res.stdout)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kb: error: "), res.stderr
    return "error", lines[0].removeprefix("kb: error: ")


def every_surface(dev: Path, tmp_path: Path, asks: list[dict]) -> list[tuple[str, object]]:
    """Each ask on the CLI, the JSON API and the MCP tool: one answer from the three."""
    cli = [cli_eval(dev, ask) for ask in asks]
    client_gen = app_client(dev)
    client = next(client_gen)
    http = []
    try:
        for ask in asks:
            resp = client.post("/api/table/evaluate", json=ask)
            if resp.status_code == 200:
                http.append(("ok", resp.json()))
            else:
                assert resp.status_code in (400, 404), resp.text
                http.append(("error", resp.json()["error"]["message"]))
    finally:
        client_gen.close()

    mcp = session(tmp_path, "--index", str(dev),
                  scenario=lambda c: calls(c, "evaluate_table", asks))
    for ask, a, b, c in zip(asks, cli, http, mcp, strict=True):  # MCP: the machine's paths
        assert a == b and as_mcp_says(a) == c, (ask, a, b, c)  # by their names
    return cli


def risk(answer: object) -> str:
    assert isinstance(answer, dict) and answer["status"] == "match", answer
    return str(answer["matches"][0]["outputs"]["风险等级"])


def test_a_cited_table_is_evaluated_in_the_release_it_came_from(device, tmp_path):
    dev, cited = device
    commit = r1_commit(dev)
    lines_only = cited.partition(" § ")[0]
    asks = [{"doc": cited, "inputs": INPUTS},  # the release served now, its lines moved
            {"doc": f"{cited} @ {commit[:12]}", "inputs": INPUTS},
            {"doc": cited, "inputs": INPUTS, "commit": commit},
            {"doc": EDITED, "inputs": INPUTS, "table": 1, "release": "kb-r1"},
            {"doc": lines_only, "inputs": INPUTS, "commit": commit[:7]},
            {"doc": f"{cited} @ {commit[:12]}", "inputs": INPUTS, "commit": "0" * 12}]
    got = every_surface(dev, tmp_path, asks)
    kind, now = got[0]
    assert kind == "ok" and risk(now) == "特高"
    assert now["release"]["tag"] == "kb-r2" and "served_release" not in now  # type: ignore[index]
    for kind, answer in got[1:5]:
        assert kind == "ok" and risk(answer) == "极高", answer
        assert answer["release"]["tag"] == "kb-r1"  # type: ignore[index]
        assert answer["served_release"]["tag"] == "kb-r2"  # type: ignore[index]
        assert "release_gone" not in answer  # type: ignore[operator]
    assert got[5][0] == "error" and "give one" in str(got[5][1])


def test_a_table_of_a_pruned_release_is_the_served_ones_said_so(device, tmp_path):
    base, cited = device
    commit = r1_commit(base)
    dev = tmp_path / "device"
    shutil.copytree(base, dev, symlinks=True)
    shutil.rmtree(dev / "releases" / "kb-r1")  # as `kb sync` prunes it
    asks = [{"doc": f"{cited} @ {commit[:12]}", "inputs": INPUTS},
            {"doc": cited.partition(" § ")[0], "inputs": INPUTS, "commit": commit},
            {"doc": EDITED, "inputs": INPUTS, "table": 1, "release": "kb-r1"},
            {"doc": "knowledge/crops/gone.md", "inputs": INPUTS, "release": "kb-r1"}]
    got = every_surface(dev, tmp_path, asks)
    for kind, answer in (got[0], got[2]):
        assert kind == "ok" and risk(answer) == "特高", answer
        assert answer["release"]["tag"] == "kb-r2" and "served_release" not in answer  # type: ignore[index,operator]
        gone = answer["release_gone"]  # type: ignore[index]
        assert "is no longer on this device (it keeps release kb-r2" in gone
        assert "do not cite it as that release's answer" in gone
    assert got[1][0] == "error" and "give the citation's heading path" in str(got[1][1])
    assert got[3][0] == "error" and "release kb-r1 is no longer on this device" in str(got[3][1])


def test_kb_table_eval_reads_a_document_where_kb_read_reads_it(device, tmp_path, monkeypatch):
    """Without --index, `kb read` read the index a client command finds (here KB_INDEX, the
    device serving kb-r2) while `kb table eval` read the work tree, which an edit not yet
    built had changed: the two commands answered one citation from two texts. Both read
    the index now; a Markdown file outside the knowledge folder is still read as that file."""
    dev, cited = device
    repo = tmp_path / "repo"
    shutil.copytree(dev.parent / "kr", repo, symlinks=True)  # the source of kb-r2
    doc = repo / EDITED
    doc.write_text(doc.read_text("utf-8").replace("| 特高 |", "| 未定 |"), "utf-8")  # not built
    (tmp_path / "own.md").write_text(doc.read_text("utf-8"), "utf-8")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("KB_INDEX", str(dev))
    pairs = [f"{k}={v}" for k, v in INPUTS.items()]
    read = CliRunner().invoke(main, ["read", "--json", f"{EDITED} § {HEADING}"])
    table = CliRunner().invoke(main, ["table", "eval", "--json", cited, *pairs])
    own = CliRunner().invoke(main, ["table", "eval", "--json", str(tmp_path / "own.md"), *pairs])
    assert read.exit_code == table.exit_code == own.exit_code == 0, (read.output, table.output)
    assert "| 特高 |" in json.loads(read.stdout)["markdown"]
    answer = json.loads(table.stdout)
    assert risk(answer) == "特高" and answer["release"]["tag"] == "kb-r2"
    assert risk(json.loads(own.stdout)) == "未定"
    # each says on stderr that it answered from the index, not the edit (`kb read` in
    # Chinese, the words of the Chinese heading path it was given)
    assert f"kb: note: {EDITED} in this repository's work tree differs from the copy in " \
        f"the index read ({dev}" in table.stderr and "`kb build` to read the edit" in table.stderr
    assert f"kb: note: 本仓库工作区中的 {EDITED} 与所读索引（{dev}" in read.stderr
    assert "运行 `kb build` 后才能读到所做的修改" in read.stderr
    assert "work tree" not in own.stderr
    doc.write_text((dev / "current" / "data" / "source" / EDITED).read_text("utf-8"), "utf-8")
    again = CliRunner().invoke(main, ["table", "eval", "--json", cited, *pairs])
    assert again.exit_code == 0 and "work tree" not in again.stderr, again.stderr


@pytest.mark.parametrize("index", ["KB_INDEX", "dist"])
def test_kb_table_eval_reads_kb_toml_once(device, tmp_path, monkeypatch, index):
    """`kb table eval` of a document of the knowledge read kb.toml up to three times (which
    file is the knowledge's, the index a client finds, whether the work tree holds an edit
    not built; a file of its own three times too) and `kb read` twice: once now, each, the
    edit still said."""
    dev, cited = device
    repo = tmp_path / "repo"
    shutil.copytree(dev.parent / "kr", repo, symlinks=True)
    doc = repo / EDITED
    doc.write_text(doc.read_text("utf-8").replace("| 特高 |", "| 未定 |"), "utf-8")
    monkeypatch.chdir(repo)
    if index == "KB_INDEX":
        monkeypatch.setenv("KB_INDEX", str(dev))
    else:
        monkeypatch.delenv("KB_INDEX", raising=False)
        assert (repo / "dist" / "manifest.json").is_file()
    reads: list[Path] = []
    read_bytes = Path.read_bytes

    def counted(path: Path) -> bytes:
        reads.extend([path] if path.name == "kb.toml" else [])
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", counted)
    for args in (["table", "eval", "--json", cited, *(f"{k}={v}" for k, v in INPUTS.items())],
                 ["read", "--json", f"{EDITED} § {HEADING}"]):
        reads.clear()
        res = CliRunner().invoke(main, args)
        edit = "to read the edit" if args[0] == "table" else "才能读到所做的修改"
        assert res.exit_code == 0 and edit in res.stderr, res.output
        assert reads == [repo / "kb.toml"], (args[0], reads)
    (tmp_path / "own.md").write_text(doc.read_text("utf-8"), "utf-8")  # a file of its own
    reads.clear()
    own = CliRunner().invoke(main, ["table", "eval", "--json", str(tmp_path / "own.md"),
                                    *(f"{k}={v}" for k, v in INPUTS.items())])
    assert own.exit_code == 0 and risk(json.loads(own.stdout)) == "未定", own.output
    assert reads == [repo / "kb.toml"], reads


def test_a_dirty_builds_citation_by_commit_alone_says_its_lines_may_differ(device, tmp_path):
    """A citation `kb query` gave from a build of uncommitted files (`[local build @ <commit>
    + uncommitted changes]`), evaluated in the clean release of that commit, answered from
    lines that may not be the ones cited without a word; `release_note` says so on every
    surface. A citation of that commit alone has none."""
    dev, cited = device
    kind, now = cli_eval(dev, {"doc": cited, "inputs": INPUTS})
    commit = now["release"]["source_commit"][:12]  # type: ignore[index]
    asks = [{"doc": f"{cited} [local build @ {commit} + uncommitted changes]", "inputs": INPUTS},
            {"doc": f"{cited} @ {commit}", "inputs": INPUTS}]
    got = every_surface(dev, tmp_path, asks)
    assert risk(got[0][1]) == "特高" and "release_note" not in got[1][1]  # type: ignore[operator]
    note = got[0][1]["release_note"]  # type: ignore[index]
    assert f"came from a build of commit {commit} with uncommitted changes" in note, note
