"""Per-document check results kept between runs (`kbtools.check.results_cache`): a second
run re-checks only what changed and reports exactly what a run without the cache reports,
also when what a finding depends on changes without the document changing (a link target
appears, a schema changes), and a damaged entry is a miss."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from dataclasses import fields
from pathlib import Path

import pytest

from kbtools.check import engine
from kbtools.check.cache import from_json, to_json
from kbtools.check.engine import check_results, make_context
from kbtools.check.results_cache import FILE_NAME
from kbtools.config import load_config
from kbtools.markdown.frontend import Scan
from kbtools.markdown.frontend import scan as scan_body
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


def test_a_kept_result_carries_the_front_matter_as_loaded(repo, monkeypatch):
    """A build reads documents through the checks (`keep_sources`): an unchanged document's
    front matter comes from its entry, exactly as YAML loaded it (types too), and its YAML is
    not loaded again; one whose values JSON cannot keep exactly is loaded again."""
    from kbtools import corpus

    odd = repo / "knowledge" / "odd-values.md"
    odd.write_text("---\ntitle: 奇怪的值 Odd values\ncategory: general\nseen: 2024-03-01\n"
                   "at: 2024-03-01 08:30:00+08:00\ntags: !!set {a, b}\n---\n\n# 正文\n\n内容。\n",
                   encoding="utf-8")
    cfg = load_config(repo)

    def sources(cache: bool) -> dict[str, object]:
        ctx = make_context(cfg, lenient=True, cache=cache)
        ctx.keep_sources = True
        results, _ = check_results([cfg.path("knowledge")], ctx)
        return {r.rel: r.source[0] for r in results if r.source is not None}

    fresh = sources(cache=False)
    sources(cache=True)  # kept
    loads: list[str] = []
    real = corpus.load_yaml
    monkeypatch.setattr(corpus, "load_yaml", lambda text, line: loads.append(text) or
                        real(text, line))
    again = sources(cache=True)
    assert again == fresh  # SourceDoc: text, meta, body, lines, key lines, errors
    for rel, src in fresh.items():
        assert [type(v) for v in again[rel].meta.values()] == [type(v) for v in src.meta.values()]
    assert again["knowledge/odd-values.md"].meta["tags"] == {"a", "b"}
    assert len(loads) == 1 and "!!set" in loads[0]  # a set is not kept: loaded again


def test_a_watcher_reads_only_files_whose_status_changed(repo):
    """A watcher keeps each file's status (`CheckContext.statuses`): a file with the status
    it was read with is not read again, and the findings stay exactly those of a run without
    any cache while a link breaks and is fixed, a heading an anchor names is renamed, and a
    file is rewritten with the same size and its old modification time."""
    cfg = load_config(repo)
    knowledge = cfg.path("knowledge")
    docs = sorted(knowledge.rglob("*.md"))
    old = 1_600_000_000
    for p in docs:  # changed long ago: statuses that can be trusted
        os.utime(p, (old, old))
    kept: dict[str, tuple[str, engine.DocResult]] = {}
    statuses: dict[str, tuple[engine.FileStatus, str, str, str]] = {}

    def watched() -> tuple[list[str], set[str]]:
        """The findings of a watcher's run, and the documents it read."""
        ctx = make_context(cfg, lenient=False, cache=True)
        ctx.kept, ctx.statuses, ctx.keep_sources = kept, statuses, True
        before, held = dict(statuses), dict(kept)
        results, findings = check_results([knowledge], ctx)
        got = [f.format() for f in findings]
        assert got == run(repo, cache=False)[0]
        unread = set()  # the same status as when read, and the very result kept then
        for r in results:
            seen, now = before.get(str(r.path)), engine.file_status(r.path)
            if seen is not None and now is not None and seen[0] == now[0] \
                    and seen[3] == ctx.results.context:
                assert r is held[r.rel][1]
                unread.add(r.rel)
        return got, {r.rel for r in results} - unread

    _, read = watched()
    assert read == {p.relative_to(repo).as_posix() for p in docs}
    assert len(statuses) == len(docs)
    _, read = watched()
    assert read == set()
    linking = knowledge / "linking.md"
    text = linking.read_text(encoding="utf-8")
    linking.write_text(text.replace("(missing.md)", "(linking.md#nowhere)"), encoding="utf-8")
    found, read = watched()
    assert read == {"knowledge/linking.md"}
    assert any("no heading '#nowhere'" in f for f in found)
    os.utime(linking, (old, old))
    watched()  # read once more: its status is now one to keep
    target = knowledge / "anchored.md"  # a new file: the tree changed, every file is read
    target.write_text(LINKING.replace("# 链接测试", "# Nowhere"), encoding="utf-8")
    os.utime(target, (old, old))
    found, read = watched()
    assert len(read) == len(docs) + 1
    linking.write_text(text.replace("(missing.md)", "(anchored.md#nowhere)"), encoding="utf-8")
    os.utime(linking, (old, old))
    found, read = watched()
    assert read == {"knowledge/linking.md"}
    assert not any("#nowhere" in f for f in found)
    # the heading renamed: same size, same modification time; the change time tells
    size = target.stat().st_size
    target.write_text(LINKING.replace("# 链接测试", "# Nowhare"), encoding="utf-8")
    os.utime(target, (old, old))
    assert (target.stat().st_size, target.stat().st_mtime_ns) == (size, old * 10**9)
    found, read = watched()
    assert read == {"knowledge/anchored.md"}
    assert any("no heading '#nowhere' in knowledge/anchored.md" in f for f in found)


def test_a_front_matter_edit_keeps_the_body_s_findings(repo):
    """The kept scan of a body lost its unclosed code fence: after an edit of the front
    matter only (same body, a scan from the cache), `code-unclosed` was gone."""
    doc = repo / "knowledge" / "linking.md"
    doc.write_text(LINKING + "\n```bash\necho never closed\n", encoding="utf-8")
    first, _ = run(repo)
    assert any("code-unclosed" in f for f in first)
    doc.write_text(doc.read_text(encoding="utf-8").replace("category: general",
                                                           "category: generalx"),
                   encoding="utf-8")
    assert same_as_uncached(repo) == 1
    assert any("code-unclosed" in f for f in run(repo)[0])


def test_a_kept_scan_holds_every_field_of_the_scan():
    scan = scan_body("# T {#t}\n\n##x ![s](a b.png)\n\n## <img src=\"i.png\" alt=\"I\"> U\n\n<a id=\"x\"></a>\n\n[a](b.md) [[w]] ![](p.png)\n\n| a |\n|---|\n| 1 | 2 |\n\n"
                     "$$x$$ %%c\n\n<table><tr><td>h</td></tr></table>\n\n<!-- csv: t.csv -->\n"
                     "| c |\n|---|\n| 3 |\ntext\n\n| d | e |\n|---|\n\nA [^none] note.\n\n[^spare]: unused\n\n$$\n\n<!-- markdownlint-disable MD001 -->\n\n"
                     "<br>\n![m](m.png)\n\n> <!-- never closed\n\n```\ncode\n", 5)
    for f in fields(Scan):
        assert getattr(scan, f.name), f.name  # the body gives every field a value
    assert [t.text_rows for t in scan.tables] == [(), (27,)]  # `text` after a table
    assert from_json(json.loads(json.dumps(to_json(scan)))) == scan
