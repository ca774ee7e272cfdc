"""`kb check --fix`: apply the mechanical repairs found by the checks (paths, wikilinks, YAML 1.1
values, `kbtools.check.mend`'s), atomically.

A file `encoding-bom` or `encoding-crlf` is reported of (a file saved on Windows) is then
written without its UTF-8 byte-order mark and with LF line endings (`plain_file`), one
more atomic replace; a file of neither, or not UTF-8, is never touched by it.

A document's edits are written together, in one atomic replace, or not at all: when the
old text of any is no longer where the check saw it (the file changed since), nothing of
it is written and one `not fixed` line says so. The rest of the file keeps its bytes (line
endings, BOM) unchanged. A document that is a symlink keeps
its link: the file it leads to is rewritten, when that file lies inside the repository;
otherwise nothing is written and one `not fixed` line says why.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from kbtools.check import anchors
from kbtools.check.anchors import SlugsOf
from kbtools.check.engine import CheckContext, DocResult, check_results
from kbtools.check.links import Edit
from kbtools.corpus import lf_newlines, read_source
from kbtools.errors import SourceError, StaleEdit
from kbtools.findings import Finding, bounded_lines, display_path
from kbtools.fsutil import atomic_write_bytes
from kbtools.linkscope import hidden_target, hidden_where, is_inside

BOM = b"\xef\xbb\xbf"
NEWLINE = re.compile(r"(\r\n|\r|\n)")


# an edit whose destination is not written as it reads (`Edit.old` "")
UNLOCATED = ("the destination is not written as it reads (a character reference such as "
             "`&#101;`, or an HTML attribute): write {!r} by hand")


@dataclass(frozen=True)
class Change:
    path: str  # repo-relative
    line: int
    col: int
    old: str
    new: str
    note: str = ""  # how it differs from what the check's finding said (`anchors.settle`)

    def format(self) -> str:
        note = f" ({self.note})" if self.note else ""
        # quoted when written over lines, or a line added (a blank line above Markdown an
        # HTML block swallowed), or deleted (the blank lines above a front matter),
        # or of tabs (those indenting a front matter's line)
        old, new = (repr(self.old), repr(self.new)) \
            if "\n" in self.old + self.new or not self.new or "\t" in self.old \
            else (self.old, self.new)
        return f"{self.path}:{self.line}:{self.col}: fixed: {old} -> {new}{note}"


@dataclass(frozen=True)
class NotFixed:
    """A document whose edits were not written, and why."""

    path: str  # repo-relative
    reason: str
    line: int = 1
    col: int = 1

    def format(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: not fixed: {self.reason}"


def fix_target(path: Path, root: Path | None) -> Path:
    """The file to rewrite for `path`: itself, or the file its symlinks lead to when that
    lies inside `root` and in no hidden entry there, `.git` (a symlink is never replaced by
    a file). Raises SourceError."""
    real = os.path.realpath(path)
    if real != os.path.abspath(path) and (
            root is None or not is_inside(real, os.path.realpath(root))):
        raise SourceError("path-symlink-escape",
                          "a symlink leading outside the repository; its target is not written")
    hidden = None if root is None else hidden_target(
        os.path.relpath(os.path.abspath(path), os.path.abspath(root)), real,
        os.path.realpath(root))
    if hidden is not None:  # `.git/config` through a committed link: never rewritten
        raise SourceError("path-symlink-escape", f"a symlink leading {hidden_where(hidden)}; "
                          "its target is not written")
    return Path(real)


def apply_edits(path: Path, edits: list[Edit], root: Path | None = None) -> list[Edit]:
    """Rewrite `path` with `edits` applied; returns the edits actually applied.

    The file is read as the checks read it (`read_source`: a regular file, inside `root`);
    a symlink's target is rewritten (`fix_target`). Raises SourceError when it may not be."""
    target = fix_target(path, root)
    raw = read_source(target, root, max_bytes=None)
    bom = raw.startswith(BOM)
    try:
        text = raw[3:].decode("utf-8") if bom else raw.decode("utf-8")
    except UnicodeDecodeError:
        return []  # never rewrite a file we cannot round-trip
    parts = NEWLINE.split(text)  # [line, sep, line, sep, ..., line]
    lines, seps = parts[0::2], parts[1::2]
    stale = next((e for e in edits if e.old and not _written_at(lines, e)), None)
    if stale is not None:  # changed since it was checked: no part of its fixes is written
        raise StaleEdit(stale.line, stale.col, stale.old)
    applied = []
    # from the end back, so the lines and columns of those still to write stay valid
    for edit in sorted(set(edits), key=lambda e: (e.line, e.col), reverse=True):
        if not edit.old or not _written_at(lines, edit):
            continue  # (an edit overlapping one written)
        idx, start, olds = edit.line - 1, edit.col - 1, edit.old.split("\n")
        last = idx + len(olds) - 1
        rest = lines[last][len(olds[-1]):] if last > idx else lines[idx][start + len(edit.old):]
        # a line break the edit writes is the file's, the one ending the line above (CRLF)
        new = edit.new.replace("\n", seps[idx - 1]) if idx and "\n" in edit.new else edit.new
        lines[idx:last + 1] = [lines[idx][:start] + new + rest]
        del seps[idx:last]  # the line breaks inside the old text
        applied.append(edit)
    if applied:
        data = "".join(line + sep for line, sep in zip(lines, [*seps, ""], strict=True)
                       ).encode("utf-8")
        atomic_write_bytes(target, (BOM + data) if bom else data)
    return sorted(applied, key=lambda e: (e.line, e.col))


def _written_at(lines: list[str], edit: Edit) -> bool:
    """Is `edit`'s old text at its line and column of `lines`? An old text over several lines
    (`\n` between them: `kbtools.check.mend.misplaced_edit`'s) is the rest of its first line,
    the whole of those between and the start of its last."""
    idx, start = edit.line - 1, edit.col - 1
    olds = edit.old.split("\n")
    if not (0 <= idx and idx + len(olds) <= len(lines)):
        return False
    if len(olds) == 1:
        return lines[idx][start:start + len(edit.old)] == edit.old
    return (lines[idx][start:] == olds[0] and lines[idx + len(olds) - 1].startswith(olds[-1])
            and lines[idx + 1:idx + len(olds) - 1] == olds[1:-1])


# the findings of a file saved on Windows that `plain_file` mends
PLAIN_CODES = ("encoding-bom", "encoding-crlf")


def plain_file(path: Path, root: Path | None, rel: str, codes: dict[str, int]) -> list[Change]:
    """Rewrite `path` (a symlink's target: `fix_target`) without its UTF-8 byte-order mark
    (`codes` has `encoding-bom`) and with LF line endings (`encoding-crlf`: CRLF and lone
    CR alike, as `decode` reads them), in one atomic replace; `rel`: its name in a change,
    said at the line of its finding (`codes`: each code's line, as checked).
    A file with neither, or that is not UTF-8, is left byte for byte. Raises SourceError.
    Why: `kb check` warned of both and said to save the file again; `--fix` left them."""
    target = fix_target(path, root)
    raw = read_source(target, root, max_bytes=None)
    bom = "encoding-bom" in codes and raw.startswith(BOM)
    body = raw[3:] if bom else raw
    crlf = "encoding-crlf" in codes and b"\r" in body
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return []  # never rewrite a file we cannot round-trip
    if not bom and not crlf:
        return []
    atomic_write_bytes(target, lf_newlines(body) if crlf else body)
    changes = [Change(rel, 1, 1, BOM.decode("utf-8"), "", "the UTF-8 byte-order mark")] \
        if bom else []
    if crlf:
        pairs, ends = body.count(b"\r\n"), body.count(b"\r")
        said = ", ".join(f"{n} {kind}" for n, kind in ((pairs, "CRLF"), (ends - pairs, "CR"))
                         if n)
        changes.append(Change(rel, codes["encoding-crlf"], 1, "\r\n" if pairs else "\r", "\n",
                              f"line endings written as LF: {said}"))
    return changes


def _plain_codes(findings: list[Finding]) -> dict[str, dict[str, int]]:
    """Each document's `PLAIN_CODES` among `findings` (those a commit would keep:
    `engine.committed_eol` has dropped the line endings Git converts), with their lines."""
    codes: dict[str, dict[str, int]] = {}
    for f in findings:
        if f.code in PLAIN_CODES:
            codes.setdefault(f.path, {})[f.code] = f.line
    return codes


def fix_results(results: list[DocResult], root: Path | None = None,
                slugs_of: SlugsOf | None = None,
                plain: dict[str, dict[str, int]] | None = None) -> list[Change | NotFixed]:
    """Apply every result's edits; `root`: the repository a document inside it (a relative
    `rel`) must stay in; `slugs_of`: the anchors of a document, which an edit's anchor must
    name (`anchors.settle`; None: not checked); `plain`: the `PLAIN_CODES` reported of each
    document (by `rel`), mended after its edits (`plain_file`). One `Change` per edit
    written, one `NotFixed` per document refused or edit that would link to no heading."""
    changes: list[Change | NotFixed] = []
    for res in results:
        changes.extend(_fix_result(res, root, slugs_of, (plain or {}).get(res.rel, {})))
    return sorted(changes, key=lambda c: (c.path, c.line, c.col))


def _fix_result(res: DocResult, root: Path | None, slugs_of: SlugsOf | None,
                plain: dict[str, int]) -> list[Change | NotFixed]:
    """The changes `fix_results` makes of one document."""
    changes: list[Change | NotFixed] = []
    inside = root if root is not None and not res.rel.startswith("/") else None
    shown = display_path(res.rel)
    edits, notes = [], {}
    for edit in res.edits:
        if edit.hint:  # a suggestion, never written
            continue
        settled, note = anchors.settle(edit, slugs_of, res.rel) if slugs_of else (edit, "")
        if settled is None:  # no note: no edit after all (`anchors.TITLE_ANCHOR`)
            changes.extend([NotFixed(shown, note, edit.line, edit.col)] if note else [])
            continue
        if not settled.old:
            changes.append(NotFixed(shown, UNLOCATED.format(settled.new), edit.line, edit.col))
            continue
        edits.append(settled)
        notes[settled] = note
    try:
        applied = apply_edits(res.path, edits, inside) if res.edits else []
        changes.extend(Change(shown, e.line, e.col, e.old, e.new, notes.get(e, ""))
                       for e in applied)
        if plain:
            changes.extend(plain_file(res.path, inside, shown, plain))
    except StaleEdit as exc:
        changes.append(NotFixed(shown, exc.message, exc.line or 1, exc.col))
    except SourceError as exc:
        changes.append(NotFixed(shown, exc.message))
    return changes


def fix_lines(changes: list[Change | NotFixed]) -> list[str]:
    """The lines `kb check --fix` prints of `changes`: each one's `format()`, but at most
    `MAX_SHOWN_PER_CODE` fixes, and as many not fixed, in one file, then one line saying how
    many more (`bounded_lines`). Why: a pasted export of 3,000 Windows paths printed 3,000
    `fixed:` lines, burying the `not fixed` ones and the findings after them; `--json`
    lists every change."""
    return bounded_lines(changes, lambda c: "fixes" if isinstance(c, Change) else "not fixed",
                         "--json lists every one")


def fix_paths(paths: list[Path], ctx_factory: Callable[[], CheckContext],
              jobs: int | None = 1) -> tuple[list[Change | NotFixed], list[DocResult],
                                             list[Finding]]:
    """Check, apply fixes, re-check with a fresh context. Returns (changes, results, findings):
    each change a `Change` written or a document `NotFixed`, printed with `.format()`."""
    ctx = ctx_factory()
    results, findings = check_results(paths, ctx, jobs)
    slugs_of = partial(anchors.read_slugs, known=ctx.slugs, root=ctx.root,
                       max_bytes=ctx.max_bytes)
    unread = _unread(results)
    changes = fix_results(results, ctx.root, slugs_of, _plain_codes(findings))
    if changes:
        results, findings = check_results(paths, ctx_factory(), jobs)
        changes, results, findings = _unread_front_matter(
            paths, ctx_factory, jobs, (changes, unread), (results, findings), (ctx.root, slugs_of))
        # a fix that wrote an `<img>` tag alone on a line (an Obsidian embed with a size,
        # `![[a.png|300]]`) swallows the Markdown under it: its blank line, in this run too
        gaps = [replace(r, edits=tuple(e for e in r.edits if e.new == "\n" + e.old))
                for r in results]
        if more := fix_results([r for r in gaps if r.edits], ctx.root):
            changes = sorted([*changes, *more], key=lambda c: (c.path, c.line, c.col))
            results, findings = check_results(paths, ctx_factory(), jobs)
    return changes, results, findings


# rounds of `--fix` a front matter YAML stopped reading is given (one syntax fix a round)
MAX_SYNTAX_ROUNDS = 16


def _unread_front_matter(paths: list[Path], ctx_factory: Callable[[], CheckContext],
                         jobs: int | None,
                         fixed_so_far: tuple[list[Change | NotFixed], set[str]],
                         checked: tuple[list[DocResult], list[Finding]],
                         where: tuple[Path | None, SlugsOf]
                         ) -> tuple[list[Change | NotFixed], list[DocResult], list[Finding]]:
    """Fix again each document whose front matter YAML stopped reading before a round that
    changed it (`unread`): YAML stops at its first error, so a second habit (a tab under a
    `title: a: b`), and what the front matter's values need (`verified: no`), are found
    only once the first is mended; one `kb check --fix` said "1 error" left, which the
    check had promised `--fix` writes. Each round writes the edits the document now has; a
    `not fixed` line already said is not said again."""
    (changes, unread), (results, findings), (root, slugs_of) = fixed_so_far, checked, where
    said = {(c.path, c.line, c.col, c.reason) for c in changes if isinstance(c, NotFixed)}
    for _ in range(MAX_SYNTAX_ROUNDS):
        fixed = {c.path for c in changes if isinstance(c, Change)} & unread
        again = [r for r in results if r.edits and display_path(r.rel) in fixed]
        more = [c for c in fix_results(again, root, slugs_of)
                if not (isinstance(c, NotFixed) and (c.path, c.line, c.col, c.reason) in said)]
        if not any(isinstance(c, Change) for c in more):
            break
        said |= {(c.path, c.line, c.col, c.reason) for c in more if isinstance(c, NotFixed)}
        changes = sorted([*changes, *more], key=lambda c: (c.path, c.line, c.col))
        unread = _unread(again)
        results, findings = check_results(paths, ctx_factory(), jobs)
    return changes, results, findings


def _unread(results: list[DocResult]) -> set[str]:
    """The documents (as a change names them) whose front matter YAML stopped reading."""
    return {display_path(r.rel) for r in results
            if any(f.code == "yaml-syntax" for f in r.findings)}

