"""kb watch in a Git repository: its index is the one `kb build` makes of the same tree —
each chunk's provenance and `verified` included — while a save blames and judges the saved
document alone (`kbtools.build.history`)."""

from __future__ import annotations

import json
import queue
import shutil
import threading
from pathlib import Path

from kbtools.build.history import HistoryMemo
from kbtools.build.memo import BuildMemo
from kbtools.build.pipeline import BuildOptions, build
from kbtools.build.watch import rebuild, watch
from kbtools.config import load_config
from tests.kbfixtures import PAGE, copy_example
from tests.test_release_helpers import git

TEST_HASH = 'model = "test-hash"\nlanguages = { en = "test-hash" }'
SCAB = "knowledge/crops/wheat-scab.md"
ADR = "knowledge/engineering/adr-0001-sqlite-on-devices.md"
DOCS = [SCAB, "knowledge/crops/sprayer-calibration.md", "knowledge/crops/field-survey-methods.md",
        "knowledge/crops/pesticide-dilution-and-phi.md",
        "knowledge/crops/pesticide-operator-safety.md", ADR]


def _repo(tmp_path: Path) -> Path:
    repo = copy_example(tmp_path / "repo", DOCS)
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('model = "use"', TEST_HASH),
                    encoding="utf-8")
    git(repo, "commit", "-qam", "test-hash")
    return repo


def _tree(dist: Path) -> dict[str, bytes]:
    files = {p.relative_to(dist).as_posix(): p.read_bytes()
             for p in sorted((dist / "data").rglob("*")) if p.is_file()}
    return {**files, "manifest.json": (dist / "manifest.json").read_bytes()}


def _full(repo: Path, out: Path) -> dict[str, bytes]:
    build(load_config(repo), BuildOptions(out=out, progress=False, use_cache=False))
    return _tree(out)


def _statuses(dist: Path, doc: str) -> list[str]:
    return [r["verification"]["status"] for r in
            map(json.loads, b"".join(p.read_bytes() for p in sorted(
                (dist / "data/chunks").glob("*.jsonl"))).splitlines())
            if r["doc"] == doc]


def _source(dist: Path) -> dict:
    return json.loads((dist / "manifest.json").read_text(encoding="utf-8"))["source"]


def append_text(path: Path, text: str) -> None:
    """`text` added to the end of the file at `path`."""
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def watching(repo: Path, out: Path) -> tuple[queue.Queue, threading.Event, threading.Thread]:
    """A watcher of `repo` building into `out` on a thread: its updates, its stop, the thread."""
    updates: queue.Queue = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(target=watch, args=(load_config(repo), out, updates.put, stop),
                              daemon=True)
    thread.start()
    return updates, stop, thread


def test_a_watchers_index_is_a_builds_verified_and_blame_included(tmp_path):
    repo = _repo(tmp_path)
    out = tmp_path / "watched"
    updates, stop, thread = watching(repo, out)
    try:
        first = updates.get(timeout=180)
        assert first.error is None
        assert set(_statuses(out, SCAB)) == {"verified"}  # reviewed: verified, as built
        assert _tree(out) == _full(repo, tmp_path / "full0")

        append_text(repo / SCAB, "\n扬花期前三天开始巡查。\n")  # after the review, uncommitted
        saved = updates.get(timeout=180)
        assert saved.error is None and saved.changed == (SCAB,)
        assert set(_statuses(out, SCAB)) == {"verified", "lapsed"}
        assert _tree(out) == _full(repo, tmp_path / "full1")
        assert '"uncommitted"' in (out / "data/docs.jsonl").read_text(encoding="utf-8")

        git(repo, "commit", "-qam", "an edit after the review")  # no save: HEAD's reflog
        committed = updates.get(timeout=180)
        assert committed.error is None
        assert _tree(out) == _full(repo, tmp_path / "full2")
        assert '"uncommitted"' not in (out / "data/docs.jsonl").read_text(encoding="utf-8")
    finally:
        stop.set()
        thread.join(timeout=30)


def test_a_save_blames_and_judges_the_saved_document_alone(tmp_path):
    repo = _repo(tmp_path)
    cfg = load_config(repo)
    out = tmp_path / "watched"
    memo = BuildMemo(history=HistoryMemo())
    assert rebuild(cfg, out, (), memo=memo).error is None
    history = memo.history
    assert history is not None
    verified = len(DOCS)  # every one reviewed
    assert (history.blamed, history.judged) == (len(DOCS), verified)

    append_text(repo / SCAB, "\n补充说明。\n")
    assert rebuild(cfg, out, (SCAB,), memo=memo).error is None
    assert (history.blamed, history.judged) == (len(DOCS) + 1, verified + 1)
    assert _tree(out) == _full(repo, tmp_path / "full1")

    append_text(repo / ADR, "\nOne more line.\n")
    assert rebuild(cfg, out, (ADR,), memo=memo).error is None
    assert (history.blamed, history.judged) == (len(DOCS) + 2, verified + 2)
    assert _tree(out) == _full(repo, tmp_path / "full2")

    git(repo, "commit", "-qam", "edits")  # HEAD moved: every document again, as a build
    assert rebuild(cfg, out, (), memo=memo).error is None
    assert (history.blamed, history.judged) == (2 * len(DOCS) + 2, 2 * verified + 2)
    assert _tree(out) == _full(repo, tmp_path / "full3")

    new = repo / "knowledge/engineering/new.md"  # untracked, then staged: blamed again
    new.write_text(PAGE.format(title="New", source="test", body="Pump seals, 2000 hours."),
                   encoding="utf-8")
    assert rebuild(cfg, out, (), memo=memo).error is None
    assert _tree(out) == _full(repo, tmp_path / "full4")
    git(repo, "add", "knowledge/engineering/new.md")
    assert rebuild(cfg, out, (), memo=memo).error is None
    assert _tree(out) == _full(repo, tmp_path / "full5")


def test_a_watcher_started_before_the_first_commit_builds_that_commit(tmp_path):
    repo = copy_example(tmp_path / "repo", DOCS)
    shutil.rmtree(repo / ".git")  # `git init`, no commit yet: HEAD has no reflog folder
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('model = "use"', TEST_HASH),
                    encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    assert not (repo / ".git/logs").exists()
    out = tmp_path / "watched"
    updates, stop, thread = watching(repo, out)
    try:
        first = updates.get(timeout=180)
        assert first.error is None
        assert _source(out)["commit"] == "none"

        git(repo, "add", "kb.toml", "assets", "schemas", "knowledge")  # not .kb-cache/
        git(repo, "-c", "user.name=A", "-c", "user.email=a@example.com",
            "commit", "-qm", "first")  # no save: the reflog folder is made now
        committed = updates.get(timeout=60)
        assert committed.error is None
        assert _source(out)["commit"] == git(repo, "rev-parse", "HEAD").strip()
        assert _tree(out) == _full(repo, tmp_path / "full")
    finally:
        stop.set()
        thread.join(timeout=30)
