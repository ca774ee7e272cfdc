"""Decision-table analysis for ``kb check``: overlapping rules, gaps, malformed tables.

`analyse(table)` checks one `kbtools.decision.DecisionTable`: pairs of rows that both match
some inputs (decision-overlap) and combinations of inputs between the table's lowest and
highest bounds that no row covers (decision-gap), found by enumerating elementary cells of
every numeric input column (at most `MAX_GRID_CELLS`). A column of times of day with a range
that crosses midnight (22:00-6:00) is read on the 24-hour circle: that range is 22:00 to
midnight and midnight to 6:00, and the whole day lies inside the table's ranges
(`clock_pieces`); so is a column of days with a run that wraps the week (周五至周一).
`table_findings(src)` runs it over
the annotated decision tables of a document and reports malformed ones
(decision-malformed); unannotated tables are not checked.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from kbtools.decision.cell_text import normalize_text
from kbtools.decision.clock import DAY, clock_text
from kbtools.decision.conditions import Condition, format_number
from kbtools.decision.documents import (
    DocRef,
    as_source,
    decision_annotation,
    table_from_markdown,
)
from kbtools.decision.model import DecisionTable, parse_annotation
from kbtools.decision.weekdays import day_name
from kbtools.errors import TableError
from kbtools.markdown.doctree import parse

MAX_GRID_CELLS = 50_000  # gap analysis enumerates this many elementary cells at most
MAX_FINDINGS_PER_KIND = 5
MAX_OVERLAP_CHECKS = 2_000_000  # row pairs compared for decision-overlap at most

TableFinding = tuple[int, str, str]  # (line, code, message)
Cell = tuple[float, str, str]  # representative value, lower bound text, upper bound text
NumericAxis = tuple[int, list[Cell]]  # numeric input column, its elementary cells
TextAxis = tuple[int, list[str]]  # text input column, its distinct normalised values
# A gap box: per numeric axis an index span (s, e) into its cells, then per text axis a value.
Box = list[Any]


def table_findings(src: DocRef) -> list[TableFinding]:
    """``kb check`` findings for annotated decision tables: overlap, gap, malformed.

    Returns [(line, code, message)] with codes decision-overlap, decision-gap (warnings) and
    decision-malformed. Unannotated tables are not checked (they may not be rules at all).
    """
    parsed = parse(as_source(src))
    out: list[TableFinding] = []
    for t in parsed.tables():
        if decision_annotation(t) is None:
            continue
        try:
            dt = table_from_markdown(t, parsed.lines)
        except TableError as exc:
            out.append((exc.line or t.line_start, "decision-malformed", exc.message))
            continue
        if dt is not None:
            out.extend(analyse(dt, declared=_declares_policy(decision_annotation(t) or "")))
    return sorted(out)


def _declares_policy(annotation: str) -> bool:
    """Whether a decision annotation says which of several matching rows wins (``policy=``)."""
    try:
        return "policy" in parse_annotation(annotation)
    except TableError:
        return False


def analyse(table: DecisionTable, *, declared: bool = False) -> list[TableFinding]:
    """Overlapping rules and uncovered numeric ranges: [(line, code, message)]. A table that
    `declared` its policy overlaps on purpose: only overlaps an empty cell may explain (one
    meant as "as above") are reported then."""
    findings = overlap_findings(table, declared=declared)
    if table.numeric:  # a blank row is no rule (`match_rules` skips it): it covers no gap
        findings += gap_findings(table.without_blank_rows())
    return findings


def overlap_findings(table: DecisionTable, *, declared: bool = False) -> list[TableFinding]:
    """decision-overlap: each pair of rows that both match some inputs (the first few).

    Only the pairs whose cells intersect in the input column where the fewest pairs do are
    compared (`overlap_candidates`), so a table of disjoint rules costs n log n, not n²; a
    table needing more than `MAX_OVERLAP_CHECKS` comparisons is checked that far and says so.
    """
    conds = table.conditions
    circles = {i: on_circle(table, i) for i in table.inputs}
    found: list[tuple[int, int]] = []  # the first overlapping pairs, a max-heap by negation
    overlaps = checked = 0
    blank = table.blank_rows()
    for a, b in overlap_candidates(table):
        if a + 1 in blank or b + 1 in blank:  # no rule (`match_rules` skips it)
            continue
        if checked == MAX_OVERLAP_CHECKS:
            break
        checked += 1
        if all(_meet(conds[a][i], conds[b][i], circles[i]) for i in table.inputs) and \
                (not declared or _continued_cell(table, a, b)):
            overlaps += 1
            if len(found) < MAX_FINDINGS_PER_KIND:
                heapq.heappush(found, (-a, -b))
            elif (-a, -b) > found[0]:
                heapq.heapreplace(found, (-a, -b))
    findings: list[TableFinding] = [
        (table.line_of(b + 1) or table.line_start, "decision-overlap",
         f"{table.label()}: rows {a + 1} and {b + 1}{_lines(table, a, b)} both match some "
         f"inputs ({_who_wins(table, declared)})"
         f"{_continued_cell(table, a, b)}")
        for a, b in sorted((-na, -nb) for na, nb in found)]
    if checked == MAX_OVERLAP_CHECKS:
        findings.append((table.line_start, "decision-overlap",
                         f"{table.label()}: {len(conds):,} rows share inputs so widely that the "
                         f"overlap check stopped after {MAX_OVERLAP_CHECKS:,} row pairs "
                         f"({overlaps:,} overlapping so far)"))
    elif overlaps > MAX_FINDINGS_PER_KIND:
        findings.append((table.line_start, "decision-overlap",
                         f"{table.label()}: {overlaps - MAX_FINDINGS_PER_KIND} more overlapping "
                         "row pairs"))
    return findings


def overlap_candidates(table: DecisionTable) -> Iterator[tuple[int, int]]:
    """Row pairs (a < b) that may both match: every pair whose cells intersect in the input
    column where the fewest pairs do (any other pair differs there, so cannot overlap)."""
    if not table.inputs:
        return itertools.combinations(range(len(table.conditions)), 2)
    axes = [_Axis([r[i] for r in table.conditions], on_circle(table, i)) for i in table.inputs]
    return min(axes, key=lambda axis: axis.pairs()).candidates()


class _Axis:
    """One input column's cells grouped to find the row pairs that intersect there (as
    `_intersects` decides): any-value cells meet every cell, text cells those of the same
    text, numeric intervals the intervals they share a point with (an empty one none)."""

    def __init__(self, cells: list[Condition], circle: bool = False):
        self.circle = circle  # a range across midnight is two spans of one row
        self.any: list[int] = []
        self.texts: dict[str, list[int]] = {}
        self.rest: list[int] = []  # every row whose cell is not any-value
        spans: list[tuple[tuple[float, int], tuple[float, int], int]] = []
        for r, c in enumerate(cells):
            if c.kind == "any":
                self.any.append(r)
                continue
            self.rest.append(r)
            if c.kind == "text":
                self.texts.setdefault(c.text, []).append(r)
                continue
            for p in clock_pieces(c, circle):
                if p.lo < p.hi or (p.lo == p.hi and p.lo_incl and p.hi_incl):
                    # (start, end) keys: interval a ends before b starts iff end(a) < start(b)
                    spans.append(((p.lo, 1 if p.lo_incl else 2), (p.hi, 1 if p.hi_incl else 0), r))
        self.spans = sorted(spans)

    def pairs(self) -> int:
        """How many row pairs intersect in this column (n log n, without listing them)."""
        n = len(self.any)
        total = n * (n - 1) // 2 + n * len(self.rest)
        total += sum(len(g) * (len(g) - 1) // 2 for g in self.texts.values())
        ends = sorted(end for _, end, _ in self.spans)
        for k, (start, _, _) in enumerate(self.spans):
            total += k - bisect.bisect_left(ends, start)  # earlier starts not yet ended
        return total

    def candidates(self) -> Iterator[tuple[int, int]]:
        """The row pairs (a < b) that intersect in this column."""
        yield from itertools.combinations(self.any, 2)
        for a in self.any:
            for b in self.rest:
                yield (a, b) if a < b else (b, a)
        for group in self.texts.values():
            yield from itertools.combinations(group, 2)
        active: list[tuple[tuple[float, int], int]] = []  # (end, row): a heap
        seen: set[tuple[int, int]] = set()  # on a circle, two rows may meet on both spans
        for start, end, r in self.spans:
            while active and active[0][0] < start:
                heapq.heappop(active)
            for _, a in active:
                pair = (a, r) if a < r else (r, a)
                if a == r or pair in seen:
                    continue
                if self.circle:
                    seen.add(pair)
                yield pair
            heapq.heappush(active, (end, r))


def _lines(table: DecisionTable, a: int, b: int) -> str:
    """`` (lines 9 and 12)``: where two rows (0-based) are written; "" when unknown."""
    la, lb = table.line_of(a + 1), table.line_of(b + 1)
    return f" (lines {la} and {lb})" if la and lb else ""


def _who_wins(table: DecisionTable, declared: bool) -> str:
    """Which of two overlapping rows wins, and, when the table declares no policy, how to."""
    if declared:
        return f"policy '{table.policy}' decides"
    return ("no policy declared: the first matching row wins; declare policy=first or "
            "policy=all in the decision annotation if that is meant")


def _continued_cell(table: DecisionTable, *rows: int) -> str:
    """A hint when one of two overlapping rows (0-based) leaves an input cell empty under a
    filled one: a table written with merged-looking cells (the empty cell meant "as above"),
    where empty means any value. "" when neither does."""
    for r in rows:
        for i in table.inputs:
            above = table.rows[r - 1][i].strip() if r else ""
            if above and not table.rows[r][i].strip():
                above = above if len(above) <= 40 else above[:39] + "…"
                return (f"; row {r + 1}'s empty {table.header[i]} cell accepts any value: if it "
                        f"continues '{above}' above, write that again")
    return ""


def gap_findings(table: DecisionTable) -> list[TableFinding]:
    """decision-gap: input combinations inside the numeric bounds that no row covers.

    Nothing when there is no numeric axis or the grid would exceed `MAX_GRID_CELLS`.
    """
    axes: list[NumericAxis] = []
    for i in table.numeric:
        cells = _cells(table, i)
        if cells:
            axes.append((i, cells))
    text_axes: list[TextAxis] = []
    for i in table.inputs:
        if i in table.numeric:
            continue
        values = sorted({normalize_text(r[i].raw) for r in table.conditions if r[i].kind != "any"})
        if values:
            text_axes.append((i, values))
    size = math.prod(len(c) for _, c in axes) * math.prod(len(v) for _, v in text_axes)
    if not axes or size > MAX_GRID_CELLS:
        return []
    boxes = _merge_boxes(_uncovered_cells(table, axes, text_axes), len(axes))
    gaps = [_describe_box(table, box, axes, text_axes) for box in sorted(boxes)]
    findings = [(table.line_start, "decision-gap", f"{table.label()}: no row covers {g}")
                for g in gaps[:MAX_FINDINGS_PER_KIND]]
    if len(gaps) > MAX_FINDINGS_PER_KIND:
        findings.append((table.line_start, "decision-gap",
                         f"{table.label()}: {len(gaps) - MAX_FINDINGS_PER_KIND} more uncovered "
                         "ranges"))
    return findings


def on_circle(table: DecisionTable, col: int) -> bool:
    """Whether column `col` holds times of day with a range that crosses midnight
    (22:00-6:00): read on the 24-hour circle then."""
    return any((r[col].clock or r[col].weekday) and r[col].kind == "range" and r[col].lo > r[col].hi
               for r in table.conditions)


def clock_pieces(c: Condition, circle: bool) -> list[Condition]:
    """Condition `c` of a column read on the 24-hour circle (`circle`) as intervals of the
    day from midnight (0) to before the next (`DAY`): 22:00-6:00 is 22:00 up to midnight and
    midnight to 6:00, a cell that does not cross midnight is itself; `c` alone otherwise."""
    if not circle or not (c.kind == "range" and c.lo > c.hi):
        return [c]
    if c.weekday:  # 周五至周一: Friday to Sunday, and Monday
        return [replace(c, hi=7, hi_incl=True), replace(c, lo=1, lo_incl=True)]
    return [replace(c, hi=DAY, hi_incl=False), replace(c, lo=0, lo_incl=True)]


def _meet(a: Condition, b: Condition, circle: bool) -> bool:
    """Whether two cells of one column share a value (`_intersects`), on the 24-hour circle
    when the column is read on it."""
    return any(_intersects(p, q) for p in clock_pieces(a, circle) for q in clock_pieces(b, circle))


def _intersects(a: Condition, b: Condition) -> bool:
    if a.kind == "any" or b.kind == "any":
        return True
    if a.kind == "text" or b.kind == "text":
        if a.kind == "text" and b.kind == "text":
            return a.text == b.text
        return False
    lo, lo_incl = max((a.lo, a.lo_incl), (b.lo, b.lo_incl), key=lambda t: (t[0], not t[1]))
    hi, hi_incl = min((a.hi, a.hi_incl), (b.hi, b.hi_incl), key=lambda t: (t[0], t[1]))
    return lo < hi or (lo == hi and lo_incl and hi_incl)


def _cells(table: DecisionTable, col: int) -> list[Cell] | None:
    """Elementary cells of a numeric column inside its covered hull.

    Each cell is (representative value, lower bound text, upper bound text): the points at
    every bound and the open intervals between them. With whole-number bounds only, the open
    interval between n and n+1 is skipped (the column is taken to hold whole numbers).
    """
    circle = on_circle(table, col)
    conds = [p for r in table.conditions for p in clock_pieces(r[col], circle)]
    if all(c.kind == "any" for c in conds):
        return None
    week = any(c.weekday for c in conds)  # days 1 to 7, the week on a circle when one wraps
    ends = (1, 7) if week else (0, DAY)
    points = sorted({x for c in conds if c.kind != "any" for x in (c.lo, c.hi) if math.isfinite(x)}
                    | (set(ends) if circle else set()))
    lo = ends[0] if circle else min(c.lo for c in conds)
    hi = ends[1] if circle else max(c.hi for c in conds)  # on a circle, the day up to midnight
    whole = all(float(p).is_integer() for p in points)
    fmt = clock_text if any(c.clock for c in conds) else \
        (lambda x: day_name(x, False)) if week else format_number
    out: list[Cell] = []
    for k, p in enumerate(points):
        if k == 0 and lo < p:
            out.append((p - 1, "", f"<{fmt(p)}"))
        out.append((p, f"≥{fmt(p)}", f"≤{fmt(p)}"))
        if k + 1 < len(points):
            q = points[k + 1]
            if not (whole and q - p == 1):
                out.append(((p + q) / 2, f">{fmt(p)}", f"<{fmt(q)}"))
        elif hi > p:
            out.append((p + 1, f">{fmt(p)}", ""))
    return [c for c in out if lo <= c[0] < hi] if circle and not week else \
        [c for c in out if lo <= c[0] <= hi]


def _uncovered_cells(table: DecisionTable, axes: list[NumericAxis],
                     text_axes: list[TextAxis]) -> list[Box]:
    """Every grid cell (numeric cells × text values) that no row covers, as a one-cell box.

    Each row marks the block of cells it covers (a span on each numeric axis, its value or
    all on a text axis), so the cost is the rows plus the cells they cover, not their
    product (a 20,000-row table made minutes of `kb check`)."""
    covered = np.zeros([len(c) for _, c in axes] + [len(v) for _, v in text_axes], dtype=bool)
    reps = [[cell[0] for cell in cells] for _, cells in axes]
    places = [{t: k for k, t in enumerate(values)} for _, values in text_axes]
    circles = [on_circle(table, i) for i, _ in axes]
    for row in table.conditions:
        # a range across midnight covers two blocks of its column (`clock_pieces`)
        pieces = [[slice(*_span(p, xs)) for p in clock_pieces(row[i], circle)]
                  for (i, _), xs, circle in zip(axes, reps, circles, strict=True)]
        rest = []
        for (i, _), place in zip(text_axes, places, strict=True):
            k = place.get(normalize_text(row[i].raw)) if row[i].kind != "any" else None
            rest.append(slice(None) if k is None else slice(k, k + 1))
        for block in itertools.product(*pieces):
            covered[(*block, *rest)] = True
    n = len(axes)
    return [[(j, j) for j in idx[:n]] + [text_axes[k][1][j] for k, j in enumerate(idx[n:])]
            for idx in np.argwhere(~covered).tolist()]


def _span(cond: Condition, xs: list[float]) -> tuple[int, int]:
    """The slice of the increasing values `xs` that `cond` accepts (an interval accepts a
    run of them), found by bisection with the tests of `Condition.accepts_number`."""
    if cond.kind == "any":
        return 0, len(xs)
    lo = bisect.bisect_left(xs, True, key=lambda x: x > cond.lo or (cond.lo_incl and x == cond.lo))
    hi = bisect.bisect_left(xs, True,
                            key=lambda x: not (x < cond.hi or (cond.hi_incl and x == cond.hi)))
    return lo, max(lo, hi)


def _merge_boxes(boxes: list[Box], axes: int) -> list[Box]:
    """Merge gap cells (per numeric axis an index span (s, e), then text values) into boxes."""
    for a in range(axes):
        boxes.sort(key=lambda b: (b[:a] + b[a + 1:], b[a]))
        merged: list[Box] = []
        for b in boxes:
            prev = merged[-1] if merged else None
            if (prev is not None and prev[:a] + prev[a + 1:] == b[:a] + b[a + 1:]
                    and prev[a][1] + 1 == b[a][0]):
                prev[a] = (prev[a][0], b[a][1])
            else:
                merged.append(list(b))
        boxes = merged
    return boxes


def _describe_box(table: DecisionTable, box: Box, axes: list[NumericAxis],
                  text_axes: list[TextAxis]) -> str:
    """``温度 ≥15 and ≤20, 作物=b``: a gap box in the table's own column names. A column the
    box spans from end to end takes any value there and is left out (it read ``湿度 ,``)."""
    parts = []
    for k, (i, cells) in enumerate(axes):
        s, e = box[k]
        bounds = [b for b in (cells[s][1], cells[e][2]) if b]
        if s == e and cells[s][1].startswith("≥") and cells[s][2].startswith("≤"):
            bounds = [f"={cells[s][1][1:]}"]
        if bounds:
            parts.append(f"{table.header[i]} " + " and ".join(bounds))
    parts += [f"{table.header[i]}={box[len(axes) + k]}" for k, (i, _) in enumerate(text_axes)]
    return ", ".join(parts) or "any input"
