"""The artifacts branch as authors and operators write it (`kb release --branch`, kb.toml
``[release] branch``): a name git refuses, or one that would half-work, is refused in one
line before anything is written, at publish and at sync; a full-width or Chinese name works
end to end, and a device whose kb.toml names the branch otherwise is told the source's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_release_helpers import git, make_dist, make_knowledge_repo, sample_files

from kbtools.config import MAX_BRANCH_BYTES, branch_problem

ODD = {
    "kb index": "holds whitespace",
    "kb\u3000index": "holds whitespace",  # a full-width space
    "kb\u200bindex": "control or invisible character",  # a zero-width space
    "../kb-index": "is no git branch name",
    "kb..index": "is no git branch name",
    "kb-index.lock": "is no git branch name",
    "kb-index/": "is no git branch name",
    "-kb-index": "begins with '-'",
    "kb:index": "git refuses",
    "HEAD": "names a git ref",
    "refs/heads/kb-index": "names a git ref",
    "kb-r3": "is a release tag's name",
    "发布" * 70: f"is 420 bytes long (at most {MAX_BRANCH_BYTES})",
}


def kb(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbtools", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def one_error(run: subprocess.CompletedProcess[str], fragment: str) -> str:
    out = run.stdout + run.stderr
    errors = [line for line in out.splitlines() if line.startswith("kb: error: ")]
    assert run.returncode == 1 and len(errors) == 1 and fragment in errors[0], out
    assert "Traceback" not in out and "fatal:" not in out, out
    return errors[0]


def publisher(tmp: Path) -> tuple[Path, Path, Path]:
    kr = make_knowledge_repo(tmp / "kr")
    art = tmp / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    return kr, art, make_dist(tmp / "dist", sample_files(1), commit="src1")


def device_config(folder: Path, branch: str) -> Path:
    folder.mkdir(parents=True)
    # a TOML basic string is a JSON string: non-ASCII written as \\u escapes
    (folder / "kb.toml").write_text(f"[release]\nbranch = {json.dumps(branch)}\n")
    return folder


@pytest.mark.parametrize("name", list(ODD))
def test_an_odd_branch_name_is_refused_in_one_line_before_anything_is_written(
        name: str, tmp_path: Path):
    """These went to git as they were: `kb release --branch "kb index"` failed in git's
    words ("create refs/kb/heads/kb: invalid <newvalue>: index", the space split git's
    update-ref line), `kb sync` in git's ("git init failed: invalid initial branch name")
    after making the device directory, and "-kb-index", "HEAD" or "kb-r3" were published
    (a `git checkout kb-r3` of the clone then ambiguous)."""
    assert branch_problem(name) is not None and ODD[name] in str(branch_problem(name))
    kr, art, dist = publisher(tmp_path)
    one_error(kb("release", "--dist", dist, "--branch", name, "--remote", art, cwd=kr), ODD[name])
    assert git(kr, "for-each-ref", "refs/kb/") == "" and git(art, "for-each-ref") == ""
    # a device whose kb.toml names it: kb.toml's line, and no device directory made
    here = device_config(tmp_path / "dk", name)
    line = one_error(kb("sync", art, "--to", tmp_path / "dev", cwd=here), ODD[name])
    assert line.startswith("kb: error: kb.toml:2: release.branch: "), line
    assert not (tmp_path / "dev").exists()
    one_error(kb("bundle", "create", tmp_path / "x.bundle", cwd=here), ODD[name])


def test_a_full_width_branch_name_works_and_a_device_naming_it_otherwise_is_told_its_name(
        tmp_path: Path):
    """"kb／index" (a full-width slash) is a single-component branch git takes; a device
    whose kb.toml says "kb/index" used to be told only "no kb/index branch at the source
    (is it an artifacts repo?)": it is told the source's branches now."""
    name = "发布／现场"
    assert branch_problem(name) is None
    kr, art, dist = publisher(tmp_path)
    run = kb("release", "--dist", dist, "--branch", name, "--remote", art, cwd=kr)
    assert run.returncode == 0, run.stderr
    good = device_config(tmp_path / "good", name)
    run = kb("sync", art, "--to", tmp_path / "dev", cwd=good)
    assert run.returncode == 0 and "serving kb-r1" in run.stdout, run.stdout + run.stderr
    typo = device_config(tmp_path / "typo", "发布/现场")
    one_error(kb("sync", art, "--to", tmp_path / "dev2", cwd=typo),
              f"no 发布/现场 branch at the source (its branches: {name!r}; kb.toml [release] "
              "branch names the one to sync")
