"""Edits whose effect reaches other documents or files than the one saved, each followed by
an incremental build (and under `kb watch`) and compared with a full `--no-cache` build of
the same tree (`test_incremental_edits.assert_equal_to_full`): a document's title that
another's 《…》 reference resolves to, a renumbered section ("见 5.1 节" in another chapter),
a decision-table row added and one edited, a picture replaced under its name, aliases added,
and a commit undone (A → B → A) by `git revert` or by hand (session 41 probes, found right:
guards)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from tests.kbfixtures import copy_example
from tests.test_incremental import copied
from tests.test_incremental_edits import (
    OPTS,
    RUST,
    SCAB,
    _commit,
    _git,
    _replace,
    assert_edit_builds_as_full,
    assert_equal_to_full,
    base,  # noqa: F401  (the module's fixture)
)
from tests.test_watch import _hashed, _watched
from tests.test_watch_saves import _as_full_build, _quiet

CH05 = "knowledge/equipment/hx260-ch05-fault-codes.md"


def table_row(repo: Path) -> None:
    """A row added to the wheat-scab decision table and another row's advice edited."""
    _replace(repo, SCAB, "| <15 | * | * | 低 | 常规巡查，每 7 天调查一次 |\n",
             "| <15 | * | * | 低 | 常规巡查，每 7 天调查一次 |\n"
             "| <15 | ≥85 | >3 | 低 | 雨后补查一次 |\n")
    _replace(repo, SCAB, "| >20 | <85 | * | 中 | 见花即打，喷药一次 |\n",
             "| >20 | <85 | * | 中 | 见花即打，喷药一次，并记录 |\n")


def picture(repo: Path) -> None:
    """Another picture saved over the one rice-blast.md shows (same name, new bytes)."""
    shutil.copy(repo / "assets/images/corn-rust-leaf.png", repo / "assets/images/rice-blast-leaf.png")


def title(repo: Path) -> None:
    _replace(repo, RUST, "title: 玉米南方锈病识别与防治", "title: 玉米南方锈病的识别与防治")


def renumber(repo: Path) -> None:
    _replace(repo, CH05, "## 5.1 故障码表", "## 5.1 报警代码表")


def aliases(repo: Path) -> None:
    p = repo / SCAB
    t = p.read_text(encoding="utf-8")
    p.write_text(t.replace("title:", "aliases: [麦穗赤霉, 烂穗]\ntitle:", 1), encoding="utf-8")


def renumber_far(repo: Path) -> None:
    """The section "见 5.1 节" (in chapter 6) names renumbered: the reference no longer resolves."""
    _replace(repo, CH05, "## 5.1 故障码表", "## 5.9 故障码表")


EDITS: dict[str, Callable[[Path], None]] = {
    "table-row": table_row, "picture": picture, "title": title, "renumber": renumber,
    "aliases": aliases, "renumber-far": renumber_far,
}


@pytest.mark.parametrize("commit", [False, True], ids=["uncommitted", "committed"])
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edit_reaching_other_documents_builds_as_a_full_build(base,  # noqa: F811
                                                                  tmp_path, edit, commit):
    assert_edit_builds_as_full(base, tmp_path, edit, EDITS[edit], commit)


@pytest.mark.parametrize("how", ["revert", "checkout"])
def test_a_commit_undone_builds_as_a_full_build(base,  # noqa: F811
                                                 tmp_path, how):
    repo, dist = copied(base, tmp_path)
    cfg = load_config(repo)
    kept = (repo / SCAB).read_bytes()
    table_row(repo)
    title(repo)
    _commit(repo, "B\n\nReviewed-by: zhang <zhang.wei@plant.example.com>")
    build(cfg, BuildOptions(out=dist, **OPTS))
    if how == "revert":
        _git(repo, "revert", "--no-edit", "HEAD")
    else:
        (repo / SCAB).write_bytes(kept)
        _git(repo, "checkout", "HEAD~1", "--", RUST)
        _commit(repo, "A again")
    build(cfg, BuildOptions(out=dist, **OPTS))
    assert_equal_to_full(repo, dist, tmp_path / "full")


@pytest.mark.parametrize("edit", ["title", "table-row", "picture"])
def test_a_watcher_sees_an_edit_reaching_other_documents(tmp_path, edit):
    repo = copy_example(tmp_path / "repo")
    _hashed(repo)
    with _watched(repo) as updates:
        EDITS[edit](repo)
        _quiet(updates, 2)
        assert updates[-1].error is None
        _as_full_build(repo, tmp_path)
