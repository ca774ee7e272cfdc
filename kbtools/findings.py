"""Findings: what a gate reports about a file, shared by `kb check`, `kb review check` and
the decision-table checks.

A `Finding` is one problem at `path:line:col` with a level ("error" or "warning") and a
stable kebab-case code. This module also holds what every reporter does the same way
whatever prints it: the one-line summary and the rule that any error fails the run
(`verdict`). The click printing lives in `kbtools.commands.output.report_findings`.

Imports only `kbtools.errors`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from kbtools.errors import FindingsError, plural

LEVELS = ("error", "warning")


@dataclass(frozen=True)
class Finding:
    path: str  # posix, relative to the repo root
    line: int
    col: int
    level: str  # "error" | "warning"
    code: str  # stable kebab-case identifier
    message: str

    def format(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.level}: {self.code}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sort_key(self) -> tuple[str, int, int, str, str, str]:
        return (self.path, self.line, self.col, self.code, self.level, self.message)


MAX_MESSAGE_CHARS = 1000


def finding(path: str, line: int, col: int, level: str, code: str, message: str) -> Finding:
    """A Finding safe to print: one line of at most MAX_MESSAGE_CHARS, no undecodable
    characters (a message quoting a 300k-character table header is cut, not printed)."""
    text = " ".join(str(message)[: 4 * MAX_MESSAGE_CHARS].split())
    if not text.isprintable():  # control / bidi characters from the document: show escaped
        text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 1] + "…"
    return Finding(one_line_path(path), max(int(line), 1), max(int(col), 1), level, code, text)


def one_line_path(path: str) -> str:
    """`display_path(path)` with the characters that would end or break its line (control
    characters, U+2028/U+2029) escaped: a file named `a<newline>b.md` is `a\\nb.md`. Other
    characters, a full-width space or CJK included, as they are."""
    shown = display_path(path)
    return "".join(repr(ch)[1:-1] if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch
                   for ch in shown)


def display_path(path: str) -> str:
    """`path` as printable UTF-8 (undecodable bytes of a file name become U+FFFD)."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Distinct findings in a fixed order: (path, line, col, code), then level and message.
    (The sort key holds every field, so equal keys are equal findings: deduplicated by key,
    without hashing dataclasses.)"""
    by_key = {f.sort_key(): f for f in findings}
    return [by_key[k] for k in sorted(by_key)]


# the human report shows this many findings of one code in one file (`report_lines`)
MAX_SHOWN_PER_CODE = 20


def report_lines(findings: list[Finding], listed_by: str) -> list[str]:
    """The lines of a human report of `findings`: each one's `format()`, in their order, but
    at most MAX_SHOWN_PER_CODE of one code in one file, the rest said in one line after that
    file's findings: `… and 4980 more fm-unknown-key in a.md (kb check --json lists them)`
    (`listed_by` names what does). Why: a document with 5,000 unknown front-matter keys
    printed 5,000 lines, burying every other file's findings; `--json` and the counts of the
    summary keep every finding."""
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    lines: list[str] = []
    for path, found in by_path.items():
        seen: dict[str, int] = {}
        for f in found:
            seen[f.code] = seen.get(f.code, 0) + 1
            if seen[f.code] <= MAX_SHOWN_PER_CODE:
                lines.append(f.format())
        lines += [f"… and {n - MAX_SHOWN_PER_CODE} more {code} in {path} ({listed_by} lists "
                  "them)" for code, n in sorted(seen.items()) if n > MAX_SHOWN_PER_CODE]
    return lines


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.level == "error" for f in findings)


def summary_line(findings: list[Finding], summary: str) -> str:
    """`summary` followed by the error and warning counts."""
    errors = sum(f.level == "error" for f in findings)
    return (f"{summary}, {plural(errors, 'error')}, "
            f"{plural(len(findings) - errors, 'warning')}")


def verdict(findings: list[Finding], summary: str) -> str:
    """The summary line of a run that passed; a FindingsError carrying it when any finding
    is an error (the CLI root prints it and exits 1)."""
    line = summary_line(findings, summary)
    if has_errors(findings):
        raise FindingsError(line)
    return line


__all__ = ["LEVELS", "MAX_SHOWN_PER_CODE", "Finding", "display_path", "finding", "has_errors",
           "report_lines", "sort_findings", "summary_line", "verdict"]
