"""`kb init` in a repository an earlier `kb init` made brings kb's hooks to the current one.

Earlier hooks were `language: system` with `entry: kb check` (every commit from a Git app
whose PATH lacks kb's virtualenv failed with "Executable `kb` not found"), then a staged-files
hook beside a whole-folder one (each finding of a failing commit said twice). The
configurations in tests/fixtures/earlier_hooks/ are what `kb init` wrote at those commits
(`root-*` from the template of that commit, `subfolder-*` by running that commit's `kb init
"docs/知识 库"` inside a repository). Only kb's own hooks change: the project's other hooks,
comments, line ends and formatting are kept; a kb hook the project edited is kept unless
`--force`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest
import yaml
from click.testing import CliRunner
from kbfixtures import authored_repo

from kbtools.cli import main
from kbtools.hookconfig import add_review_hook, upgrade_hooks
from kbtools.scaffold import TEMPLATES, for_subfolder

FIXTURES = Path(__file__).parent / "fixtures" / "earlier_hooks"
EARLIER = sorted(p.name for p in FIXTURES.glob("*.yaml"))
SUB = "docs/知识 库"
TEMPLATE_HOOKS = TEMPLATES / "pre-commit-config.yaml"
BIN = Path(sys.executable).parent
GIT = shutil.which("git")
APP_PATH = os.pathsep.join(dict.fromkeys([str(Path(GIT).parent) if GIT else "/usr/bin",
                                          "/usr/bin", "/bin"]))


def kb(*args: str):
    return CliRunner().invoke(main, list(args))


def _repository(tmp_path: Path, earlier: str) -> tuple[Path, Path]:
    """(Git root, the folder `kb init` ran in) of a knowledge repository whose
    .pre-commit-config.yaml is the earlier `kb init`'s, committed; its kb.toml edited, as a
    project's is."""
    root = tmp_path / "repo"
    repo = authored_repo(root)
    target = root / SUB if earlier.startswith("subfolder") else root
    assert kb("init", str(target)).exit_code == 0
    shutil.copy(FIXTURES / earlier, target / ".pre-commit-config.yaml")
    toml = target / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n# 项目自己的设置\n", encoding="utf-8")
    repo.git.add(A=True)
    repo.git.commit("-qm", "an earlier kb init", "--no-verify")
    return root, target


REVIEW_ADDED = ("kb's kb-review-record hook added (a commit verifying a document by hand "
                "records what it approves)")


def _current(target: Path, root: Path) -> dict[str, object]:
    text = TEMPLATE_HOOKS.read_text(encoding="utf-8")
    if target != root:
        text = for_subfolder("pre-commit-config.yaml", text, target.relative_to(root).as_posix())
    return dict(yaml.safe_load(text))


@pytest.mark.parametrize("earlier", EARLIER)
def test_kb_init_again_brings_the_hooks_an_earlier_kb_init_wrote_to_the_current_one(
        tmp_path, earlier):
    root, target = _repository(tmp_path, earlier)
    config = target / ".pre-commit-config.yaml"
    before = config.read_text(encoding="utf-8")
    result = kb("init", str(target))
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines()
            if line.startswith(f"kb init: {config}: ")]
    ids = "kb-check" if "kb-check-links" not in before else "kb-check, kb-check-links"
    assert said == [f"kb init: {config}: kb's hooks ({ids}; " + (
        "a staged-files hook beside a whole-folder one" if "kb-entry" in before
        else "`kb check` from PATH") + ") are now one kb-check hook that finds kb without PATH "
        "and reports each finding once" + (
            "" if "default_install_hook_types" in before else
            "; default_install_hook_types added: run pre-commit install again to check "
            "merges too"), f"kb init: {config}: " + REVIEW_ADDED + (
            "" if "default_install_hook_types" not in before else
            "; commit-msg added to default_install_hook_types")
        + "; default_stages added (its hooks without stages: run where they ran): run "
        "pre-commit install again to install it"]
    after = config.read_text(encoding="utf-8")
    assert yaml.safe_load(after)["repos"] == _current(target, root)["repos"]
    header = before[:before.index("repos:")]  # the file's own comments, kept as written
    assert all(line in after.splitlines() for line in header.splitlines()
               if not line.startswith("default_install_hook_types:"))
    assert any(line.startswith("kb init: left as they are") and "kb.toml" in line
               for line in result.stderr.splitlines())  # the project's kb.toml
    assert (target / "kb.toml").read_text(encoding="utf-8").endswith("# 项目自己的设置\n")
    again = kb("init", str(target))  # the current hook: nothing more to do
    assert again.exit_code == 0 and f"{config}: " not in again.output, again.output
    assert config.read_text(encoding="utf-8") == after


THEIRS = """# 项目自己的钩子 (the project's own hooks)\r
repos:\r
- repo: local\r
  hooks:\r
  - id: no-fixme   # 行尾注释\r
    name: no FIXME\r
    entry: FIXME\r
    language: pygrep\r
\r
  # 我们自己的说明, between two hooks\r
  - id: kb-check\r
    name: kb check (front matter, paths, tables, formulas)\r
    entry: kb check\r
    language: system\r
    files: (?i)^knowledge/(.*\\.md|_synonyms\\.txt)$\r
  - id: my-kb-check\r
    name: our own kb call\r
    entry: kb check --lenient\r
    language: system\r
    pass_filenames: false\r
- repo: https://example.org/kbtools\r
  rev: v0.1.0\r
  hooks:\r
  - id: kb-check-all\r
\r
# 结尾的注释\r
"""


def test_only_kbs_own_hook_changes_the_projects_lines_and_line_ends_are_kept(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    git.Repo.init(project)
    (project / ".pre-commit-config.yaml").write_bytes(THEIRS.encode("utf-8"))
    result = kb("init", str(project))
    assert result.exit_code == 0, result.output
    after = (project / ".pre-commit-config.yaml").read_bytes().decode("utf-8")
    assert after.count("\n") == after.count("\r\n")
    lines = iter(after.splitlines())
    ours = THEIRS.splitlines()[10:15]
    assert all(line in lines for line in THEIRS.splitlines() if line not in ours)  # in order
    assert ours[2] not in after.splitlines() and ours[4] not in after.splitlines()
    before, config = yaml.safe_load(THEIRS), yaml.safe_load(after)
    [hook] = [h for h in config["repos"][0]["hooks"] if h["id"] == "kb-check"]
    assert [h["id"] for h in config["repos"][0]["hooks"]] == [
        "no-fixme", "kb-check", "kb-review-record", "my-kb-check"]
    assert hook == _current(project, project)["repos"][0]["hooks"][0]
    assert config["repos"][1] == before["repos"][1]  # kb as a hook repository: not ours
    assert config["default_install_hook_types"] == ["pre-commit", "pre-merge-commit",
                                                    "commit-msg"]
    assert config["default_stages"] == ["pre-commit", "pre-merge-commit"]


def test_a_kb_hook_the_project_edited_is_kept_unless_force(tmp_path):
    """`--lenient` added to kb's hook: not as kb init wrote it, so kept, in one line saying
    what --force does; `--force` replaces it (and, as always, the skeleton's files)."""
    root, target = _repository(tmp_path, "root-951bcd9a.yaml")
    config = target / ".pre-commit-config.yaml"
    edited = config.read_text(encoding="utf-8").replace(
        "        entry: kb check\n        language: system\n        files:",
        "        entry: kb check --lenient\n        language: system\n        files:", 1)
    config.write_text(edited, encoding="utf-8")
    kept = kb("init", str(target))
    assert kept.exit_code == 0, kept.output
    assert f"kb init: {config}: kept kb's hooks (kb-check, kb-check-links) as they are: " \
           "kb-check is not as kb init wrote it: copy the kb-check hook of a new kb init, or " \
           "run kb init --force, which also overwrites every file of the skeleton" \
           in kept.stderr.splitlines()
    assert config.read_text(encoding="utf-8") == edited
    forced = kb("init", "--force", str(target))
    assert forced.exit_code == 0, forced.output
    assert yaml.safe_load(config.read_text(encoding="utf-8"))["repos"] == _current(
        target, root)["repos"]


@pytest.mark.skipif(not (BIN / "pre-commit").exists() or GIT is None,
                    reason="pre-commit or git not installed")
@pytest.mark.skipif(shutil.which("kb", path=APP_PATH) is not None,
                    reason="a kb outside the virtualenv is on the system PATH")
def test_after_kb_init_a_commit_from_a_git_app_is_checked_each_finding_once(tmp_path):
    """The earlier hook, committed to from a Git app (PATH without the virtualenv): "Executable
    `kb` not found". After `kb init .`: the commit is checked, each finding said once."""
    root, target = _repository(tmp_path, "root-951bcd9a.yaml")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PRE_COMMIT")}
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pc")
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=root, check=True,
                   env={**env, "PATH": f"{BIN}{os.pathsep}{APP_PATH}"}, capture_output=True)
    app = {**env, "PATH": APP_PATH}
    doc = target / "knowledge" / "getting-started.md"
    good = doc.read_text(encoding="utf-8")
    doc.write_text(good.replace("category: engineering", "category: 无此类"), encoding="utf-8")

    def commit() -> tuple[int, str]:
        subprocess.run(["git", "add", "-A"], cwd=root, env=app, check=True)
        done = subprocess.run(["git", "commit", "-qm", "从应用提交"], cwd=root, env=app,
                              capture_output=True, text=True, timeout=300)
        return done.returncode, done.stdout + done.stderr

    code, said = commit()
    assert code == 1 and "Executable `kb` not found" in said, said
    assert kb("init", str(target)).exit_code == 0
    code, said = commit()
    assert code == 1 and "not found" not in said, said
    assert said.count("error: fm-unknown-category: unknown category '无此类'") == 1, said
    doc.write_text(good + "\n从应用补充的一段。\n", encoding="utf-8")
    code, said = commit()
    assert code == 0, said
    assert git.Repo(root).git.status("--porcelain") == ""


@pytest.mark.skipif(not (BIN / "pre-commit").exists() or GIT is None,
                    reason="pre-commit or git not installed")
@pytest.mark.skipif(shutil.which("kb", path=APP_PATH) is not None,
                    reason="a kb outside the virtualenv is on the system PATH")
def test_kb_init_of_a_subfolder_updates_the_hooks_moved_to_the_root(tmp_path):
    """`kb init docs/kb` writes its hooks and workflows into docs/kb for the author to move
    to the root. Once moved, `kb init docs/kb` again wrote a new inert copy of each into
    docs/kb (saying to move them again) and left the root's earlier hooks as they were. Now
    the root's files are the ones: its hooks brought up to date, nothing new in docs/kb,
    and a commit from inside the knowledge folder, from a Git app, is checked."""
    root, target = _repository(tmp_path, "subfolder-dd52411b.yaml")
    repo = git.Repo(root)
    repo.git.mv(str(target / ".pre-commit-config.yaml"), str(root / ".pre-commit-config.yaml"))
    repo.git.mv(str(target / ".github"), str(root / ".github"))
    repo.git.commit("-qm", "hooks and workflows at the root, as kb init says", "--no-verify")
    result = kb("init", str(target))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["../../.pre-commit-config.yaml"]
    assert "lies inside the Git repository" not in result.stderr
    assert f"kb init: {root / '.pre-commit-config.yaml'}: kb's hooks (kb-check, " \
           "kb-check-links; `kb check` from PATH) are now one kb-check hook" in result.stderr
    assert not (target / ".pre-commit-config.yaml").exists()
    assert not (target / ".github").exists()
    config = yaml.safe_load((root / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert config["repos"] == _current(target, root)["repos"]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PRE_COMMIT")}
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pc")
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=root, check=True,
                   env={**env, "PATH": f"{BIN}{os.pathsep}{APP_PATH}"}, capture_output=True)
    doc = target / "knowledge" / "getting-started.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("category: engineering",
                                                           "category: 无此类"),
                   encoding="utf-8")
    app = {**env, "PATH": APP_PATH}
    subprocess.run(["git", "add", "-A"], cwd=doc.parent, env=app, check=True)
    done = subprocess.run(["git", "commit", "-qm", "子目录里提交"], cwd=doc.parent, env=app,
                          capture_output=True, text=True, timeout=300)
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert said.count("knowledge/getting-started.md:3:1: error: fm-unknown-category") == 1


S35 = (FIXTURES / "root-cadc5486.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("theirs", [
    "repos: [{repo: local, hooks: [{id: kb-check, name: 'kb check (front matter, paths, "
    "tables, formulas)', entry: kb check, language: system, files: '^knowledge/.*\\.md$'}]}]\n",
    S35 + "  - repo: local\n    hooks:\n      - id: 项目的\n        name: 用 kb 的入口\n"
    "        entry: *kb-entry\n        language: system\n",
], ids=["flow-style", "kb-anchor-used-by-the-project"])
def test_hooks_it_cannot_rewrite_in_place_are_kept_with_one_line(tmp_path, theirs):
    project = tmp_path / "project"
    project.mkdir()
    git.Repo.init(project)
    (project / ".pre-commit-config.yaml").write_text(theirs, encoding="utf-8")
    result = kb("init", str(project))
    assert result.exit_code == 0, result.output
    assert [line for line in result.stderr.splitlines() if "could not" in line] == [
        f"kb init: {project / '.pre-commit-config.yaml'}: kept kb's hooks (" + (
            "kb-check" if "[{" in theirs else "kb-check, kb-check-links") + ") as they are: "
        "they could not be rewritten in place; copy the kb-check hook of a new kb init's "
        ".pre-commit-config.yaml"]
    assert (project / ".pre-commit-config.yaml").read_text(encoding="utf-8") == theirs


@pytest.mark.skipif(not (BIN / "pre-commit").exists() or GIT is None,
                    reason="pre-commit or git not installed")
def test_a_second_knowledge_base_of_a_monorepo_gets_a_hook_of_its_own(tmp_path):
    """`kb init docs/a`, its hooks moved to the root as kb init says, then `kb init docs/b`:
    the root's hooks were left as they were, saying nothing, and commits to docs/b were
    never checked. Now docs/b gets a kb-check hook of its own after docs/a's (docs/a's
    kept), `kb init` says so, again it changes nothing, and real commits in either folder
    are checked, each by its own knowledge base's kb.toml and schemas."""
    root = tmp_path / "mono"
    repo = authored_repo(root)
    assert kb("init", str(root / "docs/a")).exit_code == 0
    (root / ".github").mkdir()
    (root / "docs/a/.pre-commit-config.yaml").rename(root / ".pre-commit-config.yaml")
    (root / "docs/a/.github/workflows").rename(root / ".github/workflows")
    repo.git.add(A=True)
    repo.git.commit("-qm", "a", "--no-verify")
    before = (root / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    result = kb("init", str(root / "docs/b"))
    assert result.exit_code == 0, result.output
    assert (f"kb init: {root / '.pre-commit-config.yaml'}: kb's hooks now check "
            "docs/b/knowledge too (a kb-check hook of its own, after the one for "
            "docs/a/knowledge)") in result.stderr
    after = (root / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    kept = before[:before.index("      # a commit that verifies")]
    assert after.startswith(kept.rstrip("\n"))  # docs/a's hook and its comments kept
    loaded = yaml.safe_load(after)["repos"][0]["hooks"]
    hooks, reviews = loaded[:2], loaded[2:]
    assert [h.get("args") for h in hooks] == [["docs/a/knowledge"], ["docs/b/knowledge"]]
    assert all(h == {**_current(root / "docs/a", root)["repos"][0]["hooks"][0],
                     "args": h["args"]} for h in hooks)
    # each knowledge base's review hook (`--kb` its folder): tests/test_init_review_hook.py
    assert reviews == [_current(root / folder, root)["repos"][0]["hooks"][1]
                       for folder in ("docs/a", "docs/b")]
    for again in ("docs/b", "docs/a"):  # nothing more to do, nothing said
        result = kb("init", str(root / again))
        assert result.exit_code == 0 and "hook" not in result.stderr, result.output
        assert (root / ".pre-commit-config.yaml").read_text(encoding="utf-8") == after
    repo.git.add(A=True)
    repo.git.commit("-qm", "b", "--no-verify")
    env = {**{k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PRE_COMMIT")},
           "PRE_COMMIT_HOME": str(tmp_path / "pc"), "PATH": f"{BIN}{os.pathsep}{APP_PATH}"}
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=root, check=True,
                   env=env, capture_output=True)

    def commit(folder: str, category: str) -> tuple[int, str]:
        doc = root / folder / "knowledge" / "getting-started.md"
        text = doc.read_text(encoding="utf-8")
        doc.write_text(re.sub(r"category: \S+", f"category: {category}", text)
                       + f"\n{folder} 的补充。\n", encoding="utf-8")
        subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
        done = subprocess.run(["git", "commit", "-qm", f"{folder} 改"], cwd=root, env=env,
                              capture_output=True, text=True, timeout=300)
        return done.returncode, done.stdout + done.stderr

    for folder in ("docs/b", "docs/a"):
        code, said = commit(folder, "无此类")
        assert code == 1, said
        assert said.count(f"{folder}/knowledge/getting-started.md:3:1: error: "
                          "fm-unknown-category") == 1, said
        assert said.count("fm-unknown-category") == 1, said
        code, said = commit(folder, "engineering")
        assert code == 0, said
    result = kb("init", str(root / "docs/b"))
    for name in ("kb-check.yml", "kb-release.yml"):  # CI runs in docs/a only: said
        assert (f"kb init: {root / '.github/workflows' / name}: left as it is: its jobs run "
                "in another folder, not in docs/b; for CI to check and release docs/b too, "
                "copy them with `working-directory: docs/b`") in result.stderr
    assert "workflows" not in kb("init", str(root / "docs/a")).stderr.replace(
        "the workflows run on pushes", "")


def test_a_monorepos_earlier_hooks_become_one_hook_for_each_folder(tmp_path):
    """An earlier kb init's two hooks for docs/知识 库 beside the same pair, copied by hand, for
    docs/b: the upgrade made them all one hook for the first folder, so docs/b went
    unchecked. Each folder keeps a current hook of its own, in place."""
    root = tmp_path / "repo"
    authored_repo(root)
    for sub in (SUB, "docs/b"):
        assert kb("init", str(root / sub)).exit_code == 0
        (root / sub / ".pre-commit-config.yaml").unlink()
    first = (FIXTURES / "subfolder-dd52411b.yaml").read_text(encoding="utf-8")
    at = first.index("      - id: kb-check\n")
    pair = first[at:].replace("知识\\\\ 库", "b").replace("'docs/知识 库/knowledge'",
                                                         "docs/b/knowledge")
    (root / ".pre-commit-config.yaml").write_text(first + pair, encoding="utf-8")
    result = kb("init", str(root / "docs/b"))
    assert result.exit_code == 0, result.output
    assert "are now one kb-check hook for each of 2 knowledge folders" in result.stderr
    *hooks, review, other = yaml.safe_load((root / ".pre-commit-config.yaml").read_text(
        encoding="utf-8"))["repos"][0]["hooks"]
    # each folder records its own verifications by hand, docs/b's hook first (kb init's)
    assert [(h["id"], h["args"]) for h in (review, other)] == [
        ("kb-review-record", ["--kb", "docs/b"]), ("kb-review-record", ["--kb", SUB])]
    assert [h.get("args") for h in hooks] == [[f"{SUB}/knowledge"], ["docs/b/knowledge"]]
    assert all(h == {**_current(root / SUB, root)["repos"][0]["hooks"][0],
                     "args": h["args"]} for h in hooks)


def test_the_comment_lines_of_session_37s_hook_go_when_a_later_hook_replaces_it():
    """Session 37's configuration (`current/root-b30a6208.yaml`, what its kb init wrote) holds
    today's hook values under an older comment ("cached: ~1 s", measured since: ~0.9 s with a
    document, ~0.45 s for code alone). kb init refreshes that comment (the values stay as
    they are); when a later template changes the hook, those comment lines are kb's own
    (`earlier-hooks.yaml`) and go with it, rather than stay above the new hook saying what it
    no longer does."""
    s37 = (FIXTURES / "current" / "root-b30a6208.yaml").read_text(encoding="utf-8")
    template = TEMPLATE_HOOKS.read_text(encoding="utf-8")
    assert "cached: ~1 s" in s37 and "cached: ~1 s" not in template
    refreshed, said = upgrade_hooks(template, s37.encode("utf-8"))
    assert said is not None and refreshed is not None
    assert _with_review(template, refreshed) == _from_types(template)
    later = template.replace("name: kb check (the knowledge folder as the commit holds it)",
                             "name: kb check (a later hook)")
    upgraded, said = upgrade_hooks(later, s37.encode("utf-8"))
    assert said is not None and upgraded is not None
    assert _with_review(later, upgraded) == _from_types(later)


def _with_review(template: str, config: bytes) -> str:
    """`config` with the review hook `kb init` adds beside kb-check, from its hook types on
    (its header is the project's)."""
    added, said = add_review_hook(template.encode("utf-8"), config)
    assert said is not None and added is not None
    return _from_types(added.decode("utf-8"))


def _from_types(text: str) -> str:
    return text[text.index("default_install_hook_types:"):]


S37_PROJECT = ("      # 我们自己的说明: the hook below runs on every commit\n",
               "        # 项目的注释 (the project's own, inside kb's hook)\n")


def test_kb_init_again_refreshes_kbs_stale_comment_over_current_hooks_and_nothing_else(
        tmp_path):
    """kb init run again on session 37's configuration (hook values current, kb's comment
    above them saying "cached: ~1 s") puts today's comment in its place: the project's own
    comment lines (above kb's, inside kb's hook), its own option (`args:`), its other hooks
    and its CRLF line ends stay as they were, and a third kb init changes nothing."""
    s37 = (FIXTURES / "current" / "root-b30a6208.yaml").read_text(encoding="utf-8")
    theirs = (s37.replace("    hooks:\n", "    hooks:\n" + S37_PROJECT[0], 1)
              .replace("      - id: kb-check\n", "      - id: kb-check\n"
                       "        args: [knowledge]\n", 1)
              .replace("        # Git apps", S37_PROJECT[1] + "        # Git apps", 1)
              + "  - repo: local\n    hooks:\n      # 格式化 (ours)\n      - id: no-tabs\n"
              "        name: no tabs\n        entry: \"\\t\"\n        language: pygrep\n")
    root, target = _repository(tmp_path, "root-37ee2797.yaml")
    config = target / ".pre-commit-config.yaml"
    config.write_bytes(theirs.replace("\n", "\r\n").encode("utf-8"))
    result = kb("init", str(target))
    assert result.exit_code == 0, result.output
    assert [line for line in result.stderr.splitlines() if str(config) in line] == [
        f"kb init: {config}: the comment lines kb wrote about its hooks (kb-check) now say "
        "what the current hook does and costs (they were an earlier kb init's)",
        f"kb init: {config}: {REVIEW_ADDED}; commit-msg added to default_install_hook_types; "
        "default_stages added (its hooks without stages: run where they ran): run pre-commit "
        "install again to install it"]
    raw = config.read_bytes().decode("utf-8")
    assert raw.count("\n") == raw.count("\r\n")
    after = raw.replace("\r\n", "\n")
    loaded, expected = yaml.safe_load(after), yaml.safe_load(theirs)
    expected["repos"][0]["hooks"].append(_current(target, root)["repos"][0]["hooks"][1])
    expected.update(default_install_hook_types=["pre-commit", "pre-merge-commit", "commit-msg"],
                    default_stages=["pre-commit", "pre-merge-commit"])
    assert "cached: ~1 s" not in after and loaded == expected
    template = TEMPLATE_HOOKS.read_text(encoding="utf-8")
    lead = template[template.index("      # the knowledge folder"):template.index("      - id:")]
    assert S37_PROJECT[0] + lead + "      - id: kb-check\n        args: [knowledge]\n" in after
    assert S37_PROJECT[1] + "        # Git apps" in after
    assert after.endswith("      # 格式化 (ours)\n      - id: no-tabs\n        name: no tabs\n"
                          "        entry: \"\\t\"\n        language: pygrep\n")
    again = kb("init", str(target))
    assert again.exit_code == 0 and str(config) not in again.output, again.output
    assert config.read_bytes().decode("utf-8") == raw


def test_kbs_stale_comment_the_project_wrote_into_is_left_as_it_is():
    """A project's own line among kb's comment lines (not above them): replacing the kb lines
    below it would leave the ones above it beside a new copy of them; the comment is left as
    the project has it, and nothing said."""
    s37 = (FIXTURES / "current" / "root-b30a6208.yaml").read_text(encoding="utf-8")
    template = TEMPLATE_HOOKS.read_text(encoding="utf-8")
    second = "      # which pre-commit turns on)"
    assert second in s37
    theirs = s37.replace(second, "      # 注意: 我们的说明\n" + second, 1)
    assert upgrade_hooks(template, theirs.encode("utf-8")) == (None, None)
