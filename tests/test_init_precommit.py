"""`kb init` in a project that already runs pre-commit: its .pre-commit-config.yaml gets kb's
hooks added to its own (its text, comments and hooks kept); a file that cannot be extended
safely is refused as before, and `--force` replaces it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import git
import pytest
import yaml
from click.testing import CliRunner

from kbtools.cli import main

BIN = Path(sys.executable).parent
THEIRS = {
    "indented": """# the project's own hooks
repos:
  - repo: local
    hooks:
      - id: no-fixme
        name: no FIXME in Markdown
        entry: FIXME
        language: pygrep
        files: \\.md$

# kept where it was
""",
    "flush, then another key": """default_install_hook_types: [pre-commit]
repos:
- repo: local
  hooks:
  - id: no-fixme
    name: no FIXME in Markdown
    entry: FIXME
    language: pygrep
    files: \\.md$
ci:
  autofix_prs: false
""",
    "crlf, no repos yet": "# 预提交钩子\r\nfail_fast: false\r\n",
    "empty": "",
}


def kb(*args: str):
    return CliRunner().invoke(main, list(args))


def _project(tmp_path: Path, config: str) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".pre-commit-config.yaml").write_bytes(config.encode("utf-8"))
    git.Repo.init(project)
    return project


@pytest.mark.parametrize("name", THEIRS)
def test_init_adds_its_hooks_to_the_projects_own(tmp_path, name):
    theirs = THEIRS[name]
    project = _project(tmp_path, theirs)
    result = kb("init", "--json", str(project))
    assert result.exit_code == 0, result.output
    assert ".pre-commit-config.yaml" in json.loads(result.stdout)["files"]
    merged = (project / ".pre-commit-config.yaml").read_bytes().decode("utf-8")
    if "\r\n" in theirs:
        assert merged.count("\n") == merged.count("\r\n")
    lines = iter(merged.splitlines())
    assert all(line in lines for line in theirs.splitlines()  # theirs, in order, untouched
               if not line.startswith("default_install_hook_types:"))
    config, before = yaml.safe_load(merged), yaml.safe_load(theirs) or {}
    assert config["repos"][:-1] == before.get("repos", [])
    assert [h["id"] for h in config["repos"][-1]["hooks"]] == ["kb-check", "kb-review-record"]
    # commit-msg installed for kb-review-record; the project's hooks without stages: run
    # where they ran, not again on the commit message
    installed = before.get("default_install_hook_types", ["pre-commit", "pre-merge-commit"])
    assert config["default_install_hook_types"] == [*installed, "commit-msg"]
    assert config["default_stages"] == installed
    assert {k: v for k, v in config.items() if k not in (
        "repos", "default_install_hook_types", "default_stages")} == {
        k: v for k, v in before.items() if k not in ("repos", "default_install_hook_types")}
    again = kb("init", "--force", "--json", str(project))  # has kb's hooks: left alone
    assert again.exit_code == 0, again.output
    assert ".pre-commit-config.yaml" not in json.loads(again.stdout)["files"]
    assert (project / ".pre-commit-config.yaml").read_bytes().decode("utf-8") == merged


@pytest.mark.skipif(not (BIN / "pre-commit").exists(), reason="pre-commit not installed")
def test_the_merged_hooks_all_run(tmp_path):
    """pre-commit runs the project's hook and kb's from the merged file: a FIXME and a
    document with an unknown category both fail the commit's checks, each named."""
    project = _project(tmp_path, THEIRS["indented"])
    assert kb("init", str(project)).exit_code == 0
    good = (project / "knowledge" / "getting-started.md").read_text(encoding="utf-8")
    (project / "knowledge" / "broken.md").write_text(
        good.replace("category: engineering", "category: nonsense") + "\nFIXME\n",
        encoding="utf-8")
    git.Repo(project).git.add(all=True)
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    run = subprocess.run([str(BIN / "pre-commit"), "run", "--all-files"], cwd=project, env=env,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "knowledge/broken.md:" in run.stdout and "fm-unknown-category" in run.stdout
    assert "no FIXME in Markdown" in run.stdout and "FIXME" in run.stdout.split(
        "no FIXME in Markdown")[1]


@pytest.mark.parametrize("theirs", [
    "repos: [{repo: local, hooks: [{id: x, name: x, entry: x, language: fail}]}]\n",
    "repos:\n  - repo: local\n hooks: [\n",  # not YAML
    "- just a list\n",
])
def test_a_config_it_cannot_extend_is_refused_and_forced_over(tmp_path, theirs):
    project = _project(tmp_path, theirs)
    refused = kb("init", str(project))
    assert refused.exit_code == 1
    assert ".pre-commit-config.yaml: already exists; use --force to overwrite" in refused.output
    assert (project / ".pre-commit-config.yaml").read_text(encoding="utf-8") == theirs
    assert not (project / "kb.toml").exists()  # nothing written
    forced = kb("init", "--force", str(project))
    assert forced.exit_code == 0, forced.output
    config = yaml.safe_load((project / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in config["repos"][0]["hooks"]] == ["kb-check", "kb-review-record"]
