"""`no index here` with no --index, run where the knowledge base is not: a monorepo's Git
root (kb.toml in docs/kb) named only the device directory under KB_HOME."""

from __future__ import annotations

from pathlib import Path

import git
import pytest
from click.testing import CliRunner

from kbtools.cli import main


@pytest.fixture
def monorepo(tmp_path: Path, monkeypatch) -> Path:
    kb = tmp_path / "docs" / "kb"
    (kb / "knowledge").mkdir(parents=True)
    (kb / "kb.toml").write_text("")
    (tmp_path / "src").mkdir()
    git.Repo.init(tmp_path)  # nothing committed: an untracked kb.toml counts too
    monkeypatch.delenv("KB_INDEX", raising=False)
    return tmp_path


def query_error(cwd: Path, monkeypatch) -> str:
    monkeypatch.chdir(cwd)
    res = CliRunner().invoke(main, ["query", "x"])
    assert res.exit_code == 1
    assert len(res.stderr.splitlines()) == 1 and "no index here" in res.stderr
    return res.stderr


def test_from_the_git_root_the_knowledge_base_is_named(monorepo, monkeypatch):
    said = query_error(monorepo, monkeypatch)
    assert said.endswith("; this Git repository's knowledge base docs/kb has no index yet: "
                         "run `kb build` in docs/kb\n")
    (monorepo / "docs" / "kb" / "dist").mkdir()
    (monorepo / "docs" / "kb" / "dist" / "manifest.json").write_text("{}")
    said = query_error(monorepo / "src", monkeypatch)
    assert said.endswith("; this Git repository's knowledge base ../docs/kb has one: pass "
                         "--index ../docs/kb/dist, or run kb in ../docs/kb\n")


def test_inside_an_unbuilt_knowledge_base_it_says_build(monorepo, monkeypatch):
    said = query_error(monorepo / "docs" / "kb" / "knowledge", monkeypatch)
    assert said.endswith("; the knowledge base in .. has no index in ../dist/ yet: run "
                         "`kb build` in ..\n")


def test_outside_git_nothing_is_added(tmp_path, monkeypatch):
    monkeypatch.delenv("KB_INDEX", raising=False)
    said = query_error(tmp_path, monkeypatch)
    assert said.endswith("or pass --index\n")
