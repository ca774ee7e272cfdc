"""What `kb check --fix` writes for five findings, each only where it is unambiguous:

- `heading-no-space`: `##安装` -> `## 安装` (the heading the line was meant to be, as the
  warning says; a tag or a number, `#3机组`, is no warning and no edit);
- `link-space`: the spaces in a link's or image's path percent-encoded,
  `![泵](泵 外观.png)` -> `![泵](泵%20外观.png)`; not when the path holds a `%` already (is
  `%20` a space or a file's name?), a tab (a space meant? no file's name has one) or its
  `#anchor` a space (no heading's anchor has one);
- `fm-unknown-key` of a key written in another case or with another separator than the
  schema's (`Title:`, `TITLE:`, `Valid-Until:`, `fault codes:`): renamed to the schema's
  (`title:`), unless that would repeat a key (`Tags:` beside `tags:`, `Title:` beside
  `TITLE:`: which value is meant is the author's call) or the key is quoted;
- `fm-missing` of a front matter block below line 1: the blank lines, spaces or invisible
  characters above its `---` deleted, when what its fences hold is a YAML mapping (a
  Markdown rule, `---`, above text is left alone).

- `html-swallows-markdown`: a blank line above the Markdown an HTML block swallows, where
  the block stands at top level and the line above that Markdown closes its tag
  (`kbtools.markdown.swallowed`).

The edits are `kbtools.check.links.Edit`s, written by `kbtools.check.fix` with the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kbtools.check.links import Edit
from kbtools.corpus import END_FENCE, FENCE, SourceDoc, load_yaml

# `#`s and what follows them at once (linear: one run of `#`, then the rest of the line)
_HASHED = re.compile(r"(#{1,6})([^\s#].*)")
# what an editor may leave, unseen, above a front matter (a second byte-order mark, a
# zero-width space or joiner, a word joiner)
INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060"


def spaced_heading(text: str) -> str | None:
    """The heading a paragraph's line written as one without the space after its `#`s was
    meant to be (`##安装` -> `## 安装`); None when it is none: no `#`s opening a word, or one
    `#` before a digit (`#3机组`) or before words that are all Obsidian tags (`#待办 #液压`)."""
    m = _HASHED.fullmatch(text.rstrip())
    if m is None or len(m.group(1)) == 1 and (m.group(2)[0].isdigit() or all(
            word.startswith("#") for word in text.split()[1:])):
        return None
    return f"{m.group(1)} {m.group(2)}"


def encoded_path(path: str) -> str | None:
    """`path` (a link's or image's, holding a space) with its spaces percent-encoded; None
    when that is ambiguous: a `%` or a tab in it, or a space in its anchor."""
    if "%" in path or "\t" in path or " " in path.partition("#")[2]:
        return None
    return path.replace(" ", "%20")


def misplaced_block(text: str) -> tuple[int, str, int] | None:
    """A front matter block that does not begin `text` as (index of its `---` line, what
    stands before the `---` on it: spaces or invisible characters, index of its closing
    line); None when there is none: the first line holding more than whitespace and
    invisible characters opens no block that closes. Read as text, as GitHub, Obsidian and
    Typora read it."""
    lines = text.split("\n")
    first = next((n for n, line in enumerate(lines) if line.strip(INVISIBLE).strip()), None)
    if first is None:
        return None
    fence = lines[first]
    prefix = fence[:len(fence) - len(fence.lstrip(INVISIBLE + " \t"))]
    if not FENCE.match(fence[len(prefix):]):
        return None
    end = next((n for n in range(first + 1, len(lines)) if END_FENCE.match(lines[n])), None)
    if end is None or not (first or prefix):
        return None
    return first, prefix, end


def misplaced_edit(text: str) -> Edit | None:
    """The edit deleting what stands above a front matter block below line 1 of `text` (a
    multi-line `old`: the blank lines and the `---` line's prefix), when its fences hold a
    YAML mapping; else None."""
    block = misplaced_block(text)
    if block is None:
        return None
    first, prefix, end = block
    lines = text.split("\n")
    data, _, errors = load_yaml("\n".join(lines[first + 1:end]), first + 2)
    if errors or not isinstance(data, dict) or not data:
        return None
    return Edit(1, 1, "".join(line + "\n" for line in lines[:first]) + prefix, "")


def scan_edits(hash_lines: Iterable[tuple[int, str]],
               spaced: Iterable[tuple[int, int, str, str]]) -> list[Edit]:
    """The edits of `heading-no-space` (a scan's `hash_lines`) and `link-space` (its
    `spaced`: line, column, as written, path). A line written as a heading with a link on it
    is one edit, of the whole line: the heading's edit holds the link's."""
    links: dict[int, list[Edit]] = {}
    for line, col, written, path in spaced:
        new_path = encoded_path(path)
        at = written.find(path, written.index("](") + 2)
        if new_path is not None and at >= 0:
            links.setdefault(line, []).append(Edit(line, col, written, written[:at] + new_path
                                                   + written[at + len(path):]))
    edits = []
    for line, text in hash_lines:
        old = text.rstrip()
        if spaced_heading(old) is None:
            continue
        new = old
        for link in sorted(links.pop(line, ()), key=lambda e: -e.col):  # right to left
            if new[link.col - 1:link.col - 1 + len(link.old)] == link.old:
                new = new[:link.col - 1] + link.new + new[link.col - 1 + len(link.old):]
        edits.append(Edit(line, 1, old, spaced_heading(new) or new))
    return edits + [edit for line_edits in links.values() for edit in line_edits]


def blank_line_edits(swallowed: Iterable[tuple[int, int, int, tuple[int, ...]]],
                     text: str) -> list[Edit]:
    """The edits of `html-swallows-markdown` (a scan's `swallowed`: line, the HTML block's
    first line, the line to insert a blank line above or 0, its lines): a line break
    written before that line, so the HTML block ends above it and its Markdown is read."""
    lines = text.split("\n")
    out = []
    for _, _, fix, _ in swallowed:
        written = lines[fix - 1].rstrip("\r") if 0 < fix <= len(lines) else ""
        if written:
            out.append(Edit(fix, 1, written, "\n" + written))
    return out


def key_spelling(key: str) -> str:
    """A front matter key as the schema would spell it: case folded, each run of `-` and
    spaces an `_` (`TITLE`, `Valid-Until` and `fault codes` are `title`, `valid_until`,
    `fault_codes`)."""
    return "_".join(key.replace("-", " ").split()).casefold()


def key_renames(src: SourceDoc, typos: dict[str, str],
                meant: frozenset[str] = frozenset()) -> dict[str, Edit]:
    """The edits renaming each unknown top-level key of `src` whose "did you mean" (`typos`:
    unknown key -> the known key closest, or "") is the key spelt as the schema spells it,
    or that `meant` names (another name of that key, its value fit for it), by the unknown
    key. None where the known key is written already, two keys would become it, or the key is not written plainly at the start of its line (quoted, `? key`)."""
    lines = src.text.split("\n")
    becoming: dict[str, list[str]] = {}
    for key, close in typos.items():
        if close and (key_spelling(str(key)) == close or str(key) in meant) \
                and close not in src.meta:
            becoming.setdefault(close, []).append(str(key))
    out = {}
    for close, keys in becoming.items():
        line = src.key_lines.get(keys[0], 0)
        text = lines[line - 1] if len(keys) == 1 and 0 < line <= len(lines) else ""
        if text.startswith(keys[0]) and text[len(keys[0]):].lstrip(" \t").startswith(":"):
            out[keys[0]] = Edit(line, 1, keys[0], close)
    return out
