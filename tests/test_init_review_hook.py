"""A knowledge base `kb init` makes records what a verification by hand approves: its
.pre-commit-config.yaml holds the commit-msg hook `kb-review-record` beside `kb-check`, and
`pre-commit install` installs it. One an earlier `kb init` wrote (kb-check alone) gets the hook
from `kb init` again, the project's own hooks and lines kept. Real git, real `pre-commit
install`, real commits (each hook running once: a hook without `stages:` runs at
`default_stages`, not again on the commit message)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from kbfixtures import authored_repo

from kbtools.cli import main
from kbtools.provenance import state_from_text
from kbtools.review.verification import content_digest, recorded_digests

BIN = Path(sys.executable).parent
EARLIER = Path(__file__).parent / "fixtures" / "earlier_hooks" / "current" / "root-19c85a3f.yaml"
DOC = "knowledge/getting-started.md"
MINE = ("  - repo: local\n    hooks:\n      # 项目自己的钩子\n      - id: mine\n"
        "        name: 项目自己的 hook\n        entry: \"true\"\n        language: system\n")
pytestmark = pytest.mark.skipif(not (BIN / "pre-commit").exists() or not shutil.which("git"),
                                reason="pre-commit or git not installed")


def _env(tmp_path: Path) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PRE_COMMIT")},
            "PRE_COMMIT_HOME": str(tmp_path / "pc"),
            "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}


def _verify_by_hand(root: Path, folder: str, env: dict[str, str]) -> tuple[str, str]:
    """The three verification lines typed into the document, committed with `git commit`:
    (the commit's message, what the commit printed)."""
    path = root / folder / DOC
    at = datetime.now(UTC).isoformat(timespec="seconds")
    path.write_text(path.read_text("utf-8").replace(
        "verified: false", f'verified: true\nverified_by: rita@ex.org\nverified_at: "{at}"'),
        "utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
    done = subprocess.run(["git", "commit", "-m", "核实 getting-started"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    message = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=root, env=env,
                             capture_output=True, text=True, check=True).stdout
    return message, done.stdout + done.stderr


@pytest.mark.parametrize("folder", ["", "docs/知识 库"], ids=["root", "subfolder"])
def test_a_new_knowledge_base_records_a_hand_verification(tmp_path: Path, folder: str) -> None:
    root = tmp_path / "repo"
    repo = authored_repo(root)
    assert CliRunner().invoke(main, ["init", str(root / folder)]).exit_code == 0
    if folder:  # the hooks go to the repository's root, as kb init says
        (root / folder / ".pre-commit-config.yaml").rename(root / ".pre-commit-config.yaml")
    repo.git.add(A=True)
    repo.git.commit("-qm", "kb init", "--no-verify")
    env = _env(tmp_path)
    installed = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=root,
                               env=env, capture_output=True, text=True, check=True).stdout
    assert "commit-msg" in installed and "pre-merge-commit" in installed
    message, said = _verify_by_hand(root, folder, env)
    text = (root / folder / DOC).read_text("utf-8")
    assert recorded_digests(message) == {content_digest(state_from_text(text, DOC))}
    # each hook once: kb-check is not run again on the commit message
    assert said.count("kb check (") == 1 and said.count("kb review record (") == 1, said


def test_kb_init_again_adds_the_review_hook_and_keeps_the_projects_own(tmp_path: Path
                                                                        ) -> None:
    """The configuration the previous `kb init` wrote (kb-check alone), with a hook of the
    project's below: `kb init` again adds kb-review-record after kb-check, commit-msg to the
    hook types and `default_stages` naming the types it installed before; the project's
    lines stay as written, and its hook (no `stages:`) still runs once per commit."""
    root = tmp_path / "repo"
    repo = authored_repo(root)
    assert CliRunner().invoke(main, ["init", str(root)]).exit_code == 0
    config = root / ".pre-commit-config.yaml"
    before = EARLIER.read_text("utf-8") + MINE
    config.write_text(before, "utf-8")
    repo.git.add(A=True)
    repo.git.commit("-qm", "an earlier kb init", "--no-verify")
    result = CliRunner().invoke(main, ["init", str(root)])
    assert result.exit_code == 0, result.output
    assert f"kb init: {config}: kb's kb-review-record hook added (a commit verifying a " \
           "document by hand records what it approves); commit-msg added to " \
           "default_install_hook_types; default_stages added (its hooks without stages: " \
           "run where they ran): run pre-commit install again to install it" \
           in result.stderr.splitlines()
    after = config.read_text("utf-8")
    kept = [line for line in before.splitlines()
            if not line.startswith("default_install_hook_types:")]
    lines = iter(after.splitlines())
    assert all(line in lines for line in kept)  # in order
    loaded = yaml.safe_load(after)
    assert [[h["id"] for h in r["hooks"]] for r in loaded["repos"]] == [
        ["kb-check", "kb-review-record"], ["mine"]]
    assert loaded["default_install_hook_types"] == ["pre-commit", "pre-merge-commit",
                                                    "commit-msg"]
    assert loaded["default_stages"] == ["pre-commit", "pre-merge-commit"]
    again = CliRunner().invoke(main, ["init", str(root)])  # nothing more to do
    assert again.exit_code == 0 and f"{config}:" not in again.stderr, again.output
    assert config.read_text("utf-8") == after
    repo.git.add(A=True)
    repo.git.commit("-qm", "kb init again", "--no-verify")
    env = _env(tmp_path)
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=root, env=env,
                   check=True, capture_output=True)
    message, said = _verify_by_hand(root, "", env)
    assert len(recorded_digests(message)) == 1
    assert said.count("项目自己的 hook") == 1 and said.count("kb check (") == 1, said


def test_a_monorepos_second_knowledge_base_records_a_hand_verification_too(
        tmp_path: Path) -> None:
    """`kb init docs/a` (its hooks moved to the root, as kb init says), then `kb init
    docs/b`: the root's hooks get a kb-review-record hook for docs/b beside docs/a's (whose
    `--kb` names docs/a only), and a verification by hand in either folder is recorded."""
    root = tmp_path / "repo"
    repo = authored_repo(root)
    assert CliRunner().invoke(main, ["init", str(root / "docs/a")]).exit_code == 0
    config = root / ".pre-commit-config.yaml"
    (root / "docs/a/.pre-commit-config.yaml").rename(config)
    before = config.read_text("utf-8")
    result = CliRunner().invoke(main, ["init", str(root / "docs/知识 b")])
    assert result.exit_code == 0, result.output
    assert f"kb init: {config}: kb's kb-review-record hook added (a commit verifying a " \
           "document by hand records what it approves in docs/知识 b): run pre-commit " \
           "install again to install it" in result.stderr.splitlines(), result.output
    after = config.read_text("utf-8")
    lines = iter(after.splitlines())
    assert all(line in lines for line in before.splitlines())  # kept, in order
    hooks = yaml.safe_load(after)["repos"][0]["hooks"]
    assert [(h["id"], h.get("args")) for h in hooks] == [
        ("kb-check", ["docs/a/knowledge"]), ("kb-check", ["docs/知识 b/knowledge"]),
        ("kb-review-record", ["--kb", "docs/a"]), ("kb-review-record", ["--kb", "docs/知识 b"])]
    again = CliRunner().invoke(main, ["init", str(root / "docs/知识 b")])
    assert again.exit_code == 0 and f"{config}:" not in again.stderr, again.output
    assert config.read_text("utf-8") == after
    repo.git.add(A=True)
    repo.git.commit("-qm", "kb init docs/a docs/b", "--no-verify")
    env = _env(tmp_path)
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=root, env=env,
                   check=True, capture_output=True)
    for folder in ("docs/知识 b", "docs/a"):
        message, said = _verify_by_hand(root, folder, env)
        text = (root / folder / DOC).read_text("utf-8")
        assert recorded_digests(message) == {content_digest(state_from_text(text, DOC))}, said


def test_kb_init_of_a_second_folder_gives_the_first_its_review_hook_too(
        tmp_path: Path) -> None:
    """docs/a initialised before kb-review-record existed (its kb-check hook at the root, no
    review hook), then `kb init docs/b`: both knowledge bases get their own hook, docs/a's
    said in a line of its own, and a verification by hand in docs/a is recorded."""
    root = tmp_path / "repo"
    repo = authored_repo(root)
    assert CliRunner().invoke(main, ["init", str(root / "docs/a")]).exit_code == 0
    (root / "docs/a/.pre-commit-config.yaml").unlink()
    config = root / ".pre-commit-config.yaml"
    run = "        always_run: true\n"
    config.write_text(EARLIER.read_text("utf-8").replace(
        run, run + '        args: ["docs/a/knowledge"]\n'), "utf-8")
    result = CliRunner().invoke(main, ["init", str(root / "docs/知识 b")])
    assert result.exit_code == 0, result.output
    assert f"kb init: {config}: kb's kb-review-record hook added (a commit verifying a " \
           "document by hand records what it approves in docs/a): run pre-commit " \
           "install again to install it" in result.stderr.splitlines(), result.output
    hooks = yaml.safe_load(config.read_text("utf-8"))["repos"][0]["hooks"]
    assert [(h["id"], h.get("args")) for h in hooks] == [
        ("kb-check", ["docs/a/knowledge"]), ("kb-check", ["docs/知识 b/knowledge"]),
        ("kb-review-record", ["--kb", "docs/知识 b"]), ("kb-review-record", ["--kb", "docs/a"])]
    after = config.read_text("utf-8")
    again = CliRunner().invoke(main, ["init", str(root / "docs/a")])  # nothing more to do
    assert again.exit_code == 0 and f"{config}:" not in again.stderr, again.output
    assert config.read_text("utf-8") == after
    repo.git.add(A=True)
    repo.git.commit("-qm", "kb init docs/b", "--no-verify")
    env = _env(tmp_path)
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=root, env=env,
                   check=True, capture_output=True)
    message, said = _verify_by_hand(root, "docs/a", env)
    text = (root / "docs/a" / DOC).read_text("utf-8")
    assert recorded_digests(message) == {content_digest(state_from_text(text, DOC))}, said
