"""A front matter's YAML syntax errors that an editor's habit causes: each finding says what
to write, and `kb check --fix` writes it where that is mechanical.

YAML names where it stopped reading ("mapping values are not allowed in this context"), not
the habit that stopped it. The habits, each read from the line it is on:

- Obsidian's inline tags in a flow list (`tags: [#迁飞性害虫, #水稻]`): a `#` there starts a
  comment (said, not fixed: which words are tags is the author's);
- Chinese input's full-width colon, or a no-break or ideographic space, after a key
  (`title：稻飞虱`): fixed to `: `;
- a quoted value holding its own quote (`title: 'Farmer's guide'`): fixed by quoting it
  with the other quote, unless it holds a ` #`;
- a quoted value left open on its line (`title: "液压泵维护`), which YAML reads on to the
  next such quote, stopping lines below, or to the end of the front matter (its last line
  too): fixed by closing it at the end of its line, unless it holds a ` #` (or, never
  closed, the line below it is indented: is it the value's?); a flow list of plain items
  left open (`tags: [水稻, 稻瘟病`) alike;
- a `: ` inside a plain value (`title: 注意: 断电后检修`): fixed by quoting the value, unless
  it holds a ` #` (is the rest a comment or the title's?), a tab, or opens with a YAML
  indicator (`[`, `{`, `&`, `*`, `!`, `|`, `>`, `%`, `@`, a backtick);
- a tab indenting a line: each tab indenting a front-matter line is fixed to two spaces,
  unless a line is indented by tabs and spaces both (how deep it was meant is the author's).

YAML stops at its first error, so one finding is made at a time; a second habit is found
once the first is mended, and fixed by the same `kb check --fix` (`fix._unread_front_matter`
checks such a document again). Edits are `kbtools.check.links.Edit`s, written with
the others by `kbtools.check.fix` (atomically, keeping the file's line endings and BOM).
"""

from __future__ import annotations

import re
import unicodedata

from kbtools.check.links import Edit
from kbtools.corpus import SourceDoc

Problem = tuple[str, int, int, str]  # (code, line, col, message), as `frontmatter`'s
FIXES = " (`kb check --fix` does)"
MAPPING = "mapping values are not allowed"  # YAML's message of a `: ` where none may be
INDICATORS = tuple("[{&*!|>%@`")  # a plain value opening with one is not one to quote
SEPARATORS = ("：", ":\u00a0", ":\u3000", ":\u202f")


def fm_lines(src: SourceDoc) -> list[tuple[int, str]]:
    """The front matter's lines with their numbers (the fences left out)."""
    if src.fm_end_line <= 1:
        return []
    lines = src.text.split("\n")
    return [(n, lines[n - 1]) for n in range(2, min(src.fm_end_line, len(lines) + 1))]


def syntax_problem(src: SourceDoc, line: int, col: int, message: str) -> Problem:
    """The finding of YAML's syntax error `message` at `line`, `col`: what to write when an
    editor's habit caused it, and whether `kb check --fix` writes it."""
    return syntax_check(src, line, col, message)[0]


def syntax_edits(src: SourceDoc) -> list[Edit]:
    """What `kb check --fix` writes for the YAML syntax errors of `src` (`syntax_check`)."""
    return [edit for e in src.errors if e.code == "yaml-syntax"
            for edit in syntax_check(src, e.line, e.col, e.message)[1]]


def syntax_check(src: SourceDoc, line: int, col: int,
                 message: str) -> tuple[Problem, list[Edit]]:
    """The finding of a YAML syntax error and the edits mending it (none when what to write
    is the author's call)."""
    lines = dict(fm_lines(src))
    for number, text in lines.items():
        if number > line:
            break
        at = _flow_comment(text)
        if at:
            key, _, value = text.partition(":")
            return ("yaml-syntax", number, at,
                    f"{key.strip()}: a '#' here starts a YAML comment, so the rest of the line "
                    f"is not read (Obsidian's #tag?): write the items without '#', "
                    f"[{', '.join(words(value))}] ({message})"), []
    for number, text in lines.items():
        if number > line:
            break
        sep = _odd_separator(text)
        if sep:
            key = text.partition(sep)[0]
            return ("yaml-syntax", number, len(key) + 1,
                    f"{key}: {unicodedata.name(sep[-1]).lower()} {sep[-1]!r} after the key, "
                    f"which YAML does not read as ': ': write {key}: "
                    f"{text.partition(sep)[2].strip()} ({message}){FIXES}"), \
                [Edit(number, len(key) + 1, sep, ": ")]
    opened = _open_quote(lines, line)
    if opened is not None:
        number, at, said, edits = opened
        return ("yaml-syntax", number, at, said + (FIXES if edits else "")), edits
    never = _never_closed(lines, line, col)
    if never is not None:
        said, edits = never
        return ("yaml-syntax", line, col, f"{message}: {said}" + (FIXES if edits else "")), \
            edits
    text = lines.get(line, "")
    requoted = _quote_inside(text, line)
    if requoted is not None:
        said, edit = requoted  # (not with a ` #`: is the rest a comment or the value's?)
        edits = [] if " #" in edit.old else [edit]
        return ("yaml-syntax", line, col, f"{message}: {said}" + (FIXES if edits else "")), \
            edits
    key, colon, value = text.partition(": ")
    if MAPPING in message and colon and ": " in value \
            and key.strip() and not key[:1].isspace() and value.strip()[:1] not in ("'", '"'):
        quoted = double_quoted(value.strip())
        plain = " #" not in value and "\t" not in value.strip() \
            and not value.strip().startswith(INDICATORS)
        at = len(text) - len(value.lstrip()) + 1
        edits = [Edit(line, at, value.strip(), quoted)] if plain else []
        return ("yaml-syntax", line, col, f"{message}: a ': ' inside the value of {key!r}; "
                f"quote the value: {key}: {quoted}" + (FIXES if edits else "")), edits
    if "\t" in text[:len(text) - len(text.lstrip())]:
        edits = _tab_edits(lines)
        return ("yaml-syntax", line, col, f"{message}: indent with spaces, not a tab"
                + (FIXES if edits else "")), edits
    if text[:1] == " " and colon and MAPPING in message \
            and lines.get(line - 1, " ")[:1] not in (" ", "-") \
            and lines.get(line - 1, "").rstrip()[-1:] != ":":
        edits = [Edit(line, 1, _indent(text), "")] if _stray(lines, line) else []
        return ("yaml-syntax", line, col, f"{message}: {key.strip()!r} is indented under a "
                f"key that has a value: start the line at its first column"
                + (FIXES if edits else "")), edits
    return ("yaml-syntax", line, col, message), []


def double_quoted(text: str) -> str:
    """`text` as a YAML double-quoted value (`\\` and `"` escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _tab_edits(lines: dict[int, str]) -> list[Edit]:
    """Each run of tabs indenting a front-matter line as two spaces a tab, or as nothing for
    a key no line above can hold (`_stray`); none when a line is indented by tabs and spaces
    both."""
    edits = []
    for number, text in lines.items():
        indent = _indent(text)
        if "\t" in indent and " " in indent:
            return []
        if indent.startswith("\t"):
            edits.append(Edit(number, 1, indent,
                              "" if _stray(lines, number) else "  " * len(indent)))
    return edits


def _indent(text: str) -> str:
    return text[:len(text) - len(text.lstrip(" \t"))]


# a key starting a line (`category:`, `valid_until: 2026`), not a list item or a comment
_KEY = re.compile(r"[^\s#\-:'\"][^:]*:(\s|$)")
# what opens a value continued on the lines below: a block scalar, an open flow collection
_OPENS = re.compile(r"[|>][-+0-9]*\s*(#.*)?|[\[{][^\]}]*")


def _stray(lines: dict[int, str], number: int) -> bool:
    """Whether front-matter line `number` is a key indented where no key may stand: the
    line above (blank lines passed over) is a top-level `key: value` whose value is written
    whole on it. YAML reads it as part of that value or refuses it; the author meant a key
    of its own, at the first column (Why: `--fix` made the tab of `\tcategory: 病害` two
    spaces, and the check then refused the spaces)."""
    if not _KEY.match(lines[number].lstrip(" \t")):
        return False
    above = next((lines[n] for n in range(number - 1, 0, -1)
                  if n in lines and lines[n].strip()), "")
    key, colon, value = above.partition(": ")
    return bool(colon and key.strip() and not _indent(above) and not key.startswith(("-", "#"))
                and value.strip() and not _OPENS.fullmatch(value.strip()))


def _quote_inside(text: str, line: int) -> tuple[str, Edit] | None:
    """What to write when a top-level key's quoted value holds its own quote, which ends it
    early (`title: 'Farmer's guide'`, `title: "say "hi""`), and the edit writing it on file
    line `line` (`text`); None when it does not."""
    key, _, value = text.partition(": ")
    value = value.strip()
    if not key.strip() or key[:1].isspace() or len(value) < 2 or value[0] not in "'\"":
        return None
    mark = value[0]
    inner = value[1:-1] if value.endswith(mark) else value[1:]
    if mark == "'" and "'" in inner.replace("''", ""):
        fixed = double_quoted(inner.replace("''", "'"))
    elif mark == '"' and '"' in inner.replace('\\"', ""):
        fixed = "'" + inner.replace('\\"', '"').replace("'", "''") + "'"
    else:
        return None
    return (f"the {mark} inside the value of {key.strip()!r} ends it early; "
            f"write {key.strip()}: {fixed}"), Edit(line, text.index(value) + 1, value, fixed)


def _open_quote(lines: dict[int, str],
                line: int) -> tuple[int, int, str, list[Edit]] | None:
    """A top-level key's quoted value left open on its line (`title: "液压泵维护`): YAML
    reads the value on over the lines below, to the next such quote, and stops on the line
    holding it (`line`, where it says "did not find expected key"). Its (line, column of the
    quote, what to write, the edit closing the quote at the end of its line), else None."""
    for number, text in lines.items():
        if number >= line:
            return None
        key, colon, value = text.partition(": ")
        value = value.strip()
        if not colon or not key.strip() or key[:1].isspace() or value[:1] not in ("'", '"'):
            continue
        if _closing_line(lines, number, text.index(value)) != line:
            continue
        mark = value[0]
        closed = value + mark
        edits = [] if " #" in value else [Edit(number, text.index(value) + 1, value, closed)]
        return number, text.index(value) + 1, (
            f"{key.strip()}: the {mark} opening the value is not closed on its line, so YAML "
            f"reads the lines below into it, to the {mark} on line {line}, and stops there: "
            f"end the value with {mark}, {key.strip()}: {closed}"), edits
    return None


def _never_closed(lines: dict[int, str], line: int, col: int) -> tuple[str, list[Edit]] | None:
    """A top-level key's quoted value (or flow list) opening at `col` of `line` and closed on no line
    below (YAML reads it to the end of the front matter, the front matter's last line
    included): what to write, and the edit closing it at the end of its line when the value
    is that line's alone (the line below is no continuation: none, or another key's) and
    holds no ` #` (a comment, or the value's?). None when the quote is not so."""
    text = lines.get(line, "")
    key, colon, value = text.partition(": ")
    value = value.strip()
    if not colon or not key.strip() or key[:1].isspace() or text.index(value) != col - 1:
        return None
    if value[:1] == "[":  # a flow list (`tags: [水稻, 稻瘟病`) of plain items on its line
        if any(mark in value for mark in "[]{}'\"" if mark != "[" or value.count("[") > 1):
            return None
        closed = value + "]"
    elif value[:1] not in ("'", '"') or _closing_line(lines, line, col - 1):
        return None
    else:
        closed = value + value[0]
    below = lines.get(line + 1)
    alone = below is None or (below.strip() != "" and not below[:1].isspace())
    return f"{key.strip()}: {closed}", \
        [Edit(line, col, value, closed)] if alone and " #" not in value else []


def _closing_line(lines: dict[int, str], number: int, at: int) -> int:
    """The front-matter line where the quoted value opening at `at` of line `number` is
    closed (its quote, not `\\"` nor `''`), 0 when it never is."""
    mark = lines[number][at]
    n, i = number, at + 1
    while n in lines:
        text = lines[n]
        while i < len(text):
            ch = text[i]
            if mark == '"' and ch == "\\":
                i += 2
                continue
            if ch == mark:
                if mark == "'" and text[i + 1:i + 2] == "'":
                    i += 2
                    continue
                return n
            i += 1
        n, i = n + 1, 0
    return 0


def _odd_separator(text: str) -> str:
    """How a top-level key of `text` is separated from its value when YAML does not read
    it as a key (Chinese input's full-width `：`, a no-break or ideographic space after
    `:`), "" when it is not so."""
    if text[:1].isspace() or ": " in text or text.rstrip().endswith(":"):
        return ""
    for sep in SEPARATORS:
        key = text.partition(sep)[0]
        if sep in text and key and " " not in key and "：" not in key:
            return sep
    return ""


def _flow_comment(text: str) -> int:
    """The column of a `#` right after a flow list's `[` or `,` on a front-matter line
    (outside quotes), 0 when there is none."""
    before, quote = "", ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and before in ("[", ","):
            return i + 1
        elif not ch.isspace():
            before = ch
    return 0


def words(written: str) -> list[str]:
    """The words of an Obsidian tag line (`#迁飞性害虫 #水稻`, `[#a, #b]`), without `#`."""
    for mark in "[],，":
        written = written.replace(mark, " ")
    return [w.strip("#") for w in written.split() if w.strip("#")]
