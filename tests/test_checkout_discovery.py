"""A client who clones the artifacts repository and cds into it asks without `--index`:
`kb query`, `kb serve`, `kb mcp` and `kb status` find the git checkout of a release at or
above the current directory and treat it exactly as `--index <checkout>` (verified, derived,
refused in one line when it is not exactly a signed release). A knowledge repository's own
kb.toml (and its dist/) nearer to the current directory still wins, and `--index` or
$KB_INDEX always do. Real signed releases in a bare repository, cloned over file://."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from test_checkout import QUESTION, clean, clone, kb, published
from test_release_helpers import git

from kbtools.agents.mcp_server import Context, tool_search
from kbtools.serve.app import create_app

__all__ = ["published"]  # the module-scoped fixture of test_checkout, shared
BASE = "http://127.0.0.1"


def asked_here(*extra: str) -> dict:
    """`kb query` in the current directory, no --index: its JSON answer."""
    code, out, err = kb("query", QUESTION, "-k", "1", "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def refused_here() -> str:
    code, out, err = kb("query", QUESTION)
    assert code == 1 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture
def tree(published, tmp_path, monkeypatch) -> Path:
    """A client's clone of the artifacts repository (newest release kb-r2 checked out), in
    a folder whose name has a blank and Chinese; KB_INDEX unset, as a user's shell has it."""
    monkeypatch.delenv("KB_INDEX", raising=False)
    tree = tmp_path / "发布 clone"
    clone(f"file://{published['art']}", tree)
    return tree


@pytest.mark.parametrize("below", [".", "data", "data/chunks", ".git"])
def test_query_in_a_clone_or_a_folder_below_it_answers_from_the_tag_checked_out(
        tree, monkeypatch, below):
    monkeypatch.chdir(tree / below)
    first = asked_here()
    assert first["release"]["tag"] == "kb-r2" and "3000" in json.dumps(first, ensure_ascii=False)
    git(tree, "checkout", "-q", "kb-r1")
    older = asked_here()
    assert older["release"]["tag"] == "kb-r1" and "2000" in json.dumps(older, ensure_ascii=False)
    code, out, err = kb("query", QUESTION, "-k", "1")  # the text form cites it too
    assert code == 0 and "[release kb-r1 @ " in out, err
    assert clean(tree)


def test_status_in_a_clone_describes_the_checkout(tree, monkeypatch):
    monkeypatch.chdir(tree / "data")
    code, out, err = kb("status", "--json")
    assert code == 0, err
    st = json.loads(out)
    assert (st["checkout"], st["tag"], st["problem"]) == (str(tree), "kb-r2", None)
    asked_here()
    code, out, _ = kb("status")
    assert code == 0 and out.startswith(f"checkout {tree}: release kb-r2") \
        and "index derived" in out, out
    monkeypatch.setenv("LC_MESSAGES", "zh_CN.UTF-8")  # a Chinese reader (ship.status_words)
    code, out, _ = kb("status")
    assert code == 0 and out.startswith(f"检出 {tree}：发布版本 kb-r2（源提交 ") \
        and "）；索引已生成" in out and "release" not in out, out
    zh = kb("status", "--json")[1]
    monkeypatch.setenv("LC_MESSAGES", "en_US.UTF-8")
    assert zh == kb("status", "--json")[1]  # --json stays English


def test_serve_and_mcp_in_a_clone_answer_from_it(tree, monkeypatch):
    monkeypatch.chdir(tree)
    with TestClient(create_app(None), base_url=BASE) as c:  # `kb serve` without --index
        got = c.post("/api/search", json={"q": QUESTION, "k": 1}).json()
        assert got["release"]["tag"] == "kb-r2" and got["results"], got
        git(tree, "checkout", "-q", "kb-r1")  # followed, as with --index
        got = c.post("/api/search", json={"q": QUESTION, "k": 1}).json()
        assert got["release"]["tag"] == "kb-r1" and got["results"], got
    ctx = Context(index=None, root=Path.cwd())  # `kb mcp` without --index
    assert tool_search(ctx, QUESTION, k=1)["release"]["tag"] == "kb-r1"
    assert clean(tree)


def test_a_clone_found_from_the_current_directory_is_refused_as_with_index(tree, monkeypatch):
    monkeypatch.chdir(tree / "data")
    (tree / "data" / "docs.jsonl").write_text("{}\n", encoding="utf-8")
    says = refused_here()
    assert "data/docs.jsonl differs from the signed release kb-r2" in says, says
    code, _, err = kb("status")
    assert code == 1 and "data/docs.jsonl differs from the signed release kb-r2" in err, err
    git(tree, "checkout", "-q", "--", ".")
    git(tree, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q",
        "--allow-empty", "-m", "not a release")
    says = refused_here()
    assert "is not a signed release tag (kb-r<N>)" in says, says


def test_explicit_index_and_kb_index_win_over_the_clone_around(published, tree, tmp_path,
                                                                 monkeypatch):
    other = tmp_path / "other"
    clone(f"file://{published['art']}", other)
    git(other, "checkout", "-q", "kb-r1")
    monkeypatch.chdir(tree)
    assert asked_here()["release"]["tag"] == "kb-r2"
    assert asked_here("--index", str(other))["release"]["tag"] == "kb-r1"
    code, out, _ = kb("status", "--index", str(other))
    assert code == 0 and "release kb-r1" in out, out
    monkeypatch.setenv("KB_INDEX", str(other))
    assert asked_here()["release"]["tag"] == "kb-r1"
    code, out, _ = kb("status")
    assert code == 0 and "release kb-r1" in out, out


def test_a_knowledge_repo_nearer_than_a_clone_keeps_its_own_dist(published, tmp_path,
                                                                  monkeypatch):
    """A clone kept inside a knowledge repository's folder: in the clone the clone answers,
    anywhere else in the knowledge repository its dist/ does (a local build: no tag) — also
    when the knowledge repository's own top holds files a release has."""
    monkeypatch.delenv("KB_INDEX", raising=False)
    kr = tmp_path / "知识 kr"
    shutil.copytree(published["kr"], kr, symlinks=True)
    clone(f"file://{published['art']}", kr / "clients" / "c")
    for name in ("release.json", "manifest.json"):  # a top that looks like a checkout's
        (kr / name).write_text("{}\n", encoding="utf-8")
    monkeypatch.chdir(kr / "knowledge")
    assert asked_here()["release"]["tag"] is None
    monkeypatch.chdir(kr)
    assert asked_here()["release"]["tag"] is None
    code, out, _ = kb("status")
    assert out.startswith("device "), out
    monkeypatch.chdir(kr / "clients")
    assert asked_here()["release"]["tag"] is None
    monkeypatch.chdir(kr / "clients" / "c" / "data")
    assert asked_here()["release"]["tag"] == "kb-r2"


def test_a_folder_that_is_no_release_checkout_is_not_taken_for_one(tree, tmp_path,
                                                                   monkeypatch):
    """A git repository with a manifest.json of its own (a web app's) around the current
    directory: kb looks where it did (the device), and a clone that lost one of its release
    files is named with what to run, not silently passed over."""
    web = tmp_path / "web"
    (web / "src").mkdir(parents=True)
    git(web, "init", "-q")
    (web / "manifest.json").write_text('{"name": "app"}\n', encoding="utf-8")
    monkeypatch.chdir(web / "src")
    says = refused_here()
    assert "no index here" in says and "checkout" not in says, says
    code, out, _ = kb("status")
    assert out.startswith("device "), out
    (tree / "release.json").unlink()
    monkeypatch.chdir(tree / "data")
    says = refused_here()
    assert "no index here" in says and ".. is a git checkout of a release that lacks " \
        "release.json" in says and "pass --index .. to have it checked" in says, says


def test_trust_releases_and_log_in_a_clone_act_on_the_clone_not_the_home_device(
        published, tree, tmp_path, monkeypatch):
    """In a clone without --to, `kb trust add` pinned the key on <KB_HOME>/device (a device
    the user was not looking at) and `kb releases`/`kb log` listed that device: the clone
    around the current directory is the device they mean, as for `kb query` and `kb status`.
    A clone has no query log nor synced releases: those two say so, naming the clone."""
    home = tmp_path / "home"
    monkeypatch.setenv("KB_HOME", str(home))
    monkeypatch.chdir(tree / "data")
    code, out, err = kb("trust", "add", str(published["pub"]))
    assert code == 0 and out.startswith("pinned "), err
    assert len(list((tree / ".git" / "kb" / "trusted_keys").glob("*.pub"))) == 1
    assert not (home / "device").exists() and clean(tree)
    code, out, _ = kb("trust", "list", "--json")
    assert code == 0 and len(json.loads(out)) == 1
    for command in ("releases", "log"):
        code, out, err = kb(command)
        assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, err
        assert str(tree) in err and "git checkout of a release" in err, err
    assert not (home / "device").exists()
    monkeypatch.chdir(tmp_path)  # outside the clone: the home device, as before
    code, out, _ = kb("trust", "list")
    assert code == 0 and out.startswith("no pinned keys"), out


@pytest.mark.parametrize("command", ["query", "serve", "mcp", "status"])
def test_help_says_where_the_index_is_looked_for(command):
    code, out, _ = kb(command, "--help")
    assert code == 0
    flat = " ".join(out.split())
    assert "git checkout of a release at or above the current directory" in flat, flat
