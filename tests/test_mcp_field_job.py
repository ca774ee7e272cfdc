"""`kb mcp` through a whole job of an agent answering a field technician (issues 8 and 17):
the device syncs a new release while the server runs, and the agent writes document paths
as it found them (a link, a web address). A real server over stdio (the SDK's client), real
builds of two commits."""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

from mcpfixtures import RISK, committed_repo, data, error_text, git, make_repo, session

INJECTED = "knowledge/notes/injected.md"
RISK_DOC = "knowledge/crops/risk.md"


def two_builds(root: Path) -> tuple[Path, str, str]:
    """A device serving the build of a first commit (r1), with the build of a second (r2:
    injected.md removed, risk.md's measures edited) beside it: (device, commit 1, 2)."""
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config

    repo = committed_repo(root / "repo")
    device = root / "device"
    build(load_config(repo), BuildOptions(out=device / "releases" / "r1", progress=False))
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / INJECTED).unlink()
    (repo / RISK_DOC).write_text(RISK.replace("摘除病叶", "摘除并带出病叶"), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "r2: the inspection note removed, measures edited")
    build(load_config(repo), BuildOptions(out=device / "releases" / "r2", progress=False))
    os.symlink("releases/r1", device / "current")
    return device, first, git(repo, "rev-parse", "HEAD").strip()


def test_a_sync_while_serving_is_cited_and_a_removed_document_is_said_so(tmp_path):
    """After `kb sync` switches the served release, answers cite the new release; a read of
    a document it no longer holds (by path, by citation, or as evaluate_table's doc) said
    only "no such document in the index", and the agent retried other spellings of a path
    it had read a minute before. It now says the document was in the release served
    before and the new one does not hold it. A document no release held is still just not
    there, and `read` takes no commit: one given is refused by name."""
    device, first, second = two_builds(tmp_path)

    async def scenario(c):
        got = {"before": data(await c.call_tool("search", {"query": "卷帘机 电机 温升"})),
               "read1": data(await c.call_tool("read", {"doc": INJECTED}))}
        os.replace(device / "current", device / "old")  # as `kb sync` switches
        os.symlink("releases/r2", device / "current")
        got["after"] = data(await c.call_tool("search", {"query": "霜霉病 防治措施 病叶"}))
        got["gone"] = [await c.call_tool("read", {"doc": doc}) for doc in (
            INJECTED, got["read1"]["citation"], "notes/injected.md",
            urllib.parse.quote(INJECTED, safe=""))]
        got["table"] = await c.call_tool("evaluate_table", {"doc": INJECTED,
                                                            "inputs": {"温度": 18}})
        got["never"] = await c.call_tool("read", {"doc": "knowledge/notes/never.md"})
        got["commit"] = await c.call_tool("read", {"doc": RISK_DOC, "commit": first})
        return got

    got = session(tmp_path, "--index", str(device), scenario=scenario)
    assert got["before"]["release"]["source_commit"] == first
    assert got["before"]["results"][0]["doc"] == INJECTED
    assert got["after"]["release"]["source_commit"] == second
    assert any("摘除并带出病叶" in r["text"] for r in got["after"]["results"])
    for res in [*got["gone"], got["table"]]:
        text = error_text(res)
        assert (f"{INJECTED} is not in the release served now (the build of commit "
                f"{second[:12]}): it was in the build of commit {first[:12]}, which this "
                "server served before") in text, text
        assert "no longer holds it" in text and "\n" not in text
    assert error_text(got["never"]).endswith(
        "no such document in the index: knowledge/notes/never.md")
    assert "commit: unknown argument (read takes doc, heading_path, line_start, line_end)" \
        in error_text(got["commit"])


def test_document_paths_as_links_and_addresses_write_them(tmp_path):
    """Paths as an agent copies them from a link or a web page: every '/' or a Chinese file
    name URL-escaped was "no such document", and a link's `#anchor` (GitHub's, as documents
    link sections; URL-escaped too) was refused. Each reads what it names; what a path may
    not name stays refused once decoded ('..'), a file whose name holds '%' is read as named,
    and an anchor no heading has lists the anchors there are."""
    repo = make_repo(tmp_path / "kb")
    (repo / "knowledge" / "病害").mkdir()
    (repo / "knowledge" / "病害" / "黄瓜霜霉病.md").write_text(RISK, encoding="utf-8")
    for name, body in (("a%41.md", "literal"), ("aA.md", "decoded")):
        (repo / "knowledge" / "notes" / name).write_text(f"# {body}\n\n{body} text.\n",
                                                         encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "knowledge")
    zh = "knowledge/病害/黄瓜霜霉病.md"
    reads = {
        "slashes": (urllib.parse.quote(RISK_DOC, safe=""), RISK_DOC, None),  # from the top
        "zh name": (urllib.parse.quote(zh), zh, None),
        "zh short": (urllib.parse.quote("病害/黄瓜霜霉病.md"), zh, None),
        "dot": ("./" + RISK_DOC, RISK_DOC, None),
        "anchor": (RISK_DOC + "#2-风险等级表", RISK_DOC, "2. 风险等级表"),
        "escaped anchor": (zh + "#" + urllib.parse.quote("3-防治措施"), zh, "3. 防治措施"),
        "en anchor": ("knowledge/notes/aA.md#decoded", "knowledge/notes/aA.md", "decoded"),
        "literal %": ("knowledge/notes/a%41.md", "knowledge/notes/a%41.md", None),
    }
    refused = {"knowledge%2F%2E%2E%2Fknowledge%2Fcrops%2Frisk.md": "'..' is not allowed",
               "knowledge\\crops\\risk.md": "backslashes and NUL are not allowed",
               RISK_DOC + "#install": "no heading of knowledge/crops/risk.md has the anchor "
                                      "'#install' (its anchors: #霜霉病风险判定, #1-发生条件"}

    async def scenario(c):
        return ({k: await c.call_tool("read", {"doc": doc}) for k, (doc, _, _) in reads.items()},
                {doc: await c.call_tool("read", {"doc": doc}) for doc in refused})

    done, bad = session(repo, scenario=scenario)
    for name, (_, doc, heading) in reads.items():
        section = data(done[name])
        assert section["doc"] == doc, name
        assert section["heading_path"][-1:] == ([heading] if heading else []), name
        assert ("literal" in section["markdown"]) is (name == "literal %"), name
    for doc, words in refused.items():
        assert words in error_text(bad[doc]), doc
