"""A knowledge base in a subfolder of a repository with other code (`repo/docs/kb/`): the
kb root is the folder holding kb.toml, found at or above the current directory or the path a
command is given, never the Git root (docs/review.md, "A knowledge base inside a bigger
repository")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.reviewkb import KB_TOML, RITA, doc_text, git

KB = "docs/kb"
DOC = "knowledge/crops/rust.md"


@pytest.fixture()
def mono(tmp_path: Path) -> Path:
    """A repository with code at its root and a knowledge base in docs/kb: one document
    written by Alice, and one verified by Alice herself (a review the gate must refuse)."""
    repo = tmp_path / "mono"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("print(1)\n")
    kb = repo / KB
    (kb / "knowledge" / "crops").mkdir(parents=True)
    (kb / "kb.toml").write_text(KB_TOML)
    (kb / DOC).write_text(doc_text())
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "start")
    (kb / "knowledge" / "crops" / "self.md").write_text(
        doc_text(verified=True, by="alice@ex.org", at="2026-02-03T09:00:00+00:00"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "self-verified", date="2026-02-03T09:00:00+00:00")
    return repo


def kb(monkeypatch: pytest.MonkeyPatch, cwd: Path, *args: str):
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(main, list(args))


def test_review_gate_from_the_repository_root_refuses_instead_of_passing(
        mono: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # from the kb root the gate finds the self-verified document
    inside = kb(monkeypatch, mono / KB, "review", "check", "--base", "HEAD~1")
    assert inside.exit_code == 1 and "knowledge/crops/self.md" in inside.stdout
    # from the Git root there is no kb.toml: one line, not "0 changed documents" and a pass
    for args in (["review", "check", "--base", "HEAD~1"], ["review", "pending"],
                 ["watch"], ["build"], ["check"]):
        out = kb(monkeypatch, mono, *args)
        assert out.exit_code == 2, (args, out.output)
        assert "no kb.toml here or in any folder above" in out.stderr
        assert "cd docs/kb" in out.stderr


def test_document_commands_find_the_kb_from_the_path_given(
        mono: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # named from the Git root, the document's kb.toml is read: its reviewers, its paths
    denied = kb(monkeypatch, mono, "review", "approve", f"{KB}/{DOC}", "--as", "mallory@ex.org")
    assert denied.exit_code == 1
    assert "reviewers: rita@ex.org, ray@ex.org" in denied.stderr
    diff = kb(monkeypatch, mono, "review", "diff", f"{KB}/{DOC}", "--json")
    assert diff.exit_code == 0, diff.output
    assert f'"doc": "{DOC}"' in diff.stdout
    hist = kb(monkeypatch, mono, "history", f"{KB}/{DOC}", "--json")
    assert hist.exit_code == 0 and f'"doc": "{DOC}"' in hist.stdout
    ok = kb(monkeypatch, mono, "review", "approve", f"{KB}/{DOC}", "--as", RITA.email)
    assert ok.exit_code == 0, ok.output
    assert ok.stdout.rstrip().endswith(f"verified by {RITA.email}: {DOC}")


def test_release_from_the_repository_root_keeps_the_kbs_release_settings(
        mono: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    art = tmp_path / "art.git"
    git(tmp_path, "init", "-q", "--bare", str(art))
    with open(mono / KB / "kb.toml", "a") as fh:
        fh.write('\n[embedding]\nmodel = "test-hash"\n'
                 'languages = { en = "test-hash", zh = "test-hash" }\n'
                 f'[release]\nremote = "{art.as_posix()}"\nbranch = "kb-docs"\n')
    git(mono, "commit", "-qam", "test-hash, release remote")
    built = kb(monkeypatch, mono / KB, "build", "-q")
    assert built.exit_code == 0, built.output
    # from the Git root, naming the kb's dist/: its [release] remote and branch count
    out = kb(monkeypatch, mono, "release", "--dist", f"{KB}/dist")
    assert out.exit_code == 0, out.output
    assert f"pushed to {art.as_posix()}" in out.stdout
    assert "refs/heads/kb-docs" in git(art, "for-each-ref")


def test_a_link_out_of_the_kb_folder_is_said_to_leave_the_knowledge_base(
        mono: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ../../../../src/app.py is inside the Git repository, outside what a release holds
    doc = mono / KB / DOC
    doc.write_text(doc_text("# Rust\n\nThe code: [app](../../../../src/app.py).\n"))
    out = kb(monkeypatch, mono, "check", f"{KB}/{DOC}")
    assert out.exit_code == 1
    assert (f"{DOC}:14:17: error: path-escapes-repo: '../../../../src/app.py' points outside "
            "the knowledge base (the folder holding kb.toml") in out.stdout


def test_check_from_the_git_root_names_files_from_there(tmp_path: Path, monkeypatch) -> None:
    """Run from above the knowledge base (the Git root, where pre-commit runs the hook of
    each knowledge base), `kb check` named findings and `--fix` changes from the knowledge
    base's folder (`knowledge/a.md`, the same for docs/a and docs/b): both name them from
    where it runs now. From the knowledge base's folder they are as they were."""
    assert CliRunner().invoke(main, ["init", str(tmp_path / "docs" / "b")]).exit_code == 0
    doc = tmp_path / "docs" / "b" / "knowledge" / "getting-started.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("category: engineering",
                                                           "category: 无此类"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "docs/b/knowledge"])
    assert result.stdout.startswith("docs/b/knowledge/getting-started.md:3:1: error: ")
    result = CliRunner().invoke(main, ["check", "--json", "docs/b/knowledge"])
    assert {f["path"] for f in json.loads(result.stdout)} == {
        "docs/b/knowledge/getting-started.md"}
    doc.write_text(doc.read_text(encoding="utf-8").replace("category: 无此类",
                                                           "category: engineering")
                   + "\n##小结\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--fix", "docs/b/knowledge"])
    assert "docs/b/knowledge/getting-started.md:" in result.stderr and "fixed: " in \
        result.stderr, result.output
    monkeypatch.chdir(tmp_path / "docs" / "b")
    doc.write_text(doc.read_text(encoding="utf-8").replace("## 小结", "##小结"),
                   encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--fix"])
    assert "\nknowledge/getting-started.md:" in "\n" + result.stderr, result.output
