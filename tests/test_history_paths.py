"""`kb history` of documents no longer on disk, named as people type them: by an absolute
path, relative to the folder they stand in, by the name a rename left. Before: an absolute
path to a deleted document was refused as "//tmp/…/ is a Git repository of its own (a
submodule?)", a path relative to a subfolder found no commits, and the history of a name
a document was renamed from ended in "deleted". Real repositories, the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from reviewkb import REVIEWERS_TOML, doc_text, git

from kbtools.cli import main

GONE = "knowledge/作物/小麦锈病.md"  # deleted
OLD, NEW = "knowledge/pumps/seal.md", "knowledge/pumps/mech-seal.md"  # renamed


def kb_cli(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def put(root: Path, rel: str, text: str, message: str, who: str, date: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, who=who, date=date)


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """A document written, verified and deleted; another renamed; a third deleted for good
    after its own rename."""
    root = tmp_path / "kb"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    put(root, "kb.toml", REVIEWERS_TOML, "settings", "lead@ex.org", "2026-01-01T00:00:00Z")
    put(root, GONE, doc_text("# 锈病\n\n发现病斑即喷药。\n"), "添加锈病", "alice@ex.org",
        "2026-02-01T10:00:00+08:00")
    put(root, "knowledge/作物/稻瘟病.md", doc_text("# 稻瘟病\n\n抽穗前喷药。\n"), "添加稻瘟病",
        "alice@ex.org", "2026-02-01T11:00:00+08:00")  # 作物/ stays on disk
    put(root, OLD, doc_text("# Seal\n\nReplace the seal every 2000 h.\n", title="Seal"),
        "Add seal", "alice@ex.org", "2026-02-02T10:00:00+08:00")
    git(root, "rm", "-q", GONE)
    git(root, "commit", "-q", "-m", "删除锈病", who="mallory@ex.org", date="2026-02-03T10:00:00Z")
    git(root, "mv", OLD, NEW)
    git(root, "commit", "-q", "-m", "Rename seal", who="ray@ex.org", date="2026-02-04T10:00:00Z")
    return root


@pytest.mark.parametrize("where, typed", [
    (".", "{root}/" + GONE),  # absolute
    ("knowledge", "作物/小麦锈病.md"),  # relative to the folder one stands in
    ("knowledge/作物", "小麦锈病.md"),
    ("knowledge", GONE),  # relative to the root, typed from a subfolder
    (".", "./knowledge//作物/小麦锈病.md"),
])
def test_a_deleted_document_is_found_however_it_is_named(kb: Path, monkeypatch, where: str,
                                                         typed: str) -> None:
    code, out = kb_cli(kb / where, monkeypatch, "history", typed.format(root=kb), "--json")
    assert code == 0, out
    result = json.loads(out)
    assert result["doc"] == GONE
    assert [(c["message"], c["changes"]) for c in result["commits"]] == [
        ("删除锈病", ["deleted"]), ("添加锈病", ["created"])]


@pytest.mark.parametrize("typed", ["{outside}/x.md", "../x.md", "../../etc/passwd",
                                   "/etc/passwd", "knowledge/../../x.md"])
def test_a_path_outside_the_knowledge_base_is_refused_in_one_line(kb: Path, monkeypatch,
                                                                  typed: str) -> None:
    """Where the path's folder exists, kb looks for kb.toml there and finds none (a one-line
    refusal of its own); elsewhere the path is outside this knowledge base."""
    code, out = kb_cli(kb, monkeypatch, "history", typed.format(outside=kb.parent))
    assert code == 2 and out.count("\n") == 1, out
    assert "not inside the knowledge base" in out or "no kb.toml here" in out, out
    assert "Git repository of its own" not in out and "Traceback" not in out


def test_the_name_a_rename_left_says_where_the_document_went(kb: Path, monkeypatch) -> None:
    code, out = kb_cli(kb, monkeypatch, "history", OLD, "--json")
    assert code == 0, out
    commits = json.loads(out)["commits"]
    assert [(c["message"], c["changes"]) for c in commits] == [
        ("Rename seal", [f"renamed to {NEW}"]), ("Add seal", ["created"])]
    code, out = kb_cli(kb, monkeypatch, "history", OLD)
    assert code == 0 and f"renamed to {NEW}" in out and "deleted" not in out, out
    # the new name's history is unchanged: the rename is no content change
    code, out = kb_cli(kb, monkeypatch, "history", NEW, "--json")
    assert [c["changes"] for c in json.loads(out)["commits"]] == [
        ["no content change"], ["created"]]


def test_a_rename_in_a_monorepo_names_the_new_path_from_the_kb_root(tmp_path: Path,
                                                                    monkeypatch) -> None:
    """kb.toml in docs/kb: the new name is said as `kb history` takes it, without docs/kb/."""
    top = tmp_path / "mono"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    put(top, "docs/kb/kb.toml", REVIEWERS_TOML, "settings", "lead@ex.org", "2026-01-01T00:00:00Z")
    put(top, "docs/kb/" + OLD, doc_text(), "Add", "alice@ex.org", "2026-02-01T00:00:00Z")
    git(top, "mv", "docs/kb/" + OLD, "docs/kb/" + NEW)
    git(top, "commit", "-q", "-m", "Rename", who="ray@ex.org")
    git(top, "rm", "-q", "docs/kb/" + NEW)
    git(top, "commit", "-q", "-m", "Drop", who="ray@ex.org", date="2026-02-03T00:00:00Z")
    code, out = kb_cli(top / "docs/kb", monkeypatch, "history", OLD, "--json")
    assert code == 0, out
    assert json.loads(out)["commits"][0]["changes"] == [f"renamed to {NEW}"]
    code, out = kb_cli(top / "docs/kb", monkeypatch, "history", NEW, "--json")
    assert code == 0, out
    commits = json.loads(out)["commits"]
    assert commits[0]["changes"] == ["deleted"]  # a deletion stays one
    # each commit's name as `kb history` takes it there, not from the repository's top
    assert [c["path"] for c in commits] == [NEW, NEW, OLD]
    code, out = kb_cli(top / "docs/kb", monkeypatch, "history", NEW)
    assert f"(as {OLD})" in out and "docs/kb/" not in out, out


@pytest.mark.parametrize("command", [("history",), ("review", "diff"), ("review", "approve")])
@pytest.mark.parametrize("typed", ["", " "])
def test_an_empty_path_is_no_document(kb: Path, monkeypatch, command: tuple[str, ...],
                                      typed: str) -> None:
    """`kb review approve "$DOC"` with DOC unset: it was ": a directory, not a document"
    (the empty path is the current folder), or " : no such document"."""
    code, out = kb_cli(kb / "knowledge", monkeypatch, *command, typed)
    assert code == 2 and out == (f"kb: error: {typed!r}: an empty path, not a document; "
                                 "name one Markdown file\n"), out


@pytest.mark.parametrize("where, typed", [(".", "knowledge/秘密.md"), ("knowledge", "秘密.md")])
@pytest.mark.parametrize("command", [("history",), ("review", "diff"), ("review", "approve")])
def test_a_link_leading_out_is_named_a_link(kb: Path, monkeypatch, where: str, typed: str,
                                            command: tuple[str, ...]) -> None:
    """A document in knowledge/ that is a symlink leading out of the knowledge base is
    refused as that, in one line: it was "not inside the knowledge base;
    name a document below it" (named from the root) or "no commits touch this document
    (untracked or misspelt?)" (named from knowledge/), of a path the user had typed below
    it, so the link went unseen."""
    secret = kb.parent / "secret"
    secret.mkdir()
    (secret / "x.md").write_text(doc_text(), encoding="utf-8")
    (kb / "knowledge" / "秘密.md").symlink_to(secret / "x.md")
    code, out = kb_cli(kb / where, monkeypatch, *command, typed)
    assert code == 2 and out.count("\n") == 1, out
    assert out == (f"kb: error: {typed}: knowledge/秘密.md (a symbolic link to {secret}/x.md) "
                   f"leading outside the knowledge base {kb}; kb reads no document outside "
                   "it\n"), out
    assert (secret / "x.md").read_text(encoding="utf-8") == doc_text()


@pytest.mark.parametrize("where, typed", [(".", "knowledge/ext/x.md"), ("knowledge", "ext/x.md"),
                                          ("..", "kb/knowledge/ext/x.md")])
@pytest.mark.parametrize("command", [("history",), ("review", "diff"), ("review", "approve")])
def test_a_folder_linked_out_is_named_as_the_link(kb: Path, monkeypatch, where: str,
                                                  typed: str, command: tuple[str, ...]) -> None:
    """knowledge/ext a symbolic link to a folder outside the repository: kb.toml was looked
    for above the link's target, and the user read "no kb.toml here or in any folder
    above", though they stood in the knowledge base; the link is now named as leading
    out."""
    secret = kb.parent / "secret"
    secret.mkdir()
    (secret / "x.md").write_text(doc_text(), encoding="utf-8")
    (kb / "knowledge" / "ext").symlink_to(secret)
    code, out = kb_cli(kb / where, monkeypatch, *command, typed)
    assert code == 2 and out == (
        f"kb: error: {typed}: knowledge/ext (a symbolic link to {secret}) leading outside the "
        f"knowledge base {kb}; kb reads no document outside it\n"), out
    assert (secret / "x.md").read_text(encoding="utf-8") == doc_text()
