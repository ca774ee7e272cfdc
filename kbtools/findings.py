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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from kbtools.errors import FindingsError, KbError, plural

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


def here_prefix(root: Path) -> str:
    """`root` from the current directory with a final `/` when it lies below it, else ""."""
    try:
        prefix = root.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (OSError, ValueError):  # not below the current directory
        return ""
    return "" if prefix == "." else prefix + "/"


def named_as_findings(path: str, root: Path) -> str:
    """A file of the knowledge base at `root` (kb.toml, a schema) named as its findings name
    documents: from the current directory when that lies at or above `root`
    (`docs/kb/kb.toml` from a monorepo's root), from `root` when the current directory lies
    inside it (`kb.toml` from `knowledge/`, as `knowledge/a.md` is named there); from
    anywhere else, or when it is no file of `root`, `path` unchanged (absolute). Why: kb.toml
    was named by its absolute path (`/home/…/kb/kb.toml:4: …`) by every command while the
    findings beside it read `knowledge/a.md:3:1: …`."""
    given = Path(path)
    if not given.is_absolute():
        return path
    try:
        here, real_root = Path.cwd().resolve(), root.resolve()
    except OSError:  # the current directory deleted under us
        return path
    if not (real_root.is_relative_to(here) or here.is_relative_to(real_root)):
        return path
    for base in (root, real_root):
        if given.is_relative_to(base):
            return here_prefix(root) + given.relative_to(base).as_posix()
    return path


def error_named_as_findings(exc: KbError, root: Path) -> KbError:
    """`exc` with its file, when it is one of the knowledge base at `root`, named as
    `named_as_findings` names it (its message said again with that name)."""
    if exc.path:
        shown = named_as_findings(exc.path, root)
        if shown != exc.path:
            exc.path = shown
            exc.args = (exc.format(),)
    return exc


# the human report shows this many findings of one code in one file (`report_lines`)
MAX_SHOWN_PER_CODE = 20


class Reported(Protocol):
    """What a bounded report lists (`bounded_lines`): a `Finding`, a `kb check --fix` change."""

    @property
    def path(self) -> str: ...

    def format(self) -> str: ...


R = TypeVar("R", bound=Reported)


def bounded_lines(items: Sequence[R], kind: Callable[[R], str], listed_by: str) -> list[str]:
    """Each item's `format()`, in their order, but at most MAX_SHOWN_PER_CODE of one `kind`
    in one file, the rest said in one line after that file's:
    `… and 4980 more fm-unknown-key in a.md (kb check --json lists them)` (`listed_by` says
    what lists them)."""
    by_path: dict[str, list[R]] = {}
    for item in items:
        by_path.setdefault(item.path, []).append(item)
    lines: list[str] = []
    for path, found in by_path.items():
        seen: dict[str, int] = {}
        for item in found:
            k = kind(item)
            seen[k] = seen.get(k, 0) + 1
            if seen[k] <= MAX_SHOWN_PER_CODE:
                lines.append(item.format())
        lines += [f"… and {n - MAX_SHOWN_PER_CODE} more {k} in {path} ({listed_by})"
                  for k, n in sorted(seen.items()) if n > MAX_SHOWN_PER_CODE]
    return lines


def report_lines(findings: list[Finding], listed_by: str) -> list[str]:
    """The lines of a human report of `findings` (`bounded_lines`, by code): a document with
    5,000 unknown front-matter keys printed 5,000 lines, burying every other file's
    findings; `--json` and the counts of the summary keep every finding."""
    return bounded_lines(findings, lambda f: f.code, f"{listed_by} lists them")


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


__all__ = ["LEVELS", "MAX_SHOWN_PER_CODE", "Finding", "Reported", "bounded_lines",
           "display_path", "error_named_as_findings", "finding", "has_errors", "here_prefix",
           "named_as_findings", "report_lines", "sort_findings", "summary_line", "verdict"]
