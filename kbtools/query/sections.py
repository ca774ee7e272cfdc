"""What ranking needs of a chunk, as per-chunk arrays: its section, its lines, the section
that answers for it, and its table.

After fusion a search ranks 50 to 100 candidates: list items, code and images give way to
their section (`collapse`), one hit per section is kept and documents are diversified
(`kbtools.query.distinct`), and a hit whose lines sit inside a better one of its document is
dropped (`suppress_nested`); the decision tables tried are those of the best table chunks
(`tables_of`). None of that reads a chunk's text: only its document (the per-chunk ``doc``
of `KbIndex.chunk_table`), heading path, line range, parent and table index.
`SectionTable` (one per opened index: `of`) holds those by chunk number. It is filled from
the store's rows for the chunks a search asks about (`ensure`: a one-shot `kb query` reads
its candidates' ranking rows, as it did before), and, from an index's second search on (a
process that asks again is a long-lived one: `kb serve`, `kb mcp`, `kb query --batch`, an
evaluation; `kb serve` and `kb mcp` do it right after a release's first search, `read_whole`),
for every chunk in one pass over the store (`Store.section_rows`, 0.3–0.45 s and ~10 MiB of
RSS at 54k chunks, once), so that ranking reads no rows at all and the rows of the results shown
are read afterwards. An engine's index (no local store to pass over) keeps filling it from
the rows it fetches.

A section is numbered by its (document, heading path): two chunks share a number exactly
when `distinct.section_key` of their rows is equal.
"""

from __future__ import annotations

import threading
import weakref
from array import array
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.index.store import SectionRow
from kbtools.query.fusion import Hit

TABLE_DEPTH = 30  # decision tables are tried when one of their chunks is among these hits
TABLE_KINDS = ("table", "table_row")  # the chunks of a table
# A hit on one of these is answered better by its whole section (the item alone lacks the
# surrounding steps); table rows and formulas are complete answers on their own.
COLLAPSE_KINDS = frozenset({"list_item", "code", "mermaid", "image"})
# Searches on an index after which its whole table is read (a second question: the process
# is a long-lived one).
WHOLE_AFTER = 1


class SectionTable:
    """Per chunk number of `index`: ``section`` (its section's number), ``line_start``,
    ``line_end``, ``collapse_to`` (the chunk number of the section a collapsing chunk gives
    way to; -1: none), ``table_index`` (a table chunk's table in its document; 0: none) —
    valid where ``known`` is set."""

    def __init__(self, index: KbIndex):
        n = index.store.count()
        # the parts read, not the index: `of` keeps a table only while its index lives
        self._store = index.store
        table = index.chunk_table()
        self._doc, self._kind = table.doc, table.kind
        self._doc_names = [d["doc"] for d in index.docs()]
        self.section = np.full(n, -1, dtype=np.int64)
        self.line_start = np.zeros(n, dtype=np.int64)
        self.line_end = np.zeros(n, dtype=np.int64)
        self.collapse_to = np.full(n, -1, dtype=np.int64)
        self.table_index = np.zeros(n, dtype=np.int64)
        self.known = np.zeros(n, dtype=bool)
        self._numbers: dict[tuple[str, tuple[str, ...]], int] = {}  # section key → number
        self._searches = 0
        self._whole = False  # every chunk known, or the store cannot be read whole
        # (document number, table index) of the tables shipped as decision tables, once the
        # whole store was read (None: not known, every table chunk's table is tried)
        self._decisions: set[tuple[int, int]] | None = None
        self._lock = threading.Lock()  # fills from concurrent searches (`kb serve`)
        self._tables: dict[str, list[int]] | None = None  # document → its table chunks
        # document → its tables' shipped decision records (`decision_records`)
        self._records: dict[str, dict[int, dict[str, Any] | None]] = {}

    def searched(self) -> None:
        """Count a search; from the `WHOLE_AFTER`-th on, read the whole table (once)."""
        self._searches += 1
        if self._searches > WHOLE_AFTER:
            self.read_whole()

    def read_whole(self) -> None:
        """Know every chunk, from one pass over the store (once; a long-lived process calls
        it after loading, so that no user's question waits for it)."""
        if not self._whole:
            with self._lock:
                if not self._whole:
                    self._read_whole()

    def ensure(self, nums: Iterable[int]) -> None:
        """Make the chunks `nums` known (and the sections they collapse to)."""
        wanted = np.fromiter(nums, dtype=np.int64)
        todo = wanted[~self.known[wanted]] if len(wanted) else wanted
        if len(todo):
            with self._lock:
                self._read(sorted(set(todo.tolist())))

    def _read(self, nums: list[int]) -> None:
        """Fill chunks `nums` from their ranking rows, then their parents likewise."""
        store = self._store
        pending = store.ranking_rows(nums)
        while pending:
            rows = list(pending.values())
            ids = {r["extra"].get("parent") for r in rows if r["kind"] in COLLAPSE_KINDS}
            ids.discard(None)
            by_id = store.ranking_rows_by_id(sorted(ids)) if ids else {}
            for r in rows:
                parent = by_id.get(r["extra"].get("parent")) \
                    if r["kind"] in COLLAPSE_KINDS else None
                ti = r["extra"].get("table_index") if r["kind"] in TABLE_KINDS else None
                self._fill((r["num"], r["doc"], tuple(r["heading_path"]), r["line_start"],
                            r["line_end"], None if parent is None else parent["num"],
                            ti if type(ti) is int else None, False))
            pending = {p["num"]: p for p in by_id.values() if not self.known[p["num"]]}

    def _fill(self, row: SectionRow) -> None:
        num, doc, path, start, end, parent, table, _ = row
        self.section[num] = self._numbers.setdefault((doc, path), len(self._numbers))
        self.line_start[num], self.line_end[num] = start, end
        self.collapse_to[num] = -1 if parent is None else parent
        self.table_index[num] = table or 0
        self.known[num] = True

    def _read_whole(self) -> None:
        rows = self._store.section_rows(COLLAPSE_KINDS, TABLE_KINDS)
        self._whole = True
        if rows is None:
            return  # (no pass over this store: rows are read as searches need them)
        numbers = self._numbers  # the numbers already given stay
        # (machine integers, not a list of int objects per column)
        section, start, end, parent, table = (array("q") for _ in range(5))
        decisions: set[tuple[int, int]] = set()
        for num, doc, path, s, e, p, t, decision in rows:
            section.append(numbers.setdefault((doc, path), len(numbers)))
            start.append(s)
            end.append(e)
            parent.append(-1 if p is None else p)
            table.append(t or 0)
            if decision and t:
                decisions.add((int(self._doc[num]), t))
        if len(section) != len(self.known):
            return
        for column, values in ((self.section, section), (self.line_start, start),
                               (self.line_end, end), (self.collapse_to, parent),
                               (self.table_index, table)):
            column[:] = np.frombuffer(values, dtype=np.int64)
        self.known[:] = True
        self._decisions = decisions
        self._numbers = {}  # (nothing is read any more)

    def collapse(self, hits: list[Hit], allowed: np.ndarray | None = None) -> list[Hit]:
        """List-item/code/image hits replaced by their section (kept at the hit's rank; a
        section once, at its best rank), where the section passes the search's filters too
        (`allowed`, per chunk; a verified item of a section changed after its review, or
        a `kind=list_item` filter, keeps the item). The hits must be known (`ensure`)."""
        if not hits:
            return hits
        nums = np.fromiter((h.num for h in hits), dtype=np.int64, count=len(hits))
        to = self.collapse_to[nums]
        if allowed is not None:
            to = np.where(allowed[np.maximum(to, 0)], to, -1)
        if not (to >= 0).any():
            return hits
        kind = self._kind
        out: list[Hit] = []
        seen: set[int] = set()
        for h, parent in zip(hits, to.tolist(), strict=True):
            if parent >= 0:
                h = h.noted(h.score, num=parent, collapsed_from=kind[h.num])
            if h.num not in seen:
                seen.add(h.num)
                out.append(h)
        return out

    def tables_of(self, hits: list[Hit]) -> list[tuple[str, int, int]]:
        """(document, table index, first line) of the table chunks among the first
        TABLE_DEPTH of the known `hits`, in order (what `answers.evaluate_question` takes).
        Once the whole store was read, only those of decision tables: the others would each
        cost a store read the first time they rank (few tables are decision tables)."""
        nums = [h.num for h in hits[:TABLE_DEPTH]]
        found = np.flatnonzero(self.table_index[nums]) if nums else np.zeros(0, dtype=np.int64)
        out = []
        for j in found.tolist():
            doc, ti = int(self._doc[nums[j]]), int(self.table_index[nums[j]])
            if self._decisions is None or (doc, ti) in self._decisions:
                out.append((self._doc_names[doc], ti, int(self.line_start[nums[j]])))
        return out

    def decision_records(self, doc: str) -> dict[int, dict[str, Any] | None]:
        """`sections.decision_records` of `doc`: its table chunks (by the index's per-chunk
        document and kind) read once, whichever of the two asks first."""
        found = self._records.get(doc)
        if found is None:
            with self._lock:
                if self._tables is None:
                    self._tables = {}
                    for num in np.flatnonzero(self._kind == "table").tolist():
                        name = self._doc_names[self._doc[num]]
                        self._tables.setdefault(name, []).append(num)
                rows = self._store.chunks(self._tables.get(doc, []))
                found = {}
                for r in rows.values():
                    ti = r["extra"].get("table_index")
                    if type(ti) is int:
                        found[ti] = r["extra"].get("decision") or None
                self._records[doc] = found
        return found

    def sections_of(self, hits: Iterable[Hit]) -> dict[int, int]:
        """Chunk number → section number, for known `hits`."""
        nums = [h.num for h in hits]
        return dict(zip(nums, self.section[nums].tolist(), strict=True))

    def suppress_nested(self, hits: list[Hit], k: int) -> list[Hit]:
        """The first `k` hits, skipping one whose lines sit inside (or around) an already
        chosen hit of the same document. The hits must be known (`ensure`)."""
        nums = [h.num for h in hits]
        docs = self._doc[nums].tolist()
        starts, ends = self.line_start[nums].tolist(), self.line_end[nums].tolist()
        chosen: list[int] = []  # positions in `hits`
        for j, (d, s, e) in enumerate(zip(docs, starts, ends, strict=True)):
            if not any(docs[c] == d and (starts[c] <= s <= e <= ends[c]
                                         or s <= starts[c] <= ends[c] <= e) for c in chosen):
                chosen.append(j)
                if len(chosen) == k:
                    break
        return [hits[j] for j in chosen]

    def give_way(self, hits: list[Hit], yields: Callable[[int, int], bool]) -> list[Hit]:
        """`hits` with a hit moved up to just before the first better hit of its document
        whose lines sit strictly inside its own, when every better hit so nested gives way
        to it (`yields(nested chunk, enclosing chunk)`: a finer chunk matched only through
        its heading path, `Coverage.yields_to`), at that place's score; `suppress_nested`
        then leaves those out instead of the enclosing one. The hits must be known
        (`ensure`)."""
        nums = [h.num for h in hits]
        doc, start, end = self._doc[nums], self.line_start[nums], self.line_end[nums]
        # inside[c, j]: hit c's lines strictly inside hit j's, in one document (a search's
        # ~50 hits at once: most searches have no such pair and return here)
        inside = (doc[:, None] == doc[None, :]) & (start[None, :] <= start[:, None]) \
            & (end[:, None] <= end[None, :]) \
            & ((start[:, None] != start[None, :]) | (end[:, None] != end[None, :]))
        if not np.triu(inside, 1).any():
            return hits
        out = list(hits)
        order = list(range(len(hits)))  # positions in `hits`, as ranked so far
        for j in np.flatnonzero(inside.any(axis=0)).tolist():
            at = order.index(j)
            nested = [i for i in range(at) if inside[order[i], j]]
            if nested and all(yields(nums[order[i]], nums[j]) for i in nested):
                place = out[order[nested[0]]].score
                out[j] = hits[j].noted(max(place, hits[j].score))
                order.pop(at)
                order.insert(nested[0], j)
        return [out[j] for j in order]


_TABLES: weakref.WeakKeyDictionary[KbIndex, SectionTable] = weakref.WeakKeyDictionary()
_MADE = threading.Lock()


def of(index: KbIndex) -> SectionTable:
    """The section table of `index` (made on its first search)."""
    table = _TABLES.get(index)
    if table is None:
        with _MADE:
            table = _TABLES.get(index)
            if table is None:
                table = _TABLES[index] = SectionTable(index)
    return table


def decision_records(index: KbIndex, doc: str) -> dict[int, dict[str, Any] | None]:
    """Per Markdown table of `doc` (its ``table_index``), the decision table the build
    shipped on its table chunk (``extra["decision"]``, `DecisionTable.to_record`; None: no
    decision table), from one read of the document's table chunks, cached per index: what
    `decision_record` and `decision_number` both answer from."""
    return of(index).decision_records(doc)


def decision_record(index: KbIndex, doc: str, table_index: int) -> dict[str, Any] | None:
    """The decision table the build shipped on table `table_index` of `doc`
    (`decision_records`); None when that table is no decision table. Read here, without the
    table code, so that a question none of whose best tables is a decision table (most, and
    every question of a knowledge without one) never imports `kbtools.query.answers` and
    `kbtools.decision`."""
    return decision_records(index, doc).get(table_index)


def decision_number(index: KbIndex, doc: str, table_index: int) -> int:
    """The 1-based number among `doc`'s decision tables (as `decision.select_table` numbers
    them; a build refuses a document with a malformed one) of its Markdown table
    `table_index`; 0 when it is none (`decision_records`)."""
    numbers = sorted(ti for ti, record in decision_records(index, doc).items() if record)
    return numbers.index(table_index) + 1 if table_index in numbers else 0


def result_extra(index: KbIndex, doc: str, kind: str, extra: dict[str, Any]) -> dict[str, Any]:
    """A table or table row chunk's `extra` as a search result gives it: ``table_index``
    the number of its table among `doc`'s decision tables, the ``table`` that
    `evaluate_table`, ``/api/table/evaluate`` and ``kb table eval --table`` take (as its
    ``evaluation.table_index``; left out for a table that is no decision table), and
    ``markdown_table`` its number among all the document's Markdown tables (what the chunk
    records as ``table_index``). An agent passing a result's ``table_index`` on evaluated
    another table, or none, when a plain table came first. Other chunks' as they are."""
    number = extra.get("table_index") if kind in TABLE_KINDS else None
    if type(number) is not int:
        return extra
    out = {k: v for k, v in extra.items() if k != "table_index"}
    out["markdown_table"] = number
    if decided := decision_number(index, doc, number):
        out["table_index"] = decided
    return out
