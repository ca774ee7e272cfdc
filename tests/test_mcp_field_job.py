"""`kb mcp` through a whole job of an agent answering a field technician (issues 8 and 17):
the device syncs a new release while the server runs, and the agent writes document paths
as it found them (a link, a web address). A real server over stdio (the SDK's client), real
builds of two commits."""

from __future__ import annotations

import os
import subprocess
import urllib.parse
from pathlib import Path

from mcpfixtures import KB, RISK, committed_repo, data, error_text, git, make_repo, session

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
    before and the new one does not hold it, named as a present document may be (but for
    case or Unicode composition: that said "no such document" until session 40). A document no
    release held is still just not there. `read` given the first commit reads the first release's text, which the
    device still keeps (session 36: it was refused by name)."""
    device, first, second = two_builds(tmp_path)

    async def scenario(c):
        got = {"before": data(await c.call_tool("search", {"query": "卷帘机 电机 温升"})),
               "read1": data(await c.call_tool("read", {"doc": INJECTED}))}
        os.replace(device / "current", device / "old")  # as `kb sync` switches
        os.symlink("releases/r2", device / "current")
        got["after"] = data(await c.call_tool("search", {"query": "霜霉病 防治措施 病叶"}))
        got["gone"] = [await c.call_tool("read", {"doc": doc}) for doc in (
            INJECTED, got["read1"]["citation"], "notes/injected.md",
            urllib.parse.quote(INJECTED, safe=""), "knowledge/notes/Injected.MD",
            "notes/INJECTED.md")]
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
    earlier = data(got["commit"])
    assert earlier["release"]["source_commit"] == first
    assert earlier["served_release"]["source_commit"] == second
    assert "摘除病叶" in earlier["markdown"] and "摘除并带出病叶" not in earlier["markdown"]


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
                {doc: await c.call_tool("read", {"doc": doc}) for doc in refused},
                [await c.call_tool("read", {"doc": zh, "heading_path": path}) for path in (
                    ["霜霉病风险判定 > 3. 防治措施"], ["Disease risk › 3. 防治措施"])])

    done, bad, (listed, unknown) = session(repo, scenario=scenario)
    # a citation's heading path sent as a list of one string (it named no heading "A > B")
    assert data(listed)["heading_path"] == ["霜霉病风险判定", "3. 防治措施"]
    assert "中没有“Disease risk › 3. 防治措施”这一节" in error_text(unknown)  # a Chinese path
    for name, (_, doc, heading) in reads.items():
        section = data(done[name])
        assert section["doc"] == doc, name
        assert section["heading_path"][-1:] == ([heading] if heading else []), name
        assert ("literal" in section["markdown"]) is (name == "literal %"), name
    for doc, words in refused.items():
        assert words in error_text(bad[doc]), doc


def test_the_whole_loop_on_the_example_leaves_the_checkout_alone(example_index, tmp_path):
    """Guard (already right, session 34): search → read the cited section (the lines the
    release's commit holds) → evaluate the decision table search found → file drafts (a
    Chinese title with '/' and '..', two at once): each on its own new branch, passing
    `kb check`, never `verified`, and the checked-out branch, the index and uncommitted
    edits untouched; `verified` and a title of several lines are refused by name."""
    import anyio

    repo = example_index.parent
    scab = repo / "knowledge" / "crops" / "wheat-scab.md"
    scab.write_text(scab.read_text(encoding="utf-8") + "\n未提交的修改。\n", encoding="utf-8")
    (repo / "staged.txt").write_text("staged", encoding="utf-8")
    git(repo, "add", "staged.txt")

    def state() -> tuple[str, ...]:
        status = [line for line in git(repo, "status", "--porcelain").splitlines()
                  if "server-stderr.log" not in line and ".kbhome" not in line]
        return (git(repo, "rev-parse", "HEAD"), git(repo, "branch", "--show-current"),
                "\n".join(status), git(repo, "diff", "--cached"), git(repo, "diff"))

    before = state()
    report = {"category": "field-report", "author": "Field Tech", "location": "三号田"}

    async def scenario(c):
        found = data(await c.call_tool("search", {
            "query": "小麦赤霉病 温度 18 相对湿度 90 连续降雨 2天 风险等级", "k": "5"}))
        hit = next(r for r in found["results"] if r.get("evaluation"))
        section = data(await c.call_tool("read", {"doc": hit["citation"]}))
        table = data(await c.call_tool("evaluate_table", {
            "doc": hit["doc"], "table": hit["evaluation"]["table_index"],
            "inputs": {"温度": "18", "相对湿度": "90", "连续降雨天数": 2}}))
        body = (f"扬花期降雨后复查。依据 {table['citation']}（{found['release']['source_commit']}）："
                f"{table['outputs'][0]}")
        drafts = {}

        async def file(title: str) -> None:
            drafts[title] = await c.call_tool("draft_report", {**report, "title": title,
                                                               "body": body})

        async with anyio.create_task_group() as group:
            for title in ("三号田/../赤霉病 复查", "Field 3/4: scab after rain"):
                group.start_soon(file, title)
        refused = [await c.call_tool("draft_report", {**report, "title": "x", "body": body,
                                                      "verified": True}),
                   await c.call_tool("draft_report", {**report, "title": "赤霉病\n复查",
                                                      "body": body})]
        return found, hit, section, table, drafts, refused

    found, hit, section, table, drafts, refused = session(repo, "--allow-write",
                                                          scenario=scenario)
    commit = found["release"]["source_commit"]
    shown = git(repo, "show", f"{commit}:{hit['doc']}").split("\n")
    assert section["markdown"] == "\n".join(shown[section["line_start"] - 1:section["line_end"]])
    assert table["status"] == "match" and table["outputs"]
    assert "verified: unknown argument" in error_text(refused[0])
    assert "draft title contains the control character '\\n'" in error_text(refused[1])
    assert state() == before
    branches = set()
    for title, res in drafts.items():
        draft = data(res)
        assert draft["verified"] is False and draft["branch"].startswith("draft/"), title
        branches.add(draft["branch"])
        text = git(repo, "show", f"{draft['branch']}:{draft['path']}")
        assert "verified: false" in text and f"title: {title}" in text.replace("'", "")
        assert git(repo, "diff", "--name-only", "HEAD", draft["branch"]).split() == [
            draft["path"]]
        tree = tmp_path / draft["branch"].replace("/", "-")
        git(repo, "worktree", "add", "-q", str(tree), draft["branch"])
        checked = subprocess.run([KB, "check", draft["path"]], cwd=tree, capture_output=True,
                                 text=True, env={**os.environ, "KB_HOME": str(tmp_path)})
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert " 0 errors" in checked.stdout + checked.stderr
    assert len(branches) == 2


def test_a_missing_document_of_a_repository_without_an_index_is_said_so(tmp_path):
    """`kb mcp` in a knowledge repository with no build reads from its files: a document
    not there is "no such document in the repository", never the missing index (which
    a34's "removed by the new release" lookup asked for, and said instead)."""
    repo = committed_repo(tmp_path / "plain")

    async def scenario(c):
        return [await c.call_tool(tool, args) for tool, args in (
            ("read", {"doc": "knowledge/notes/never.md"}),
            ("evaluate_table", {"doc": "knowledge/notes/never.md", "inputs": {"温度": 18}}))]

    for res in session(repo, scenario=scenario):
        text = error_text(res)
        assert "no such document in the repository: knowledge/notes/never.md" in text, text
        assert "no index" not in text, text


def test_a_report_filed_after_the_branch_moved_names_the_release_its_citations_are_of(tmp_path):
    """The device synced the build of commit 1; the knowledge branch moved since (commit 2
    shifted the cited lines). An agent's report citing lines of release 1 was filed on
    commit 2 with nothing saying so, and the reviewer read its citations against the
    other lines. The draft is filed as before (unverified, on its own branch, the checkout
    untouched), and its commit message and the answer's `read_from` name the release read;
    a report filed where the served release is HEAD's says nothing of the kind."""
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config

    repo = committed_repo(tmp_path / "repo")
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    first = git(repo, "rev-parse", "HEAD").strip()
    call = {"category": "field-report", "title": "霜霉病复查", "location": "三号温室",
            "author": "张工", "body": f"# 复查\n\n按 {RISK_DOC}:18-24 § 霜霉病风险判定 > 2. 风险等级表 "
                                      "判定为高风险。\n"}

    same = session(repo, "--index", "dist", "--allow-write", scenario=filing(call))
    assert "read_from" not in same and "moved" not in same["next"], same
    (repo / RISK_DOC).write_text(RISK.replace("## 2.", "## 1.5 补充\n\n新增。\n\n## 2."),
                                 encoding="utf-8")
    git(repo, "commit", "-q", "-am", "moved: a section added before the table")
    second = git(repo, "rev-parse", "HEAD").strip()
    status = git(repo, "status", "--porcelain")
    moved = session(repo, "--index", "dist", "--allow-write",
                    scenario=filing({**call, "title": "霜霉病复查二"}))
    assert moved["verified"] is False and moved["read_from"] == {"tag": None,
                                                                "source_commit": first}
    assert "the branch moved since" in moved["next"]
    message = git(repo, "log", "-1", "--format=%B", moved["branch"])
    assert (f"Its citations were read from the build of commit {first[:12]}, not from its "
            f"base {second[:12]}") in message, message
    assert git(repo, "rev-parse", f"{moved['branch']}^").strip() == second
    assert git(repo, "status", "--porcelain") == status


def filing(call: dict):
    """A session's scenario: file the draft `call` asks for, return the answer."""
    async def scenario(c):
        return data(await c.call_tool("draft_report", call))
    return scenario


def test_a_report_read_from_a_build_of_uncommitted_files_says_so(tmp_path):
    """The server read a `kb build` of a work tree with edits (`dirty`) at HEAD: the report's
    citations name lines of the edited files, and it was filed on HEAD with nothing saying
    so (the commits were the same), so the reviewer read them against other lines. Its
    commit message and the answer's `read_from` now say the release was built from
    uncommitted files; the checkout stays as it was."""
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config

    repo = committed_repo(tmp_path / "repo")
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / RISK_DOC).write_text(RISK.replace("## 2.", "## 1.5 补充\n\n新增。\n\n## 2."),
                                 encoding="utf-8")
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    edited = (repo / RISK_DOC).read_bytes()
    got = session(repo, "--index", "dist", "--allow-write", scenario=filing(
        {"category": "field-report", "title": "霜霉病复查", "location": "三号温室",
         "author": "张工", "body": f"按 {RISK_DOC}:22-28 判定为高风险。\n"}))
    assert got["verified"] is False
    assert got["read_from"] == {"tag": None, "source_commit": head, "dirty": True}, got
    assert "built from uncommitted files" in got["next"], got
    message = git(repo, "log", "-1", "--format=%B", got["branch"])
    assert (f"Its citations were read from the build of commit {head[:12]} with uncommitted "
            f"changes: their lines may not be those of its base {head[:12]}") in message
    assert git(repo, "rev-parse", f"{got['branch']}^").strip() == head
    assert (repo / RISK_DOC).read_bytes() == edited and git(repo, "diff", "--cached") == ""
