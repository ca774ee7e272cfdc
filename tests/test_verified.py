"""`verified` per chunk from Git history (issue 12.1): text changed after its review is
served as unverified, with the reason, in `kb query` (JSON and terminal), MCP, the
manifest, `kb release`, a synced device and `kb check` warnings.

One real knowledge repository holds every case, each in its own document, built once with
the real embedding model:

- the HX-260 fault-code chapter: written by its author, approved with `kb review approve`
  (a reviewer's commit with a Reviewed-by trailer), then one table row (E17) edited and
  pushed directly without review;
- engineering documents imported in one reviewed import commit (Reviewed-by trailer), then
  edited without review: a table header renamed, a row deleted, a content front-matter
  field changed, only a non-content field (tags) changed;
- a squash-merged document whose single commit carries its reviewer's trailer (verified);
- a document verified by its author's own commit, no trailer (a direct push: not verified);
- a row edited on a branch that forked before the review and merged after it: older than
  the review by date, but not one of its ancestors (unverified).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import anyio
import git
import pytest
from click.testing import CliRunner
from git.util import Actor
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from kbtools.agents.read import open_knowledge, read_section
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.index.manifest import load_manifest
from kbtools.index.reader import open_index
from kbtools.query.fusion import FusionParams
from kbtools.query.search import search
from tests.kbfixtures import REPO, copy_example

pytestmark = pytest.mark.slow

FAULTS = "knowledge/equipment/hx260-ch05-fault-codes.md"
E17_OLD = "| E17 | 伺服过载 |"
E17_NEW_ACTION = "直接长按【复位】键继续生产"  # the unreviewed edit: skip the power-down
WU = Actor("Wu Xiulan", "wu.xiulan@plant.example.com")  # the chapter's author
ZHANG = Actor("Zhang Wei", "zhang.wei@plant.example.com")  # equipment reviewer
MALLORY = Actor("Mallory", "mallory@plant.example.com")  # pushes without review
WEN = Actor("Wen Writer", "wen@eng.example.com")  # writes engineering docs; not a reviewer
ALICE = "alice@eng.example.com"  # engineering reviewers
BOB = "bob@eng.example.com"


def eng_doc(title: str, *, by: str | None = ALICE, at: str = "2026-03-05T10:00:00+08:00",
            project: str = "demo", tags: str = "ports", header: str = "| Service | Port |",
            rows: tuple[str, ...] = ("| ingest | 8443 |", "| metrics | 9100 |",
                                     "| admin | 9443 |")) -> str:
    verified = [f"verified: true\nverified_by: {by}\nverified_at: \"{at}\""] if by else \
        ["verified: false"]
    return "\n".join(["---", f"title: {title}", "category: engineering", f"project: {project}",
                      "source: test", "author: Wen Writer",
                      'timestamp: "2026-03-01T09:00:00+08:00"', *verified, f"tags: [{tags}]",
                      "---", f"# {title}", "", "## Ports", "", f"Ports of the {title} service.",
                      "", header, "|---|---|", *rows, "", "## Notes", "",
                      f"Open only the ports listed above for {title}.", ""])


ENG = {name: f"knowledge/engineering/{name}.md" for name in (
    "header", "deleted", "frontmatter", "tags", "squash", "direct", "branch", "untouched",
    "renamed", "moved")}


class History:
    """Commits by chosen people at chosen dates."""

    def __init__(self, root: Path):
        self.root = root
        self.repo = git.Repo(root)

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def commit(self, rels: list[str], message: str, who: Actor, date: str,
               committed: str | None = None) -> str:
        self.repo.index.add(rels)
        return self.repo.index.commit(
            message, author=who, committer=who, author_date=datetime.fromisoformat(date),
            commit_date=datetime.fromisoformat(committed or date)).hexsha

    def edit(self, rel: str, old: str, new: str) -> None:
        text = (self.root / rel).read_text(encoding="utf-8")
        assert old in text, (rel, old)
        self.write(rel, text.replace(old, new, 1))


def make_scenario(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy_example(root, docs=[])  # kb.toml (reviewers), schemas, assets: one commit
    h = History(root)
    # engineering: one reviewed import (author date before the reviews, trailer for alice)
    for name in ("header", "deleted", "frontmatter", "tags", "untouched", "renamed"):
        h.write(ENG[name], eng_doc(name))
    h.write(ENG["branch"], eng_doc("branch", by=None))
    h.commit(list(ENG.values())[:4] + [ENG["untouched"], ENG["branch"], ENG["renamed"]],
             f"Import engineering docs\n\nReviewed-by: Alice <{ALICE}>\n", WEN,
             "2026-03-01T00:00:00+00:00", "2026-03-06T00:00:00+00:00")
    fork, trunk = h.repo.head.commit, h.repo.active_branch.name
    # unreviewed edits pushed directly
    h.edit(ENG["header"], "| Service | Port |", "| Service | Closed port |")
    h.edit(ENG["deleted"], "| metrics | 9100 |\n", "")
    h.edit(ENG["frontmatter"], "project: demo", "project: other")
    h.edit(ENG["tags"], "tags: [ports]", "tags: [ports, firewall]")
    h.commit([ENG[n] for n in ("header", "deleted", "frontmatter", "tags")],
             "Tidy engineering docs", WEN, "2026-04-01T00:00:00+00:00")
    h.repo.index.move([ENG["renamed"], ENG["moved"]])  # a rename keeps the review
    h.commit([], "Rename a doc", WEN, "2026-04-01T01:00:00+00:00")
    # a squash merge: one commit adds the document and its verification, with the trailer
    h.write(ENG["squash"], eng_doc("squash", by=BOB, at="2026-04-02T12:00:00+00:00"))
    h.commit([ENG["squash"]], f"Add squash doc (#12)\n\nReviewed-by: Bob <{BOB}>\n", WEN,
             "2026-04-02T09:00:00+00:00", "2026-04-02T12:30:00+00:00")
    # a direct push by the author that marks its own document verified, no trailer
    h.write(ENG["direct"], eng_doc("direct", at="2026-04-03T09:30:00+00:00"))
    h.commit([ENG["direct"]], "Add direct doc, verified", WEN, "2026-04-03T09:00:00+00:00",
             "2026-04-03T10:00:00+00:00")
    # a branch that forked before the review, merged after it
    h.repo.git.checkout("-q", "-b", "feature", fork.hexsha)
    h.edit(ENG["branch"], "| admin | 9443 |", "| admin | 80 |")
    h.commit([ENG["branch"]], "Admin on port 80", WEN, "2026-03-10T00:00:00+00:00")
    h.repo.git.checkout("-q", trunk)
    h.write(ENG["branch"], eng_doc("branch", at="2026-04-04T12:00:00+00:00"))
    h.commit([ENG["branch"]], f"Verify branch doc\n\nReviewed-by: Alice <{ALICE}>\n",
             Actor("Alice", ALICE), "2026-04-04T12:00:00+00:00")
    h.repo.git.merge("-q", "--no-edit", "feature",
                     env={"GIT_AUTHOR_DATE": "2026-04-05T00:00:00+00:00",
                          "GIT_COMMITTER_DATE": "2026-04-05T00:00:00+00:00"})
    # the fault-code chapter: written, approved with `kb review approve`, then one row edited
    original = (REPO / FAULTS).read_text(encoding="utf-8")
    unverified = original.replace("verified: true\n", "verified: false\n") \
        .replace("verified_by: zhang.wei@plant.example.com\n", "") \
        .replace('verified_at: "2026-01-19T11:00:00+08:00"\n', "")
    h.write(FAULTS, unverified)
    h.commit([FAULTS], "Chapter 5: fault codes", WU, "2026-04-06T00:00:00+00:00")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", ZHANG.name)
        monkeypatch.setenv(f"GIT_{who}_EMAIL", ZHANG.email)
    monkeypatch.chdir(root)
    res = CliRunner().invoke(main, ["review", "approve", FAULTS])
    assert res.exit_code == 0, res.output
    h.edit(FAULTS, "断开主电源 5 分钟后重新上电，长按【复位】键 3 秒", E17_NEW_ACTION)
    h.commit([FAULTS], "Faster E17 reset", MALLORY,
             datetime.now().astimezone().isoformat(timespec="seconds"))
    assert not h.repo.is_dirty(untracked_files=True)
    return root


@pytest.fixture(scope="module")
def scenario(tmp_path_factory) -> Path:
    mp = pytest.MonkeyPatch()
    mp.setenv("KB_HOME", str(tmp_path_factory.mktemp("kbhome")))
    for who in ("AUTHOR", "COMMITTER"):  # the merge commit
        mp.setenv(f"GIT_{who}_NAME", WEN.name)
        mp.setenv(f"GIT_{who}_EMAIL", WEN.email)
    try:
        root = make_scenario(tmp_path_factory.mktemp("verified") / "kb", mp)
        build(load_config(root), BuildOptions(progress=False))
    finally:
        mp.undo()
    return root


def chunk_rows(dist: Path, doc: str) -> list[dict]:
    idx = open_index(dist)
    try:
        rows = idx.store.chunks(list(range(idx.store.count())))
        return sorted((r for r in rows.values() if r["doc"] == doc), key=lambda r: r["num"])
    finally:
        idx.close()


def row_of(rows: list[dict], needle: str, kind: str = "table_row") -> dict:
    found = [r for r in rows if r["kind"] == kind and needle in r["text"]]
    assert len(found) == 1, (needle, [r["text"][:40] for r in rows])
    return found[0]


def query(index: Path, question: str, *args: str) -> dict:
    res = CliRunner().invoke(main, ["query", "--index", str(index), question, "-k", "10",
                                    "--json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def by_row(out: dict, code: str) -> dict:
    rows = [r for r in out["results"] if r["kind"] == "table_row" and f"故障码: {code}" in r["text"]]
    assert rows, [r["text"][:30] for r in out["results"]]
    return rows[0]


# ---------------------------------------------------------------- kb query


def test_query_json_edited_row_unverified_other_rows_verified(scenario):
    dist = scenario / "dist"
    e17 = by_row(query(dist, "E17 伺服过载 怎么复位"), "E17")
    assert E17_NEW_ACTION in e17["text"]
    assert e17["verified"] is False
    v = e17["verification"]
    assert v["verified"] is False and v["status"] == "lapsed"
    assert v["reason"].startswith("changed after review on ")
    assert "Mallory <mallory@plant.example.com>" in v["reason"]
    assert "reviewed " in v["reason"] and ZHANG.email in v["reason"]
    e05 = by_row(query(dist, "E05 安全门联锁异常"), "E05")
    assert e05["verified"] is True
    assert e05["verification"]["status"] == "verified" and e05["verification"]["reason"] is None
    assert e05["verification"]["review"]["by"] == ZHANG.email
    # every existing key is still there, with its meaning; the metadata is the front matter
    assert e05["metadata"]["verified"] is True and e17["metadata"]["verified"] is True
    rows = chunk_rows(dist, FAULTS)
    fine = [r for r in rows if r["kind"] == "table_row" and "E17" not in r["text"]]
    assert len(fine) == 11 and all(r["verified"] for r in fine)
    # the table and the section holding the edited row lapse with it
    assert not row_of(rows, "| E17 |", "table")["verified"]
    assert not [r for r in rows if r["kind"] == "section" and "| E17 |" in r["text"]][0]["verified"]


def test_verified_only_where_and_ranking_use_the_per_chunk_value(scenario):
    dist = scenario / "dist"
    strict = query(dist, "E17 伺服过载 怎么复位", "--verified-only")
    assert strict["results"] and all(r["verified"] for r in strict["results"])
    assert not any(E17_NEW_ACTION in r["text"] for r in strict["results"])
    only_bad = query(dist, "E17 伺服过载 怎么复位", "--where", "verified=false")
    assert only_bad["results"] and not any(r["verified"] for r in only_bad["results"])
    assert any(E17_NEW_ACTION in r["text"] for r in only_bad["results"])
    # reviewed text wins a near tie: the unverified weight applies to the lapsed row only
    idx = open_index(dist)
    try:
        scores = {}
        for weight in (1.0, 0.5):
            res = search(idx, "E17 伺服过载 怎么复位", k=10,
                         params=replace(FusionParams.from_config(
                             idx.manifest["config"]["values"]["query"]), unverified_weight=weight))
            scores[weight] = {r.chunk_id: r.score for r in res.results}
        e17 = by_row(query(dist, "E17 伺服过载 怎么复位"), "E17")["chunk_id"]
        e05 = by_row(query(dist, "E05 安全门联锁异常"), "E05")["chunk_id"]
        assert scores[0.5].get(e17, 0.0) < scores[1.0][e17]
        table = idx.chunk_table()
        num = {r["id"]: r["num"] for r in chunk_rows(dist, FAULTS)}
        assert not table.verified[num[e17]] and table.verified[num[e05]]
    finally:
        idx.close()


def test_query_terminal_shows_the_reason(scenario):
    res = CliRunner().invoke(main, ["query", "--index", str(scenario / "dist"),
                                    "E17 伺服过载 怎么复位", "-k", "10"])
    assert res.exit_code == 0, res.output
    block = res.output.split("[UNVERIFIED]", 1)
    assert len(block) == 2
    assert "unverified: changed after review on" in res.output
    assert "Mallory" in res.output


# ---------------------------------------------------------------- each history case


def test_reading_a_results_own_lines_agrees_with_its_verified(scenario):
    """`read` judged a range unverified when any chunk over it was, the lapsed section or
    table around a verified row included: search said verified, read of the same citation
    said unverified. A range holding the edited row stays unverified."""
    dist = scenario / "dist"
    kn = open_knowledge(index=dist)
    results = query(dist, "E05 安全门联锁异常")["results"] + query(dist, "E17 伺服过载 怎么复位")["results"]
    assert {r["verified"] for r in results} == {True, False}
    for r in results:
        sec = read_section(kn, r["doc"], line_start=r["line_start"], line_end=r["line_end"])
        assert (sec.verified, sec.reason) == (r["verified"], r["verification"]["reason"]), r
    e05, e17 = by_row(query(dist, "E05 安全门联锁异常"), "E05"), by_row(query(dist, "E17 伺服过载"), "E17")
    both = read_section(kn, FAULTS, line_start=min(e05["line_start"], e17["line_start"]),
                        line_end=max(e05["line_end"], e17["line_end"]))
    assert both.verified is False and both.reason == e17["verification"]["reason"]


def test_where_doc_takes_the_short_path_read_takes(scenario):
    """`doc=crops/x.md`, the path `read` accepts, silently matched nothing (no_answer); a
    path naming no document does not either, it is an error listing documents."""
    dist = scenario / "dist"
    short = FAULTS.removeprefix("knowledge/")
    full = query(dist, "E17 伺服过载 怎么复位", "--where", f"doc={FAULTS}")
    got = query(dist, "E17 伺服过载 怎么复位", "--where", f"doc={short}")
    assert got["results"] and [(r["doc"], r["line_start"]) for r in got["results"]] == [
        (r["doc"], r["line_start"]) for r in full["results"]]
    other = query(dist, "E17 伺服过载 怎么复位", "--where", f"doc!={short}")
    assert all(r["doc"] != FAULTS for r in other["results"])
    res = CliRunner().invoke(main, ["query", "--index", str(dist), "E17", "--where",
                                    "doc=equipment/no-such.md"])
    assert res.exit_code == 2  # a usage error, as an unknown --where key is
    assert "bad --where doc=equipment/no-such.md: no document 'equipment/no-such.md' in this " \
           "index; its documents include: " in res.output, res.output


def _verdicts(dist: Path, name: str) -> list[dict]:
    return [r["verification"] for r in chunk_rows(dist, ENG[name])]


def test_header_rename_lapses_every_row_and_the_table(scenario):
    rows = chunk_rows(scenario / "dist", ENG["header"])
    for r in rows:
        if r["kind"] in ("table_row", "table"):
            assert not r["verified"], r["text"]
            assert r["verification"]["reason"].startswith("changed after review on 2026-04-01 by "
                                                          "Wen Writer <wen@eng.example.com>")
    assert {r["kind"] for r in rows} >= {"table", "table_row"}


def test_deleted_row_lapses_its_table_not_the_other_rows(scenario):
    rows = chunk_rows(scenario / "dist", ENG["deleted"])
    assert row_of(rows, "ingest")["verified"] and row_of(rows, "admin")["verified"]
    assert not row_of(rows, "ingest", "table")["verified"]


def test_content_front_matter_change_lapses_the_document(scenario):
    vs = _verdicts(scenario / "dist", "frontmatter")
    assert vs and not any(v["verified"] for v in vs)
    assert all(v["reason"].startswith("front matter project: changed after review on 2026-04-01")
               for v in vs)


def test_non_content_change_and_untouched_docs_stay_verified(scenario):
    for name in ("tags", "untouched", "squash", "moved"):
        vs = _verdicts(scenario / "dist", name)
        assert vs and all(v["verified"] and v["status"] == "verified" for v in vs), name
    assert _verdicts(scenario / "dist", "squash")[0]["review"]["by"] == BOB


def test_self_verified_direct_push_is_not_a_review(scenario):
    vs = _verdicts(scenario / "dist", "direct")
    assert vs and not any(v["verified"] for v in vs)
    assert all(v["reason"].startswith("review not valid: ") and "Reviewed-by" in v["reason"]
               for v in vs)


def test_row_from_a_branch_forked_before_the_review_lapses(scenario):
    rows = chunk_rows(scenario / "dist", ENG["branch"])
    admin = row_of(rows, "admin")
    assert not admin["verified"]
    assert "changed after review on 2026-03-10 by Wen Writer" in admin["verification"]["reason"]
    assert row_of(rows, "ingest")["verified"] and row_of(rows, "metrics")["verified"]


# ---------------------------------------------------------------- manifest, release, device


def test_manifest_lists_lapsed_documents(scenario):
    manifest = load_manifest(scenario / "dist")  # validated against manifest.schema.json
    v = manifest["verification"]
    assert v["checked"] is True
    lapsed = {x["doc"]: x for x in v["lapsed"]}
    assert set(lapsed) == {FAULTS, ENG["header"], ENG["deleted"], ENG["frontmatter"],
                           ENG["direct"], ENG["branch"]}
    e17_line = (scenario / FAULTS).read_text(encoding="utf-8").split("\n").index(
        next(ln for ln in (scenario / FAULTS).read_text(encoding="utf-8").split("\n")
             if ln.startswith("| E17 |"))) + 1
    assert lapsed[FAULTS]["lines"] == [[e17_line, e17_line]]
    assert lapsed[FAULTS]["line"] == e17_line  # where `kb check` names it
    assert 1 <= lapsed[FAULTS]["chunks"] < lapsed[FAULTS]["of"]
    assert lapsed[FAULTS]["reason"].startswith("changed after review on")
    assert lapsed[FAULTS]["review"]["by"] == ZHANG.email
    assert (json.loads((REPO / "schemas" / "manifest.schema.json").read_text())
            == json.loads((REPO / "kbtools" / "data" / "schemas" / "manifest.schema.json")
                          .read_text()))


def test_release_lists_lapses_and_a_synced_device_serves_the_same(scenario, tmp_path,
                                                                   monkeypatch):
    monkeypatch.chdir(scenario)
    runner = CliRunner()
    res = runner.invoke(main, ["keygen", str(tmp_path / "rel")])
    assert res.exit_code == 0, res.output
    art = tmp_path / "art.git"
    git.Repo.init(art, bare=True)
    res = runner.invoke(main, ["release", "--remote", str(art), "--sign-key", str(tmp_path / "rel")])
    assert res.exit_code == 0, res.output
    line = load_manifest(scenario / "dist")["verification"]["lapsed"]
    line = next(x["line"] for x in line if x["doc"] == FAULTS)  # path:line, as kb check
    assert f"verification lapsed: {FAULTS}:{line}: " in res.output
    assert "changed after review on" in res.output
    assert f"verification lapsed: {ENG['untouched']}" not in res.output
    assert "lapsed" not in res.stdout and len(res.stdout.splitlines()) == 1  # the tag line only
    res = runner.invoke(main, ["release", "--no-push", "--json"])
    assert {x["doc"] for x in json.loads(res.output)["lapsed"]} >= {FAULTS, ENG["direct"]}
    dev = tmp_path / "device"
    res = runner.invoke(main, ["sync", str(art), "--to", str(dev),
                               "--trusted-key", str(tmp_path / "rel.pub")])
    assert res.exit_code == 0, res.output
    e17 = by_row(query(dev, "E17 伺服过载 怎么复位"), "E17")
    assert e17["verified"] is False and e17["verification"]["reason"].startswith(
        "changed after review on")
    assert by_row(query(dev, "E05 安全门联锁异常"), "E05")["verified"] is True


def mcp_calls(cwd: Path, calls: list[tuple[str, dict]]) -> list[dict]:
    """Tool calls through a real `kb mcp` stdio server started in `cwd` (this tree's code)."""
    env = {"KB_HOME": str(cwd / ".kbhome"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    params = StdioServerParameters(command=str(Path(sys.executable).with_name("kb")),
                                   args=["mcp"], cwd=str(cwd), env=env)
    out: list = []

    async def run() -> None:
        async with stdio_client(params) as (r, w), ClientSession(r, w) as client:
            await client.initialize()
            for tool, args in calls:
                res = await client.call_tool(tool, args)
                assert not res.is_error, res.content[0].text
                out.append(res.structured_content)

    anyio.run(run)
    return out


def test_mcp_search_and_read_carry_the_verification(scenario):
    out, table, reset = mcp_calls(scenario, [
        ("search", {"query": "E17 伺服过载 怎么复位", "k": 10}),
        ("read", {"doc": FAULTS, "heading_path": "5.1 故障码表"}),
        ("read", {"doc": FAULTS, "heading_path": "5.2 复位后仍然报警的处理"})])
    e17 = by_row(out, "E17")
    assert e17["verified"] is False
    assert e17["verification"]["reason"].startswith("changed after review on")
    assert E17_NEW_ACTION in table["markdown"] and table["verified"] is False
    assert table["verification"]["reason"].startswith("changed after review on")
    assert reset["verified"] is True and reset["verification"]["reason"] is None
    # who wrote and who reviewed what was read, as a search result says it
    review = e17["verification"]["review"]
    assert review["by"] == ZHANG.email and review["commit"]
    assert table["verification"]["review"] == review == reset["verification"]["review"]
    assert (table["last_commit"], table["last_author"]) == (e17["last_commit"], MALLORY.name)
    assert table["last_changed"] == e17["last_changed"]
    assert reset["last_author"] != MALLORY.name and reset["last_commit"] != e17["last_commit"]


# ---------------------------------------------------------------- kb check


def test_kb_check_warns_with_the_changed_lines(scenario, monkeypatch, tmp_path):
    monkeypatch.chdir(scenario)
    res = CliRunner().invoke(main, ["check", "--json"])
    assert res.exit_code == 0, res.output  # warnings only
    found = [f for f in json.loads(res.stdout) if f["code"] == "verification-lapsed"]
    assert {f["level"] for f in found} == {"warning"}
    assert {f["path"] for f in found} == {FAULTS, ENG["header"], ENG["deleted"],
                                          ENG["frontmatter"], ENG["direct"], ENG["branch"]}
    e17 = [f for f in found if f["path"] == FAULTS]
    line = e17[0]["line"]
    assert len(e17) == 1 and f"line {line} of this verified document" in e17[0]["message"]
    assert (scenario / FAULTS).read_text(encoding="utf-8").split("\n")[line - 1] \
        .startswith("| E17 |")
    assert "Mallory" in e17[0]["message"] and "kb review approve" in e17[0]["message"]
    direct = [f for f in found if f["path"] == ENG["direct"]]
    assert "review not valid" in direct[0]["message"]
    outside = tmp = tmp_path / "plain-copy"
    shutil.copytree(scenario / "knowledge", tmp / "knowledge")
    shutil.copy(scenario / "kb.toml", tmp / "kb.toml")
    shutil.copytree(scenario / "schemas", tmp / "schemas")
    res = CliRunner().invoke(main, ["check", "--json", str(outside / "knowledge")])
    assert "verification-lapsed" not in res.output  # outside Git nothing can be said


# ---------------------------------------------------------------- dirty tree, no Git


def _clone(scenario: Path, dest: Path) -> Path:
    git.Repo.clone_from(scenario, dest)
    return dest


def test_dirty_working_tree_marks_uncommitted_lines(scenario, tmp_path):
    root = _clone(scenario, tmp_path / "clone")
    h = History(root)
    h.edit(FAULTS, "| E05 | 安全门联锁异常 |", "| E05 | 安全门联锁异常（已改） |")
    h.edit(ENG["untouched"], 'verified_at: "2026-03-05T10:00:00+08:00"',
           'verified_at: "2026-11-01T10:00:00+08:00"')  # a verification nobody committed
    h.write("knowledge/engineering/new.md", eng_doc("new"))  # verified, never committed
    stats = build(load_config(root), BuildOptions(progress=False))
    rows = chunk_rows(root / "dist", FAULTS)
    e05 = row_of(rows, "E05")
    assert not e05["verified"]
    assert e05["verification"]["reason"].startswith("uncommitted change (reviewed ")
    assert not row_of(rows, "E17")["verified"]
    assert row_of(rows, "E01")["verified"] and row_of(rows, "E52")["verified"]
    assert {x["doc"] for x in stats.lapsed} >= {FAULTS, ENG["untouched"],
                                                "knowledge/engineering/new.md"}
    assert {v["reason"] for v in _verdicts(root / "dist", "untouched")} == {
        "uncommitted change to verified, verified_by or verified_at (a verification counts "
        "once committed by a reviewer)"}
    new = chunk_rows(root / "dist", "knowledge/engineering/new.md")
    assert new and not any(r["verified"] for r in new)
    assert new[0]["verification"]["reason"].startswith("uncommitted change: the document is not")


def test_shallow_clone_proves_nothing(scenario, tmp_path):
    root = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", scenario.as_uri(), str(root)],
                   check=True)
    build(load_config(root), BuildOptions(progress=False))
    rows = chunk_rows(root / "dist", ENG["untouched"])
    assert rows and not any(r["verified"] for r in rows)
    assert rows[0]["verification"]["reason"].startswith("shallow clone: ")


def test_a_clone_builds_the_same_bytes(scenario, tmp_path):
    root = _clone(scenario, tmp_path / "clone")
    build(load_config(root), BuildOptions(progress=False))
    for rel in ("manifest.json", "data/docs.jsonl"):
        assert (root / "dist" / rel).read_bytes() == (scenario / "dist" / rel).read_bytes()
    # chunks of unverified documents carry no verification record: their bytes are unchanged
    records = [json.loads(line) for p in sorted((root / "dist" / "data" / "chunks").glob("*"))
               for line in p.read_text(encoding="utf-8").splitlines()]
    verified_docs = {r["doc"] for r in records if "verification" in r}
    assert ENG["squash"] in verified_docs
    assert all(("verification" in r) == (r["doc"] in verified_docs) for r in records)


def test_outside_git_and_corpus_builds_prove_nothing(scenario, tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    shutil.copytree(scenario, plain, ignore=shutil.ignore_patterns(".git", "dist"))
    build(load_config(plain), BuildOptions(progress=False))
    rows = chunk_rows(plain / "dist", ENG["untouched"])
    assert rows and not any(r["verified"] for r in rows)
    assert {r["verification"]["status"] for r in rows} == {"unchecked"}
    assert {r["verification"]["reason"] for r in rows} == {
        "built outside Git: the review cannot be checked"}
    assert load_manifest(plain / "dist")["verification"]["checked"] is False
    monkeypatch.chdir(scenario)
    out = tmp_path / "corpus-dist"
    res = CliRunner().invoke(main, ["build", "--corpus", "knowledge", "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert "verification lapsed: " in res.output
    hit = query(out, "E05 安全门联锁异常")
    assert not any(r["verified"] for r in hit["results"])
    assert {r["verification"]["reason"] for r in hit["results"]
            if r["metadata"].get("verified") is True} == {
        "built with --corpus: the review cannot be checked"}


def test_reapproval_restores_verified(scenario, tmp_path, monkeypatch):
    root = _clone(scenario, tmp_path / "clone")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Liu Yang")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "liu.yang@plant.example.com")
    monkeypatch.chdir(root)
    res = CliRunner().invoke(main, ["review", "approve", FAULTS])
    assert res.exit_code == 0, res.output
    build(load_config(root), BuildOptions(progress=False))
    rows = chunk_rows(root / "dist", FAULTS)
    assert rows and all(r["verified"] for r in rows)
    assert row_of(rows, "E17")["verification"]["review"]["by"] == "liu.yang@plant.example.com"
