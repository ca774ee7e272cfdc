"""What ranking reads of a chunk as arrays (kbtools.query.sections): read row by row or
whole, it is what the store's rows say, and a search answers the same either way."""

from __future__ import annotations

import gc
import weakref

from kbtools.index.reader import open_index
from kbtools.query import sections
from kbtools.query.answers import TABLE_KINDS
from kbtools.query.distinct import section_key
from kbtools.query.fusion import Hit
from kbtools.query.quality import load_questions
from kbtools.query.search import search
from tests.kbfixtures import REPO

QUESTIONS = load_questions(REPO / "tests" / "data" / "known_answers.jsonl")


def _as_defined(index) -> dict[str, list]:
    """Per chunk, from its whole store row: section key, lines, the number of the chunk its
    `extra` parent names (collapsing kinds only), its table index (table kinds only)."""
    n = index.store.count()
    rows = index.store.chunks(list(range(n)))
    by_id = {r["id"]: r["num"] for r in rows.values()}
    out: dict[str, list] = {"key": [], "start": [], "end": [], "parent": [], "table": []}
    for num in range(n):
        r = rows[num]
        out["key"].append(section_key(r))
        out["start"].append(r["line_start"])
        out["end"].append(r["line_end"])
        parent = r["extra"].get("parent") if r["kind"] in sections.COLLAPSE_KINDS else None
        out["parent"].append(by_id.get(parent, -1) if parent is not None else -1)
        ti = r["extra"].get("table_index") if r["kind"] in TABLE_KINDS else None
        out["table"].append(ti if isinstance(ti, int) else 0)
    return out


def _check(table: sections.SectionTable, want: dict[str, list]) -> None:
    assert table.known.all()
    assert table.line_start.tolist() == want["start"]
    assert table.line_end.tolist() == want["end"]
    assert table.collapse_to.tolist() == want["parent"]
    assert table.table_index.tolist() == want["table"]
    # the same section number exactly when the same section key
    keys = want["key"]
    numbers = table.section.tolist()
    pairs = {(numbers[i], keys[i]) for i in range(len(keys))}
    assert len(pairs) == len(set(numbers)) == len(set(keys))


def test_the_table_read_row_by_row_and_whole_is_what_the_rows_say(example_index):
    index = open_index(example_index)
    want = _as_defined(index)
    assert any(p >= 0 for p in want["parent"]) and any(want["table"])  # both kinds occur
    n = index.store.count()
    by_rows = sections.SectionTable(index)
    by_rows.ensure([n - 1, 0])  # a few first, then the rest: numbers given early stay
    by_rows.ensure(range(n))
    _check(by_rows, want)
    whole = sections.SectionTable(index)
    whole.ensure([3, 1])
    early = whole.section[[1, 3]].tolist()
    for _ in range(sections.WHOLE_AFTER + 1):
        whole.searched()
    _check(whole, want)
    assert whole.section[[1, 3]].tolist() == early


def test_once_read_whole_only_decision_tables_are_tried(example_index):
    """Before the whole store is read every table chunk's table is offered to the decision
    table evaluation; after, only the tables the build shipped as decision tables."""
    index = open_index(example_index)
    n = index.store.count()
    rows = index.store.chunks(list(range(n)))
    tables = {num: (r["doc"], r["extra"]["table_index"]) for num, r in rows.items()
              if r["kind"] in TABLE_KINDS and r["extra"].get("table_index")}
    decisions = {(r["doc"], r["extra"]["table_index"]) for r in rows.values()
                 if r["kind"] == "table" and "decision" in r["extra"]}
    assert decisions and set(tables.values()) - decisions  # both kinds of table occur
    partly, whole = sections.SectionTable(index), sections.SectionTable(index)
    partly.ensure(range(n))
    whole.read_whole()
    for num, (doc, ti) in tables.items():
        offered = [(doc, ti, rows[num]["line_start"])]
        assert partly.tables_of([Hit(num, 1.0, {})]) == offered
        assert whole.tables_of([Hit(num, 1.0, {})]) == (offered if (doc, ti) in decisions
                                                        else [])


def test_collapse_and_nested_as_their_definitions(example_index):
    index = open_index(example_index)
    table = sections.of(index)
    n = index.store.count()
    table.ensure(range(n))
    want = _as_defined(index)
    kinds = index.chunk_table().kind
    hits = [Hit(num, 1.0 - num / n, {}) for num in range(n)]
    got = table.collapse(hits)
    expected, seen = [], set()
    for h in hits:
        parent = want["parent"][h.num]
        if parent >= 0:
            h = Hit(parent, h.score, {"collapsed_from": kinds[h.num]})
        if h.num not in seen:
            seen.add(h.num)
            expected.append(h)
    assert got == expected and len(got) < len(hits)
    docs = index.chunk_table().doc
    chosen: list[Hit] = []
    for h in hits:
        s, e = want["start"][h.num], want["end"][h.num]
        if not any(docs[c.num] == docs[h.num] and (
                want["start"][c.num] <= s <= e <= want["end"][c.num]
                or s <= want["start"][c.num] <= want["end"][c.num] <= e) for c in chosen):
            chosen.append(h)
        if len(chosen) == 7:
            break
    assert table.suppress_nested(hits, 7) == chosen


def test_a_search_answers_the_same_from_rows_and_from_the_whole_table(example_index):
    """A one-shot `kb query` (an index's first search: its candidates' rows) against a
    long-lived process (the whole table, from the second search on)."""
    questions = [q["query"] for q in QUESTIONS]
    assert len(questions) >= 30
    whole = open_index(example_index)
    search(whole, questions[0])
    search(whole, questions[1])
    assert sections.of(whole).known.all()  # read whole from the second search on
    partly = 0
    for q in questions:
        fresh = open_index(example_index)
        a = search(fresh, q, k=5, keep_results=True).to_dict()
        partly += not sections.of(fresh).known.all()
        b = search(whole, q, k=5, keep_results=True).to_dict()
        a.pop("took_ms"), b.pop("took_ms")
        assert a == b, q
        fresh.close()
    assert partly == len(questions)  # (a first search did read its candidates only)
    results = [r for q in questions for r in search(whole, q).to_dict()["results"]]
    assert any(r["why"].get("evaluated") for r in results)  # decision tables compared too
    assert any("collapsed_from" in r["why"] for r in results)  # and collapsed hits


def test_a_closed_index_and_its_table_are_freed(example_index):
    """`of` keeps an index's table only while the index lives (a device switching releases
    in `kb serve` drops the old one)."""
    index = open_index(example_index)
    search(index, QUESTIONS[0]["query"])
    table = weakref.ref(sections.of(index))
    gone = weakref.ref(index)
    index.close()
    del index
    gc.collect()
    assert gone() is None and table() is None


def test_a_server_knows_every_chunk_once_warmed_up(example_index):
    """`kb serve` reads the whole table while it warms a release up, so its users' first
    questions do not wait for that pass."""
    from kbtools.serve.source import warm_up

    index = open_index(example_index)
    try:
        warm_up(index)  # one search: on its own, only that search's candidates are known
        assert sections.of(index).known.all()
    finally:
        gc.unfreeze()  # (warm_up freezes what is loaded; the other tests collect)
        index.close()


def test_a_documents_decision_tables_are_read_once_for_record_and_number(example_index):
    """`decision_record` (a table's shipped decision table) and `decision_number` (its
    number among its document's decision tables) answer from one read of the document's
    table chunks: what the rows say, and no statement reaches the store after the first
    ask of a document, whichever of the two asks."""
    index = open_index(example_index)
    rows = index.store.chunks(list(range(index.store.count()))).values()
    shipped: dict[str, dict[int, dict | None]] = {}
    for r in rows:
        if r["kind"] == "table" and isinstance(r["extra"].get("table_index"), int):
            shipped.setdefault(r["doc"], {})[r["extra"]["table_index"]] = \
                r["extra"].get("decision") or None
    assert any(any(t.values()) for t in shipped.values())  # decision tables occur
    assert any(not all(t.values()) for t in shipped.values())  # and plain ones
    statements: list[str] = []
    index.store.con.set_trace_callback(statements.append)
    for turn, (doc, tables) in enumerate(sorted(shipped.items())):
        numbers = sorted(ti for ti, record in tables.items() if record)
        first = sections.decision_number if turn % 2 else sections.decision_record
        first(index, doc, min(tables))
        asked = len(statements)
        for ti, record in tables.items():
            assert sections.decision_record(index, doc, ti) == record, (doc, ti)
            want = numbers.index(ti) + 1 if ti in numbers else 0
            assert sections.decision_number(index, doc, ti) == want, (doc, ti)
        assert len(statements) == asked, (doc, statements[asked:])
    index.store.con.set_trace_callback(None)


def test_an_enclosing_hit_takes_the_place_of_nested_ones_that_all_give_way(example_index):
    index = open_index(example_index)
    table = sections.of(index)
    n = index.store.count()
    table.ensure(range(n))
    docs = index.chunk_table().doc
    start, end = table.line_start, table.line_end

    def strictly_inside(c: int, e: int) -> bool:
        return docs[c] == docs[e] and start[e] <= start[c] <= end[c] <= end[e] \
            and (start[c], end[c]) != (start[e], end[e])

    outer, a, b = next((e, *pair) for e in range(n)
                       for pair in [[c for c in range(n) if strictly_inside(c, e)][:2]]
                       if len(pair) == 2)
    other = next(c for c in range(n) if docs[c] != docs[outer])
    hits = [Hit(a, 0.9, {}), Hit(other, 0.8, {}), Hit(b, 0.7, {}), Hit(outer, 0.1, {})]
    moved = table.give_way(hits, lambda fine, enclosing: True)
    assert [h.num for h in moved] == [outer, a, other, b] and moved[0].score == 0.9
    assert table.suppress_nested(moved, 3) == [moved[0], hits[1]]
    assert table.give_way(hits, lambda fine, enclosing: fine == a) == hits  # b holds its own
    assert table.give_way(hits, lambda fine, enclosing: False) == hits
