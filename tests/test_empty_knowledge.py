"""A knowledge base of no document, end to end (issues 2, 14). Git keeps no empty folder: the
commit deleting the last document takes `knowledge/` with it, and a clone has none; kb
check and kb build said "knowledge folder not found" although a release of 0 chunks
publishes and answers "the index is empty". Such a knowledge base (and a new one whose
example was deleted before its first commit) checks clean saying what to do, builds,
releases and syncs a release of nothing, which kb query, MCP search and the app's page say
is empty. A kb.toml naming a folder that never existed is still an error on its line."""

from __future__ import annotations

import json
import subprocess

from device_fixtures import kb, make_device
from mcpfixtures import data, session
from servefixtures import app_client
from test_release_helpers import git

EMPTY_LINE = "no document in knowledge/ yet"


def test_a_repository_whose_last_document_was_deleted_releases_nothing_and_says_so(
        tmp_path, monkeypatch):
    d = make_device(tmp_path)
    monkeypatch.chdir(d.kr)
    # deleted from the work tree alone (a move, `rm -r`): not a knowledge base of no
    # document, whose build would replace the served release with nothing
    (d.kr / "knowledge").rename(tmp_path / "moved")
    for command in ("check", "build"):
        code, _, err = kb(command)
        assert code == 1 and "knowledge/ is not there, but Git's index holds 5 files " \
            "under it: restore it (`git checkout -- knowledge`), or delete them in a " \
            "commit (`git rm -r knowledge`)" in err, err
    (tmp_path / "moved").rename(d.kr / "knowledge")
    git(d.kr, "rm", "-rq", "knowledge")
    code, _, err = kb("check", "--staged")  # the pre-commit hook of the deleting commit
    assert code == 0 and "0 errors" in err, err
    git(d.kr, "commit", "-qm", "every document deleted")
    assert not (d.kr / "knowledge").exists()
    code, out, err = kb("check", "--json")
    assert (code, json.loads(out)) == (0, []) and EMPTY_LINE in err
    assert d.publish() == "kb-r2"
    code, out = d.sync()
    assert code == 0 and "serving kb-r2" in out, out
    code, out, _ = kb("query", "小麦赤霉病 防治", "--index", d.dev, "--json")
    got = json.loads(out)
    assert code == 0 and got["no_answer"] and got["results"] == []
    assert got["reason"] == "the index is empty" and got["release"]["tag"] == "kb-r2"

    async def scenario(c):
        return await c.call_tool("search", {"query": "sprayer calibration"})
    mcp = data(session(d.kr, "--index", str(d.dev), scenario=scenario))
    assert mcp["reason"] == "the index is empty" and mcp["results"] == []
    for client in app_client(d.dev):
        home = client.get("/").text
        asked = client.get("/", params={"q": "小麦赤霉病"}).text
        english = client.get("/", params={"q": "pump seal", "lang": "en"}).text
    # the page says the release holds nothing, before a question and after; it suggests
    # no other words (they cannot help)
    assert "这个发布版本没有任何文档" in home and "class=\"empty-release\"" in home
    assert "这个发布版本没有任何文档" in asked and "换个说法" not in asked
    assert "This release holds no document" in english and "Try other words" not in english


def test_a_new_knowledge_base_whose_example_was_deleted_builds_empty_in_a_clone(tmp_path,
                                                                                 monkeypatch):
    """kb init, its example deleted before the first commit: CI's clone has no knowledge/
    and no commit ever held one; kb.toml names the default folder, no misspelling."""
    new = tmp_path / "new"
    assert kb("init", new)[0] == 0
    for name in ("getting-started.md", "_synonyms.txt"):
        (new / "knowledge" / name).unlink()
    git(new, "add", "-A")
    git(new, "commit", "-qm", "a knowledge base, no document yet")
    clone = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", str(new), str(clone)], check=True)
    assert not (clone / "knowledge").exists()
    monkeypatch.chdir(clone)
    code, _, err = kb("check")
    assert code == 0 and EMPTY_LINE in err, err
    code, out, err = kb("build", "--json")
    assert code == 0, err
    assert json.loads(out)["chunks"] == 0 and (clone / "dist" / "manifest.json").is_file()


def test_a_misspelt_knowledge_folder_is_an_error_on_its_kb_toml_line(tmp_path, monkeypatch):
    """`paths.knowledge = "knowlege"`: no commit ever held it, an error naming kb.toml's
    line and the folder meant; a folder of its own name whose documents a commit deleted
    is a knowledge base of no document."""
    new = tmp_path / "kb"
    assert kb("init", new)[0] == 0
    toml = new / "kb.toml"
    text = toml.read_text(encoding="utf-8")
    line = text.splitlines().index('knowledge = "knowledge"   # Markdown documents') + 1
    toml.write_text(text.replace('knowledge = "knowledge"', 'knowledge = "knowlege"'),
                    encoding="utf-8")
    monkeypatch.chdir(new)
    for command in (["check"], ["check", "--json"], ["build"]):
        code, out, err = kb(*command)
        assert code == 1 and out == "", (command, out, err)
        assert err.startswith(f"kb: error: kb.toml:{line}: paths.knowledge: the knowledge "
                              "folder 'knowlege' does not exist and no commit ever held "
                              "it (did you mean 'knowledge'?)"), err
    (new / "knowledge").rename(new / "docs")
    toml.write_text(text.replace('knowledge = "knowledge"', 'knowledge = "docs"'),
                    encoding="utf-8")
    git(new, "add", "-A")
    git(new, "commit", "-qm", "documents in docs/")
    git(new, "rm", "-rq", "docs")
    git(new, "commit", "-qm", "every document deleted")
    code, _, err = kb("check")
    assert code == 0 and "no document in docs/ yet" in err, err
    assert kb("build")[0] == 0
    # a shallow clone (CI's default checkout) does not hold the commits that held docs/
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", new.as_uri(), str(shallow)],
                   check=True)
    monkeypatch.chdir(shallow)
    code, _, err = kb("check")
    assert code == 1 and "no commit ever held it (this clone is shallow: the commit " \
        "deleting its last document may be beyond it; `git fetch --unshallow`" in err, err


def test_a_monorepo_s_hook_passes_the_commit_deleting_the_last_document(tmp_path,
                                                                         monkeypatch):
    """kb init in docs/kb of a repository with code: its hook runs `kb check --staged
    docs/kb/knowledge` from the repository's root, and in the commit deleting the last
    document that folder is gone ("no such file or directory", exit 2: the commit was
    refused). A misspelt folder is still no such file."""
    top = tmp_path / "mono"
    top.mkdir()
    git(top, "init", "-q")
    (top / "main.py").write_text("print('hi')\n", encoding="utf-8")
    assert kb("init", top / "docs" / "kb")[0] == 0
    assert '"docs/kb/knowledge"' in (top / "docs" / "kb" / ".pre-commit-config.yaml"
                                     ).read_text(encoding="utf-8")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "code and a knowledge base")
    git(top, "rm", "-rq", "docs/kb/knowledge")
    monkeypatch.chdir(top)
    code, _, err = kb("check", "--staged", "docs/kb/knowledge")
    assert code == 0 and "0 errors" in err, err
    git(top, "commit", "-qm", "every document deleted")
    code, _, err = kb("check", "docs/kb/knowledge")
    assert code == 0 and "no document in docs/kb/knowledge/ yet" in err, err
    assert kb("check", "docs/kb/knowlege")[:1] == (2,)
