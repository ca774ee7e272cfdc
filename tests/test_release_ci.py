"""CI: workflow files are valid; scripts/ci_release.sh works against a bare artifacts repo."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from test_release_helpers import git

from kbtools.cli import main
from kbtools.ship.sync import sync

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_workflows_validate_against_schema():
    files = sorted((REPO / ".github" / "workflows").glob("*.yml"))
    assert {f.name for f in files} >= {"pr.yml", "release.yml"}
    proc = subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema",
                           "vendor.github-workflows", *map(str, files)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_release_workflow_runs_the_script_with_cache():
    wf = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    steps = wf["jobs"]["release"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/cache@") for u in uses)
    assert any(u.startswith("actions/upload-artifact@") for u in uses)
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "scripts/ci_release.sh" in runs
    pr = yaml.safe_load((REPO / ".github" / "workflows" / "pr.yml").read_text())
    pr_runs = "\n".join(s.get("run", "") for s in pr["jobs"]["check"]["steps"])
    assert "kb check" in pr_runs and "kb review check --base origin/main" in pr_runs


@pytest.mark.parametrize("workflow", [REPO / ".github" / "workflows" / "release.yml",
                                      REPO / "kbtools" / "data" / "init" / "workflows"
                                      / "kb-release.yml"], ids=["ours", "kb-init"])
def test_release_workflows_push_with_the_artifacts_credentials(workflow: Path):
    """actions/checkout leaves the job's GITHUB_TOKEN in .git/config as an Authorization
    header for every https://github.com/ URL (actions/checkout#162): it overrides the token
    in KB_ARTIFACTS_REMOTE's URL, and the push to the artifacts repository is refused."""
    wf = yaml.safe_load(workflow.read_text())
    assert wf["permissions"] == {"contents": "read"}
    for job in wf["jobs"].values():
        checkouts = [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]
        assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)
        runs = "\n".join(s.get("run", "") for s in job["steps"])
        assert "origin" not in runs  # nothing else in the job uses the checkout's credentials


def test_kb_init_release_workflow_checks_out_lfs_images():
    """A knowledge repository keeping its images with Git LFS would otherwise release the
    pointer files in their place."""
    wf = yaml.safe_load((REPO / "kbtools" / "data" / "init" / "workflows"
                         / "kb-release.yml").read_text())
    checkouts = [s for job in wf["jobs"].values() for s in job["steps"]
                 if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts and all(s["with"]["lfs"] is True for s in checkouts)


def test_kb_init_check_workflow_reads_only(tmp_path: Path):
    assert CliRunner().invoke(main, ["init", str(tmp_path / "kr")]).exit_code == 0
    wf = yaml.safe_load((tmp_path / "kr" / ".github" / "workflows" / "kb-check.yml").read_text())
    assert wf["permissions"] == {"contents": "read"}


@pytest.mark.slow
def test_ci_release_script_against_bare_repo(tmp_path: Path):
    kr = tmp_path / "kr"
    assert CliRunner().invoke(main, ["init", str(kr)]).exit_code == 0
    git(kr, "add", "-A")
    git(kr, "commit", "-q", "-m", "knowledge")
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    env = {**os.environ, "KB": str(BIN / "kb"), "KB_ARTIFACTS_REMOTE": str(art),
           "KB_RELEASE_OUT": str(tmp_path / "out")}

    def run() -> subprocess.CompletedProcess:
        proc = subprocess.run(["bash", str(REPO / "scripts" / "ci_release.sh")], cwd=kr,
                              env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return proc

    assert run().stdout.strip() == "kb-r1"
    assert git(art, "tag").split() == ["kb-r1"]
    with tarfile.open(tmp_path / "out" / "kb-r1.tar.gz") as tar:
        names = tar.getnames()
    assert "kb-r1/manifest.json" in names and "kb-r1/release.json" in names
    assert not any(n.startswith("kb-r1/index/") for n in names)
    # same commit again: nothing new
    assert run().stdout.strip() == "kb-r1"
    assert json.loads((tmp_path / "out" / "release.json").read_text())["new"] is False
    # an edit on a fresh runner (no .kb-cache): cache seeded from the previous release
    doc = next((kr / "knowledge").glob("*.md"))
    doc.write_text(doc.read_text() + "\nOne more paragraph for the second release.\n")
    git(kr, "commit", "-qam", "edit")
    subprocess.run(["rm", "-rf", str(kr / ".kb-cache")], check=True)
    proc = run()
    assert proc.stdout.strip() == "kb-r2"
    assert "seeding the embedding cache from the previous release" in proc.stderr
    assert git(art, "tag").split() == ["kb-r1", "kb-r2"]
    # the offline bundle the script wrote is accepted by a device
    assert sync(str(tmp_path / "out" / "kb-r2.bundle"), tmp_path / "dev").tag == "kb-r2"


@pytest.mark.parametrize("spec, expected", [
    ("", ["install", "kbtools[build]"]),
    ("https://example.org/kbtools-0.9-py3-none-any.whl",
     ["install", "https://example.org/kbtools-0.9-py3-none-any.whl", "kbtools[build]"]),
    ("git+https://example.org/kbtools.git@v0.9",
     ["install", "git+https://example.org/kbtools.git@v0.9", "kbtools[build]"]),
])
def test_kb_init_release_workflow_installs_the_build_extra_with_kbtools_spec(
        tmp_path: Path, spec: str, expected: list[str]):
    """Setting KBTOOLS_SPEC replaced 'kbtools[build]' entirely, so a wheel URL installed
    kbtools without the build extra; pip now gets the spec and kbtools[build] together."""
    wf = yaml.safe_load((REPO / "kbtools" / "data" / "init" / "workflows"
                         / "kb-release.yml").read_text())
    [step] = [s for s in wf["jobs"]["release"]["steps"]
              if "kbtools[build]" in s.get("run", "")]
    assert step["env"]["KBTOOLS_SPEC"] == "${{ vars.KBTOOLS_SPEC }}"
    install = [line for line in step["run"].splitlines()
               if line.startswith("pip install") and "kbtools" in line]
    log = tmp_path / "pip.args"
    script = (f'pip() {{ printf "%s\\n" "$@" >> "{log}"; }}\n' + "\n".join(install) + "\n")
    subprocess.run(["bash", "-euc", script], check=True,
                   env={"PATH": os.environ["PATH"], "KBTOOLS_SPEC": spec})
    assert log.read_text().splitlines() == expected


def run_job(workflow: Path, job: str, cwd: Path, secrets: dict[str, str], tmp: Path
            ) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """The `run:` steps of `job` in order, as a GitHub runner does (`bash -e`, each step's
    `env:` with `${{ secrets.X }}` from `secrets`, unset ones empty), until one fails; kb,
    pip and sudo are stubs that log their arguments. Returns the last step and the log."""
    stubs, log = tmp / "stubs", tmp / "calls.log"
    stubs.mkdir()
    for tool in ("kb", "pip", "sudo"):
        (stubs / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\n')
        (stubs / tool).chmod(0o755)
    (tmp / "runner").mkdir()
    base = {"PATH": f"{stubs}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp),
            "RUNNER_TEMP": str(tmp / "runner"), "GITHUB_WORKSPACE": str(cwd),
            "GITHUB_EVENT_NAME": "push", "GITHUB_REF": "refs/heads/main", "CI": "true"}
    wf = yaml.safe_load(workflow.read_text())
    proc = subprocess.CompletedProcess[str]([], 0, "", "")
    for step in wf["jobs"][job]["steps"]:
        if "run" not in step:
            continue
        env = dict(base)
        for name, value in (step.get("env") or {}).items():
            secret = re.fullmatch(r"\$\{\{ *(secrets|vars)\.(\w+) *\}\}", str(value))
            env[name] = secrets.get(secret.group(2), "") if secret else str(value)
        proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=cwd, env=env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            break
    return proc, log.read_text().splitlines() if log.exists() else []


def test_kb_init_release_workflow_stops_without_an_artifacts_repository(tmp_path: Path):
    """Without the KB_ARTIFACTS_REMOTE secret (a fork, a repository not set up yet) the job
    ran `kb release --remote ""`: a release kept on the runner and lost with it, and a green
    run. It now stops before installing anything, saying which secret is missing; a release
    without KB_SIGNING_KEY says it is not signed."""
    workflow = REPO / "kbtools" / "data" / "init" / "workflows" / "kb-release.yml"
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (tmp_path / "a").mkdir()
    proc, calls = run_job(workflow, "release", work, {}, tmp_path / "a")
    assert proc.returncode == 1 and calls == []
    assert proc.stdout.strip() == (
        "::error title=kb release::the KB_ARTIFACTS_REMOTE secret is not set: no artifacts "
        "repository to push the release to (set it to the repository's URL with push rights)")
    (tmp_path / "b").mkdir()
    proc, calls = run_job(workflow, "release", work, {"KB_ARTIFACTS_REMOTE": "/srv/art.git"},
                          tmp_path / "b")
    assert proc.returncode == 0, proc.stderr
    assert calls[-3:] == ["kb check", "kb build", "kb release --remote /srv/art.git"]
    assert proc.stdout.startswith("::warning title=kb release::not signed: the "
                                  "KB_SIGNING_KEY secret is not set")


def _cache_step(steps: list[dict]) -> dict:
    [step] = [s for s in steps if s.get("uses", "").startswith("actions/cache")]
    return step


@pytest.mark.parametrize("pr, release, job", [
    (REPO / ".github" / "workflows" / "pr.yml", REPO / ".github" / "workflows" / "release.yml",
     "release"),
    (REPO / "kbtools" / "data" / "init" / "workflows" / "kb-check.yml",
     REPO / "kbtools" / "data" / "init" / "workflows" / "kb-release.yml", "release"),
], ids=["ours", "kb-init"])
def test_pull_requests_build_the_index_without_releasing(pr: Path, release: Path, job: str):
    """Pull requests ran `kb check` only and the index was built on main: a decision table
    or a formula that fails the build was found after the merge. A pull request now builds
    the index as the release job does (its embedding cache restored, never saved), and
    releases, publishes and uploads nothing, with no secret."""
    wf = yaml.safe_load(pr.read_text())
    assert "pull_request" in wf[True]  # YAML 1.1 reads the key `on` as true
    build = wf["jobs"]["build"]
    assert build.get("if", "github.event_name == 'pull_request'") == \
        "github.event_name == 'pull_request'"
    runs = [s.get("run", "") for s in build["steps"]]
    assert any(re.search(r"(^|/)kb build\b", r, re.M) for r in runs)
    text = yaml.safe_dump(build)
    for word in ("kb release", "kb publish", "bundle", "secrets.", "upload-artifact"):
        assert word not in text
    assert all(s["with"]["persist-credentials"] is False for s in build["steps"]
               if s.get("uses", "").startswith("actions/checkout@"))
    restore = _cache_step(build["steps"])
    assert restore["uses"].startswith("actions/cache/restore@")  # a PR saves no cache
    saved = _cache_step(yaml.safe_load(release.read_text())["jobs"][job]["steps"])
    assert restore["with"]["path"] == saved["with"]["path"] == ".kb-cache"
    prefix = str(saved["with"]["restore-keys"]).strip()
    assert str(restore["with"]["restore-keys"]).strip() == prefix
    assert saved["with"]["key"].startswith(prefix) and restore["with"]["key"].startswith(prefix)


def test_kb_init_pull_request_build_runs_kb_build_only(tmp_path: Path):
    workflow = REPO / "kbtools" / "data" / "init" / "workflows" / "kb-check.yml"
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    proc, calls = run_job(workflow, "build", work, {}, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [c for c in calls if c.startswith("kb ")] == ["kb build"]


@pytest.mark.parametrize("sub", ["", "docs/知识 库"], ids=["root", "subfolder"])
def test_kb_init_workflows_fetch_the_history_kb_reads(tmp_path: Path, sub: str):
    """actions/checkout fetches one commit by default (`--depth 1`): blame and the reviews
    would be missing, and a release built there is not the full clone's (kb build warns:
    tests/test_reproducible_env.py). Every job of the workflows `kb init` writes that runs
    kb checks out the whole history, at the Git root or in a subfolder."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    target = tmp_path / sub
    assert CliRunner().invoke(main, ["init", str(target)]).exit_code == 0
    jobs = 0
    for name in ("kb-check", "kb-release"):
        wf = yaml.safe_load((target / ".github" / "workflows" / f"{name}.yml").read_text())
        for job in wf["jobs"].values():
            if not any(re.search(r"(^|\s)kb ", s.get("run", "")) for s in job["steps"]):
                continue
            jobs += 1
            [checkout] = [s for s in job["steps"]
                          if s.get("uses", "").startswith("actions/checkout@")]
            assert checkout["with"]["fetch-depth"] == 0, (name, checkout)
    assert jobs == 3
