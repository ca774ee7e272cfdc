"""A document's blame kept as runs (`kbtools.blame_runs`): the same lines, the same chunk
provenance and reuse key as the per-line list, and what a watcher keeps of a document's
blame does not grow with its lines."""

from __future__ import annotations

import gc
import operator
from dataclasses import fields

from hypothesis import given
from hypothesis import strategies as st

from kbtools import provenance
from kbtools.blame_runs import BlameRuns, chunk_provenance
from kbtools.build.history import HistoryMemo
from kbtools.build.memo import BuildMemo
from kbtools.build.reuse import history_key
from kbtools.build.watch import rebuild
from kbtools.config import load_config
from kbtools.provenance import UNCOMMITTED, LineProvenance, not_fetched
from tests.kbfixtures import copy_example

COMMITS = [LineProvenance(0, "a" * 40, "张伟", "zw@example.com", "2025-01-01T08:00:00+08:00",
                          100, 90),
           LineProvenance(0, "b" * 40, "Bob", "b@example.com", "2025-01-02T08:00:00+00:00",
                          200, 150),
           LineProvenance(0, "c" * 40, "Carol", "c@example.com", "2025-01-02T09:00:00+01:00",
                          200, 150),  # of the same second as b: the first in line order wins
           LineProvenance(0, UNCOMMITTED, UNCOMMITTED, "", "", 0, 0),
           not_fetched(0)]  # a shallow clone's boundary: unknown


@st.composite
def blames(draw: st.DrawFn) -> list[LineProvenance]:
    whos = draw(st.lists(st.sampled_from(COMMITS), max_size=40))
    line, out = 0, []
    for who in whos:
        line += draw(st.sampled_from([1, 1, 1, 2]))  # mostly consecutive, a gap now and then
        out.append(LineProvenance(line, *operator.attrgetter(
            *(f.name for f in fields(LineProvenance)))(who)[1:]))
    return out


@given(blames(), st.integers(-2, 60), st.integers(-2, 60))
def test_runs_are_the_lines_and_answer_as_they_do(lines, start, end):
    runs = BlameRuns(lines)
    assert list(runs) == lines and runs == lines and len(runs) == len(lines)
    assert [runs[i] for i in range(len(lines))] == lines
    assert runs[start:end] == lines[start:end]
    if lines:
        assert runs[-1] == lines[-1]
    assert chunk_provenance(runs, start, end) == provenance.chunk_provenance(lines, start, end)
    assert chunk_provenance(lines, start, end) == provenance.chunk_provenance(lines, start, end)
    assert history_key(runs) == history_key(lines)


def test_one_commits_file_is_one_run():
    who = COMMITS[0]
    runs = BlameRuns.of_commit(5, who)
    assert runs == [LineProvenance(i, *list(_fields(who))[1:]) for i in range(1, 6)]
    assert len(list(runs.runs())) == 1
    assert BlameRuns.of_commit(0, who) == [] and not BlameRuns.of_commit(0, who)


def _fields(p: LineProvenance) -> tuple[object, ...]:
    return tuple(getattr(p, f.name) for f in fields(LineProvenance))


def _objects(root: object) -> int:
    """How many objects `root` holds (itself included, classes not), each counted once."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        todo.extend(o for o in gc.get_referents(obj) if not isinstance(o, type))
    return len(seen)


def test_a_watcher_keeps_a_documents_blame_in_room_that_does_not_grow_with_its_lines(tmp_path):
    repo = copy_example(tmp_path / "repo", ["knowledge/crops/sprayer-calibration.md"])
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        'model = "use"', 'model = "test-hash"\nlanguages = { en = "test-hash" }'),
        encoding="utf-8")
    doc = repo / "knowledge/crops/sprayer-calibration.md"
    doc.write_text(doc.read_text(encoding="utf-8")
                   + "".join(f"\n第 {i} 段：巡查记录。\n" for i in range(3000)), encoding="utf-8")
    memo = BuildMemo(history=HistoryMemo())  # uncommitted lines after the committed ones
    assert rebuild(load_config(repo), tmp_path / "out", (), memo=memo).error is None
    assert memo.history is not None
    (_, kept), = memo.history.blames.values()
    assert len(kept) > 6000
    assert _objects(kept) < 100  # per line: 6,000+ objects
