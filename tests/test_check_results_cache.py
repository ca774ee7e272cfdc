"""Per-document check results kept between runs (`kbtools.check.results_cache`): a second
run re-checks only what changed and reports exactly what a run without the cache reports,
also when what a finding depends on changes without the document changing (a link target
appears, a schema changes), and a damaged entry is a miss."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from kbtools.check import engine
from kbtools.check.engine import check_results, make_context
from kbtools.check.results_cache import FILE_NAME
from kbtools.config import load_config
from tests.kbfixtures import copy_example

LINKING = """---
title: 链接测试 Link test
category: general
---

# 链接测试

See [the missing page](missing.md) and [an anchor](missing.md#part) and ![img](pic.png).
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = copy_example(tmp_path / "repo")
    (root / "knowledge" / "linking.md").write_text(LINKING, encoding="utf-8")
    return root


def run(root: Path, *, cache: bool = True) -> tuple[list[str], int]:
    """The findings of a run (formatted) and how many documents it checked afresh."""
    cfg = load_config(root)
    ctx = make_context(cfg, lenient=False, cache=cache)
    results, findings = check_results([cfg.path("knowledge")], ctx)
    fresh = sum(1 for r in results if r.new_result is not None)
    return [f.format() for f in findings], fresh


def same_as_uncached(root: Path) -> int:
    got, fresh = run(root)
    want, _ = run(root, cache=False)
    assert got == want
    return fresh


def test_a_second_run_checks_only_the_edited_document(repo):
    first = same_as_uncached(repo)
    assert first > 10  # the example knowledge, every document checked and kept
    assert same_as_uncached(repo) == 0
    doc = repo / "knowledge" / "linking.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\nA new paragraph [x](nowhere.md).\n",
                   encoding="utf-8")
    assert same_as_uncached(repo) == 1


def test_a_new_link_target_or_schema_is_seen_without_an_edit(repo):
    before, _ = run(repo)
    assert any("missing.md" in f for f in before)
    assert same_as_uncached(repo) == 0
    (repo / "knowledge" / "missing.md").write_text(LINKING.replace("# 链接测试", "# Part"),
                                                   encoding="utf-8")
    assert same_as_uncached(repo) > 1  # a new file: every document is checked again
    after, _ = run(repo)
    assert not any("'missing.md' does not exist" in f for f in after)
    assert same_as_uncached(repo) == 0
    schema = next((repo / "schemas").rglob("*.json"))
    schema.write_text(schema.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert same_as_uncached(repo) > 1


def test_a_plugged_in_check_turns_the_cache_off(repo, monkeypatch):
    same_as_uncached(repo)
    monkeypatch.setattr(engine, "CONTENT_CHECKS", [*engine.CONTENT_CHECKS, lambda s, r, c: []])
    assert make_context(load_config(repo), cache=True).results is None


def test_a_damaged_entry_is_a_miss(repo):
    same_as_uncached(repo)
    con = sqlite3.connect(repo / ".kb-cache" / FILE_NAME)
    with con:
        con.execute("UPDATE results SET value = ?", ('{"f": [[1, 2]]}',))
    con.close()
    assert same_as_uncached(repo) > 10
    shutil.rmtree(repo / ".kb-cache")
    assert same_as_uncached(repo) > 10
