"""`kb check --fix`: apply the mechanical path repairs found by the checks, atomically.

Only edits whose old text is still exactly where the check saw it are applied; the rest of
the file keeps its bytes (line endings, BOM) unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kbtools.check.engine import CheckContext, DocResult, check_results
from kbtools.check.links import Edit
from kbtools.findings import Finding, display_path
from kbtools.fsutil import atomic_write_bytes

BOM = b"\xef\xbb\xbf"
NEWLINE = re.compile(r"(\r\n|\r|\n)")


@dataclass(frozen=True)
class Change:
    path: str  # repo-relative
    line: int
    col: int
    old: str
    new: str

    def format(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: fixed: {self.old} -> {self.new}"


def apply_edits(path: Path, edits: list[Edit]) -> list[Edit]:
    """Rewrite `path` with `edits` applied; returns the edits actually applied."""
    raw = path.read_bytes()
    bom = raw.startswith(BOM)
    try:
        text = raw[3:].decode("utf-8") if bom else raw.decode("utf-8")
    except UnicodeDecodeError:
        return []  # never rewrite a file we cannot round-trip
    parts = NEWLINE.split(text)  # [line, sep, line, sep, ..., line]
    lines = parts[0::2]
    applied = []
    # right to left within a line, so earlier columns stay valid
    for edit in sorted(set(edits), key=lambda e: (e.line, -e.col)):
        idx = edit.line - 1
        if not 0 <= idx < len(lines):
            continue
        line = lines[idx]
        start = edit.col - 1
        if line[start:start + len(edit.old)] != edit.old:
            continue
        lines[idx] = line[:start] + edit.new + line[start + len(edit.old):]
        applied.append(edit)
    if applied:
        parts[0::2] = lines
        data = "".join(parts).encode("utf-8")
        atomic_write_bytes(path, (BOM + data) if bom else data)
    return applied


def fix_results(results: list[DocResult]) -> list[Change]:
    changes = []
    for res in results:
        if not res.edits:
            continue
        for e in apply_edits(res.path, list(res.edits)):
            changes.append(Change(display_path(res.rel), e.line, e.col, e.old, e.new))
    return sorted(changes, key=lambda c: (c.path, c.line, c.col))


def fix_paths(paths: list[Path], ctx_factory: Callable[[], CheckContext],
              jobs: int | None = 1) -> tuple[list[Change], list[DocResult], list[Finding]]:
    """Check, apply fixes, re-check with a fresh context. Returns (changes, results, findings)."""
    results, findings = check_results(paths, ctx_factory(), jobs)
    changes = fix_results(results)
    if changes:
        results, findings = check_results(paths, ctx_factory(), jobs)
    return changes, results, findings
