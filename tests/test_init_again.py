"""`kb init` run again in a knowledge repository, and the commands its hooks and workflows
run: each must be a `kb` command with the options it is given."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import git
import pytest
import yaml
from click.testing import CliRunner

from kbtools.cli import main


def kb(*args: str):
    return CliRunner().invoke(main, list(args))


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` but .git/, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


@pytest.mark.parametrize("name", ["kb", "我的 知识库"])
def test_init_again_in_its_own_repository_writes_nothing_and_passes(tmp_path, monkeypatch,
                                                                     name):
    """`kb init` again refused its own untouched kb.toml ("already exists; use --force"),
    and `--force` rewrote every file, the author's edits to the example included. A file
    the author changed is left as it is, named in one line (session 36: it was refused, and
    with it the whole run, so a repository an earlier `kb init` made never got its hooks
    brought up to date)."""
    target = tmp_path / name
    assert kb("init", str(target)).exit_code == 0
    before = tree(target)
    again = kb("init", str(target))
    assert again.exit_code == 0, again.output
    assert again.stdout == "" and f"0 files written in {target}" in again.stderr
    assert tree(target) == before
    doc = target / "knowledge" / "getting-started.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\n作者的补充。\n", encoding="utf-8")
    edited = tree(target)
    kept = kb("init", str(target))
    assert kept.exit_code == 0, kept.output
    assert kept.stderr.splitlines()[0] == (
        "kb init: left as they are (not as kb init writes them; --force overwrites them): "
        "knowledge/getting-started.md")
    assert tree(target) == edited
    (target / "schemas" / "manifest.schema.json").unlink()  # one file lost: written back alone
    (doc.parent / "added.md").write_bytes(b"")
    back = kb("init", str(target))
    assert back.exit_code == 0 and back.stdout == "schemas/manifest.schema.json\n", back.output
    assert tree(target) == {**edited, "knowledge/added.md": b""}
    monkeypatch.chdir(target)
    assert kb("check").exit_code == 1  # the empty document added


def commands(root: Path) -> list[tuple[str, str]]:
    """(where, shell text) of every command the scaffold's workflows and hooks run."""
    found = []
    for wf in sorted((root / ".github" / "workflows").glob("*.yml")):
        data = yaml.safe_load(wf.read_text(encoding="utf-8"))
        for job in data["jobs"].values():
            found += [(f"{wf.name}:{job.get('name', '')}", step["run"])
                      for step in job["steps"] if "run" in step]
    hooks = yaml.safe_load((root / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    found += [(hook["id"], hook["entry"]) for repo in hooks["repos"] for hook in repo["hooks"]]
    return found


def resolve(words: list[str]) -> tuple[click.Command, list[str]]:
    """The kb command `words` (after `kb`) names, and the words left for it."""
    command: click.Command = main
    with click.Context(main) as ctx:
        while words and isinstance(command, click.Group):
            sub = command.get_command(ctx, words[0])
            assert sub is not None, f"kb has no command {words[0]!r}"
            command, words = sub, words[1:]
    return command, words


@pytest.mark.parametrize("sub", [None, "docs/知识 库"])
def test_every_kb_command_the_scaffold_runs_exists_with_its_options(tmp_path, sub):
    if sub:
        git.Repo.init(tmp_path)
    target = tmp_path / sub if sub else tmp_path / "kb"
    assert kb("init", str(target)).exit_code == 0
    ran = 0
    for where, script in commands(target):  # in a subfolder: written there, to be moved
        # `${{ … }}` expressions and array expansions are the runner's; options named in an
        # `args=(…)` array are given to the kb command of the same script
        script = re.sub(r"\$\{\{.*?\}\}", "X", script)
        options = re.findall(r"(?<![\w-])--[a-z][a-z-]*", " ".join(
            line for line in script.splitlines() if re.match(r"\s*args\+?=\(", line)))
        for line in script.splitlines():
            if not re.match(r"\s*kb\s", line + " "):
                continue
            words = shlex.split(line, comments=True)
            command, rest = resolve(words[1:])
            known = {opt for p in command.params for opt in p.opts}
            given = [w.split("=")[0] for w in [*rest, *options] if w.startswith("--")]
            assert set(given) <= known, (where, line, set(given) - known)
            ran += 1
    assert ran >= 6  # check (hooks, CI), review check, build (CI, release), release
