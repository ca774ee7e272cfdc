"""The same commit built by `kb build` in two clones that differ in everything a build
machine may differ in — the clone's path, TZ, LANG/LC_ALL, umask, PYTHONHASHSEED, the
files' modification times and the order their directory entries were made in, and a cold
KB_HOME each — writes data/ and the manifest byte for byte the same (real models)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from hostile import env

from kbtools.index.manifest import load_manifest
from tests.kbfixtures import copy_example
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


def _kb_build(repo: Path, home: Path, **overrides: str) -> None:
    environ = env(home)
    if overrides.pop("REVERSED", ""):
        (home / "site").mkdir(parents=True, exist_ok=True)
        (home / "site" / "sitecustomize.py").write_text(REVERSED_LISTINGS, encoding="utf-8")
        environ["PYTHONPATH"] = os.pathsep.join([str(home / "site"), environ["PYTHONPATH"]])
    environ.update(overrides)
    umask = int(environ.pop("UMASK", "022"), 8)
    proc = subprocess.run(
        [sys.executable, *KB], cwd=repo, env=environ, capture_output=True, timeout=600,
        preexec_fn=lambda: os.umask(umask))
    assert proc.returncode == 0, proc.stderr.decode()


def test_the_same_commit_builds_the_same_bytes_on_another_machine(tmp_path):
    first = copy_example(tmp_path / "a" / "repo", DOCS)
    second = tmp_path / "elsewhere" / "deeper" / "其他 clone"
    subprocess.run(["git", "clone", "-q", str(first), str(second)], check=True)
    shutil.copytree(first / "assets", second / "assets", dirs_exist_ok=True)
    _recreate_reversed(second)
    assert subprocess.run(["git", "status", "--porcelain"], cwd=second, capture_output=True,
                          text=True, check=True).stdout == ""
    _kb_build(first, tmp_path / "home-a", TZ="UTC", LANG="C.UTF-8", LC_ALL="C.UTF-8",
              PYTHONHASHSEED="0", UMASK="022")
    _kb_build(second, tmp_path / "home-b", TZ="Asia/Shanghai", LANG="zh_CN.UTF-8",
              LC_ALL="POSIX", PYTHONHASHSEED="4242", UMASK="077", REVERSED="1")
    a, b = first / "dist", second / "dist"
    assert load_manifest(a)["counts"]["documents"] == 7
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
    _kb_build(first, tmp_path / "home-a")
    _kb_build(linked / "knowledge" / "crops", tmp_path / "home-b", TZ="America/Los_Angeles")
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
