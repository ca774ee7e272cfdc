"""Decision-table analysis for ``kb check``: overlapping rules, gaps, malformed tables.

`analyse(table)` checks one `kbtools.decision.table.DecisionTable`: pairs of rows that both match
some inputs (decision-overlap) and combinations of inputs between the table's lowest and
highest bounds that no row covers (decision-gap), found by enumerating elementary cells of
every numeric input column (at most `MAX_GRID_CELLS`). `table_findings(src)` runs it over
the annotated decision tables of a document and reports malformed ones
(decision-malformed); unannotated tables are not checked.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from kbtools.decision.table import (
    Condition,
    DecisionTable,
    _annotation,
    _fmt,
    _from_parsed,
    _source,
    normalize_text,
)
from kbtools.errors import TableError

MAX_GRID_CELLS = 50_000  # gap analysis enumerates this many elementary cells at most
MAX_FINDINGS_PER_KIND = 5


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


def _cells(table: DecisionTable, col: int) -> list[tuple[float, str, str]] | None:
    """Elementary cells of a numeric column inside its covered hull.

    Each cell is (representative value, lower bound text, upper bound text): the points at
    every bound and the open intervals between them. With whole-number bounds only, the open
    interval between n and n+1 is skipped (the column is taken to hold whole numbers).
    """
    conds = [r[col] for r in table.conditions]
    if all(c.kind == "any" for c in conds):
        return None
    points = sorted({x for c in conds if c.kind != "any" for x in (c.lo, c.hi) if math.isfinite(x)})
    lo = min(c.lo for c in conds)
    hi = max(c.hi for c in conds)
    whole = all(float(p).is_integer() for p in points)
    out: list[tuple[float, str, str]] = []
    for k, p in enumerate(points):
        if k == 0 and lo < p:
            out.append((p - 1, "", f"<{_fmt(p)}"))
        out.append((p, f"≥{_fmt(p)}", f"≤{_fmt(p)}"))
        if k + 1 < len(points):
            q = points[k + 1]
            if not (whole and q - p == 1):
                out.append(((p + q) / 2, f">{_fmt(p)}", f"<{_fmt(q)}"))
        elif hi > p:
            out.append((p + 1, f">{_fmt(p)}", ""))
    return [c for c in out if lo <= c[0] <= hi]


def _merge_boxes(boxes: list[list[Any]], axes: int) -> list[list[Any]]:
    """Merge gap cells (per numeric axis an index span (s, e), then text values) into boxes."""
    for a in range(axes):
        boxes.sort(key=lambda b: (b[:a] + b[a + 1:], b[a]))
        merged: list[list[Any]] = []
        for b in boxes:
            prev = merged[-1] if merged else None
            if (prev is not None and prev[:a] + prev[a + 1:] == b[:a] + b[a + 1:]
                    and prev[a][1] + 1 == b[a][0]):
                prev[a] = (prev[a][0], b[a][1])
            else:
                merged.append(list(b))
        boxes = merged
    return boxes


def _row_covers(row: tuple[Condition, ...], nums: dict[int, float], texts: dict[int, str]) -> bool:
    for i, x in nums.items():
        if not row[i].accepts_number(x):
            return False
    for i, t in texts.items():
        if row[i].kind != "any" and normalize_text(row[i].raw) != t:
            return False
    return True


def analyse(table: DecisionTable) -> list[tuple[int, str, str]]:
    """Overlapping rules and uncovered numeric ranges: [(line, code, message)]."""
    findings: list[tuple[int, str, str]] = []
    conds = table.conditions
    overlaps = 0
    for a, b in itertools.combinations(range(len(conds)), 2):
        if all(_intersects(conds[a][i], conds[b][i]) for i in table.inputs):
            overlaps += 1
            if overlaps <= MAX_FINDINGS_PER_KIND:
                findings.append((table.line_of(b + 1) or table.line_start, "decision-overlap",
                                 f"{table.label()}: rows {a + 1} and {b + 1} both match some "
                                 f"inputs (policy '{table.policy}' decides)"))
    if overlaps > MAX_FINDINGS_PER_KIND:
        findings.append((table.line_start, "decision-overlap",
                         f"{table.label()}: {overlaps - MAX_FINDINGS_PER_KIND} more overlapping "
                         "row pairs"))
    if not table.numeric:
        return findings
    axes: list[tuple[int, list[tuple[float, str]]]] = []
    for i in table.numeric:
        cells = _cells(table, i)
        if cells:
            axes.append((i, cells))
    text_axes = []
    for i in table.inputs:
        if i in table.numeric:
            continue
        values = sorted({normalize_text(r[i].raw) for r in conds if r[i].kind != "any"})
        if values:
            text_axes.append((i, values))
    size = math.prod(len(c) for _, c in axes) * math.prod(len(v) for _, v in text_axes)
    if not axes or size > MAX_GRID_CELLS:
        return findings
    boxes = []
    for idx in itertools.product(*(range(len(c)) for _, c in axes), *(v for _, v in text_axes)):
        nums = {i: cells[idx[k]][0] for k, (i, cells) in enumerate(axes)}
        texts = {i: idx[len(axes) + k] for k, (i, _) in enumerate(text_axes)}
        if not any(_row_covers(r, nums, texts) for r in conds):
            boxes.append([(n, n) for n in idx[:len(axes)]] + list(idx[len(axes):]))
    gaps = []
    for box in sorted(_merge_boxes(boxes, len(axes))):
        parts = []
        for k, (i, cells) in enumerate(axes):
            s, e = box[k]
            bounds = [cells[s][1], cells[e][2]]
            if s == e and cells[s][1].startswith("≥") and cells[s][2].startswith("≤"):
                bounds = [f"={cells[s][1][1:]}"]
            parts.append(f"{table.header[i]} " + " and ".join(b for b in bounds if b))
        parts += [f"{table.header[i]}={box[len(axes) + k]}" for k, (i, _) in enumerate(text_axes)]
        gaps.append(", ".join(parts))
    for g in gaps[:MAX_FINDINGS_PER_KIND]:
        findings.append((table.line_start, "decision-gap", f"{table.label()}: no row covers {g}"))
    if len(gaps) > MAX_FINDINGS_PER_KIND:
        findings.append((table.line_start, "decision-gap",
                         f"{table.label()}: {len(gaps) - MAX_FINDINGS_PER_KIND} more uncovered "
                         "ranges"))
    return findings


def table_findings(src: Any) -> list[tuple[int, str, str]]:
    """``kb check`` findings for annotated decision tables: overlap, gap, malformed.

    Returns [(line, code, message)] with codes decision-overlap, decision-gap (warnings) and
    decision-malformed. Unannotated tables are not checked (they may not be rules at all).
    """
    from kbtools.markdown.doctree import parse

    src = _source(src)
    parsed = parse(src)
    out: list[tuple[int, str, str]] = []
    for t in parsed.tables():
        if _annotation(getattr(t, "annotations", None), "decision") is None:
            continue
        try:
            dt = _from_parsed(t, parsed.lines)
        except TableError as exc:
            out.append((exc.line or t.line_start, "decision-malformed", exc.message))
            continue
        if dt is not None:
            out.extend(analyse(dt))
    return sorted(out)
