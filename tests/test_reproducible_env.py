"""The same commit built by `kb build` in clones that differ in everything a build machine
may differ in — the clone's path (long, spaces, Chinese), TZ (commits near midnight),
LANG/LC_ALL (the C locale too), umask, PYTHONHASHSEED, HOME (none, read-only), one CPU or
more, the files' modification times and the order their directory entries were made in,
the user's and the system's git settings, a cold KB_HOME each, the cache a killed build
left or none — writes data/ and the manifest byte for byte the same (real models). A
shallow clone cannot (the history the build reads is missing): it says so."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from hostile import can_drop_read_override, drop_read_override, env

from kbtools.index.manifest import load_manifest
from tests.kbfixtures import copy_example
from tests.test_build_staging import build_until
from tests.test_incremental import tree

KB = ["-m", "kbtools", "build", "-q"]
# documents with formulas, tables, an image, links between them, Chinese and English
DOCS = ["knowledge/crops/wheat-scab.md", "knowledge/crops/pesticide-dilution-and-phi.md",
        "knowledge/crops/pesticide-operator-safety.md",
        "knowledge/crops/field-survey-methods.md",
        "knowledge/equipment/hx260-ch05-fault-codes.md",
        "knowledge/engineering/adr-0001-sqlite-on-devices.md",
        "knowledge/field_reports/2026-03-machine3-e17.md",
        "knowledge/_dict.txt", "knowledge/_synonyms.txt"]


def _recreate_reversed(work: Path) -> None:
    """Make every file and folder under `work` (not .git) again, in reverse name order and
    with random modification times (the second build also lists folders reversed:
    `REVERSED_LISTINGS`)."""
    rng = random.Random(7)
    for folder in sorted((p for p in work.rglob("*") if p.is_dir() and ".git" not in p.parts
                          and p != work / ".git"), reverse=True):
        saved = folder.with_name(folder.name + ".old")
        folder.rename(saved)
        folder.mkdir()
        for item in sorted(saved.iterdir(), reverse=True):
            item.rename(folder / item.name)
        saved.rmdir()
    for path in work.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            stamp = rng.randint(10**8, 2 * 10**9)
            os.utime(path, (stamp, stamp))


# imported by the second build's Python (on its PYTHONPATH): every directory listing
# comes back in the reverse of the file system's order
REVERSED_LISTINGS = """
import json
import os

_listdir, _scandir = os.listdir, os.scandir


class _Reversed:
    # an os.scandir iterator over a list (os.walk calls next() on it)

    def __init__(self, entries):
        self._entries = iter(entries)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._entries)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def close(self):
        pass


def listdir(path="."):
    return list(reversed(_listdir(path)))


def scandir(path="."):
    with _scandir(path) as it:
        return _Reversed(list(reversed(list(it))))


os.listdir, os.scandir = listdir, scandir
"""


def _kb_build(repo: Path, home: Path, *args: str, **overrides: str) -> str:
    """`kb build -q` (`kb` with `args` when given) in `repo`, in `home` (KB_HOME), with the
    environment changed by `overrides`: a variable set to "" is left out; UMASK; REVERSED
    (see above); CORES="0" runs it on CPU 0 alone (`taskset -c 0`); OBEY_MODES="1" takes
    root's power to write anywhere (a read-only HOME is read-only to root too). Its
    stderr."""
    environ = env(home)
    if overrides.pop("REVERSED", ""):
        (home / "site").mkdir(parents=True, exist_ok=True)
        (home / "site" / "sitecustomize.py").write_text(REVERSED_LISTINGS, encoding="utf-8")
        environ["PYTHONPATH"] = os.pathsep.join([str(home / "site"), environ["PYTHONPATH"]])
    cores = {int(c) for c in overrides.pop("CORES", "").split(",") if c}
    obey_modes = overrides.pop("OBEY_MODES", "") and os.geteuid() == 0
    environ.update(overrides)
    environ = {k: v for k, v in environ.items() if v != ""}
    umask = int(environ.pop("UMASK", "022"), 8)

    def start() -> None:
        os.umask(umask)
        if cores:
            os.sched_setaffinity(0, cores)
        if obey_modes:
            drop_read_override()

    proc = subprocess.run(
        [sys.executable, *(["-m", "kbtools", *args] if args else KB)], cwd=repo, env=environ,
        capture_output=True, timeout=600, preexec_fn=start)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stderr.decode()


def test_the_same_commit_builds_the_same_bytes_on_another_machine(tmp_path):
    """Commits made near midnight (another day in UTC, Shanghai and Los Angeles) built in
    three clones and environments; the third: no HOME, the C locale (not UTF-8), one CPU,
    a path long, with spaces and Chinese."""
    first = copy_example(tmp_path / "a" / "repo", DOCS)
    _later_commits(first)
    second = tmp_path / "elsewhere" / "deeper" / "其他 clone"
    third = tmp_path / ("a rather long folder name " * 4).strip() / "知识库 的 检出" / "kb"
    for clone in (second, third):
        subprocess.run(["git", "clone", "-q", str(first), str(clone)], check=True)
        shutil.copytree(first / "assets", clone / "assets", dirs_exist_ok=True)
    _recreate_reversed(second)
    assert subprocess.run(["git", "status", "--porcelain"], cwd=second, capture_output=True,
                          text=True, check=True).stdout == ""
    _kb_build(first, tmp_path / "home-a", TZ="UTC", LANG="C.UTF-8", LC_ALL="C.UTF-8",
              PYTHONHASHSEED="0", UMASK="022")
    _kb_build(second, tmp_path / "home-b", TZ="Asia/Shanghai", LANG="zh_CN.UTF-8",
              LC_ALL="POSIX", PYTHONHASHSEED="4242", UMASK="077", REVERSED="1")
    _kb_build(third, tmp_path / "home-c", TZ="America/Los_Angeles", LANG="C", LC_ALL="C",
              HOME="", CORES="0")
    a = first / "dist"
    assert load_manifest(a)["counts"]["documents"] == 8
    for b in (second / "dist", third / "dist"):
        assert tree(a, "data").keys() == tree(b, "data").keys()
        assert tree(a, "data") == tree(b, "data")
        assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()


def test_a_linked_worktree_on_a_detached_head_built_from_a_subfolder(tmp_path):
    """The same commit checked out as a linked worktree (a `.git` file, not a folder) on a
    detached HEAD, on another branch in the main checkout, `kb build` run from inside
    knowledge/: the same data/ and manifest as the main checkout's build."""
    first = copy_example(tmp_path / "repo", DOCS)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=first, capture_output=True,
                          text=True, check=True).stdout.strip()
    linked = tmp_path / "linked work tree"
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(linked), head], cwd=first,
                   check=True)
    subprocess.run(["git", "checkout", "-q", "-b", "另一个分支"], cwd=first, check=True)
    read_only = tmp_path / "read-only home"
    read_only.mkdir()
    read_only.chmod(0o555)
    _kb_build(first, tmp_path / "home-a")
    _kb_build(linked / "knowledge" / "crops", tmp_path / "home-b", TZ="America/Los_Angeles",
              HOME=str(read_only), OBEY_MODES="1" if can_drop_read_override() else "")
    a, b = first / "dist", linked / "dist"
    assert tree(a, "data") == tree(b, "data")
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()


def test_a_crlf_checkout_of_the_word_lists_builds_the_same_bytes(tmp_path):
    """core.autocrlf=true (Windows-minded machines) puts CRLF into every text file of the
    work tree — the documents, `_dict.txt`, `_synonyms.txt`, kb.toml, the schemas — not
    into the commit: the release is the same."""
    first = copy_example(tmp_path / "repo", DOCS)
    other = tmp_path / "crlf"
    subprocess.run(["git", "clone", "-q", "-c", "core.autocrlf=true", str(first), str(other)],
                   check=True)
    for rel in ("knowledge/_dict.txt", "knowledge/_synonyms.txt", "kb.toml"):
        assert b"\r\n" in (other / rel).read_bytes(), rel
    _kb_build(first, tmp_path / "home-a")
    _kb_build(other, tmp_path / "home-b")
    a, b = first / "dist", other / "dist"
    assert tree(a, "data") == tree(b, "data")
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()


def _later_commits(repo: Path) -> None:
    """Two commits on top of `copy_example`'s: a Chinese edit of a verified document made
    near midnight in Los Angeles (the next day in UTC and in Shanghai), and an English
    document added on a branch and merged (a merge commit)."""
    def commit(*args: str, when: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                       env={**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})

    doc = repo / "knowledge/crops/wheat-scab.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\n## 夜间补充\n\n抽穗扬花期遇连阴雨，"
                   "赤霉病最易流行，应在雨前施药。\n", encoding="utf-8")
    commit("commit", "-qam", "补充：雨前施药", when="2026-03-14T23:50:00-08:00")
    commit("checkout", "-qb", "notes", when="2026-03-15T00:00:00-08:00")
    (repo / "knowledge/engineering/pump-notes.md").write_text(
        "---\ntitle: Pump notes\ncategory: engineering\nproject: demo\nsource: test\n"
        "author: alice@example.org\ntimestamp: \"2026-03-15T09:30:00+08:00\"\n"
        "verified: false\n---\n\n# Pump notes\n\nReplace the seal of pump P-3 every "
        "2000 operating hours; E17 means the seal leaks.\n", encoding="utf-8")
    commit("add", "-A", when="2026-03-15T00:00:00-08:00")
    commit("commit", "-qm", "pump notes", when="2026-03-15T00:05:00+08:00")
    commit("checkout", "-q", "-", when="2026-03-15T00:10:00+08:00")
    commit("merge", "-q", "--no-ff", "-m", "merge notes", "notes",
           when="2026-03-15T00:10:00+08:00")


# A build machine's own git settings (~/.gitconfig, /etc/gitconfig) that change what git
# prints: the root commit's files left out of `git log` (where copy_example's reviews are),
# signatures in log output, merges shown another way, another diff algorithm, renames
# followed, another encoding, colours, abbreviations, a relative date format
HOSTILE_GITCONFIG = """\
[log]
\tshowRoot = false
\tshowSignature = true
\tdiffMerges = first-parent
\tfollow = true
\tdate = relative
\tabbrevCommit = true
\tdecorate = full
\tmailmap = true
[diff]
\talgorithm = histogram
\tindentHeuristic = false
\trenames = copies
\tnoprefix = true
\trelative = true
[blame]
\tdate = short
\tshowEmail = true
\tblankBoundary = true
\tshowRoot = false
\tcoloring = highlightRecent
[core]
\tabbrev = 20
\tquotePath = true
[color]
\tui = always
[i18n]
\tlogOutputEncoding = gbk
[format]
\tpretty = fuller
"""


def test_the_build_machines_git_settings_do_not_change_the_release(tmp_path):
    """The same commit built where the user's and the system's git settings change what
    git commands print: the same data/ and manifest (the verified documents stay verified:
    their reviews are in the root commit)."""
    first = copy_example(tmp_path / "repo", DOCS)
    _later_commits(first)
    other = tmp_path / "其他 runner"
    subprocess.run(["git", "clone", "-q", str(first), str(other)], check=True)
    shutil.copytree(first / "assets", other / "assets", dirs_exist_ok=True)
    settings = tmp_path / "gitconfig"
    settings.write_text(HOSTILE_GITCONFIG, encoding="utf-8")
    _kb_build(first, tmp_path / "home-a")
    _kb_build(other, tmp_path / "home-b", GIT_CONFIG_GLOBAL=str(settings),
              GIT_CONFIG_SYSTEM=str(settings))
    a, b = first / "dist", other / "dist"
    verified = [c for c in _chunks(a) if c.get("verification", {}).get("verified")]
    assert len(verified) > 50  # the reviewed import is served as verified
    assert tree(a, "data") == tree(b, "data")
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()


def _chunks(dist: Path) -> list[dict]:
    return [json.loads(line) for p in sorted((dist / "data" / "chunks").glob("*.jsonl"))
            for line in p.read_text(encoding="utf-8").splitlines()]


def test_a_shallow_clone_says_the_release_needs_the_history(tmp_path):
    """actions/checkout fetches one commit unless told otherwise (`--depth 1`): the history
    the build reads (who changed each passage last, the reviews) is missing, so its release
    cannot be a full clone's. `kb build` and `kb release` say so in one warning each and
    the manifest records it (source.shallow); fetched whole, the clone builds the full
    clone's bytes."""
    first = copy_example(tmp_path / "repo", DOCS)
    _later_commits(first)
    shallow = tmp_path / "ci checkout"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{first}", str(shallow)],
                   check=True, capture_output=True)
    shutil.copytree(first / "assets", shallow / "assets", dirs_exist_ok=True)
    full_said = _kb_build(first, tmp_path / "home-a", "build")
    said = _kb_build(shallow, tmp_path / "home-b", "build")
    a, b = first / "dist", shallow / "dist"
    assert "shallow" not in full_said and "shallow" not in load_manifest(a)["source"]
    assert load_manifest(b)["source"]["shallow"] is True
    [warning] = [line for line in said.splitlines() if line.startswith("warning:")]
    assert "shallow clone" in warning and "git fetch --unshallow" in warning
    assert "fetch-depth: 0" in warning
    released = _kb_build(shallow, tmp_path / "home-b", "release")
    assert [line for line in released.splitlines() if line.startswith("warning:")] == [warning]

    subprocess.run(["git", "fetch", "-q", "--unshallow"], cwd=shallow, check=True)
    assert "warning:" not in _kb_build(shallow, tmp_path / "home-b", "build")
    assert tree(a, "data") == tree(b, "data")
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()


def test_a_cache_left_by_a_killed_build_and_no_cache_give_a_cold_builds_bytes(tmp_path):
    """Cache states a runner may start from: what a build killed mid-embed (kill -9: a CI
    job cancelled, the OOM killer) left in .kb-cache and in its staging folder, and no cache
    at all (`--no-cache`): the same data/ and manifest as a cold build in another clone."""
    first = copy_example(tmp_path / "repo", DOCS)
    _later_commits(first)
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(first), str(other)], check=True)
    shutil.copytree(first / "assets", other / "assets", dirs_exist_ok=True)
    _kb_build(other, tmp_path / "home-b")
    killed = build_until(first, tmp_path / "home-a", b"blame")  # embedding next
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=60)
    killed.stderr.close()  # type: ignore[union-attr]
    assert not (first / "dist").exists() and (first / ".kb-cache").is_dir()
    _kb_build(first, tmp_path / "home-a")
    a, b = first / "dist", other / "dist"
    assert tree(a, "data") == tree(b, "data")
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()
    shutil.rmtree(a)
    _kb_build(first, tmp_path / "home-a", "build", "-q", "--no-cache")
    assert tree(a, "data") == tree(b, "data")
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()
