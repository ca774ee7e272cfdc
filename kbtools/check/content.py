"""Content rules: file-level sanity (size, binary, encoding), math, table shape, CSV names.

Each function returns Problems `(code, level, line, col, message)`; the package turns them
into Findings. New content checks plug in via `kbtools.check.engine.CONTENT_CHECKS`.
"""

from __future__ import annotations

import bisect
import codecs
import re
from collections.abc import Callable, Iterable, Sequence

from kbtools.check.formula_gaps import Gap
from kbtools.check.mend import encoded_path, spaced_heading
from kbtools.corpus import wide_encoding, wide_message
from kbtools.errors import bidi_control
from kbtools.markdown.frontend import Scan
from kbtools.render.latex_allow import inline_problem
from kbtools.render.table_csv import annotated_file_name, name_key, unsafe_name

Problem = tuple[str, str, int, int, str]  # code, level, line, col, message

# kb.toml [check] max_table_rows: a Markdown table with more body rows is `table-large`
DEFAULT_MAX_TABLE_ROWS = 1000


def _blank(raw: bytes) -> bool:
    """Nothing a reader sees: no bytes, or only whitespace (Unicode's too: an ideographic
    or no-break space) after a UTF-8 byte-order mark, if any."""
    stripped = raw.strip()
    if not stripped or stripped[0] < 0x80:  # an ASCII character: not blank
        return not stripped
    try:
        return not stripped.removeprefix(codecs.BOM_UTF8).decode("utf-8").strip()
    except UnicodeDecodeError:
        return False


def raw_problems(raw: bytes, max_bytes: int) -> tuple[list[Problem], bool]:
    """Problems visible in the bytes. Returns (problems, keep_checking). (The size limit is
    enforced while reading, by `kbtools.corpus.read_source`; this is for bytes from elsewhere.)"""
    if len(raw) > max_bytes:
        return [("file-too-large", "error", 1, 1,
                 f"file is {len(raw):,} bytes; the limit is {max_bytes:,} "
                 "(split it into several documents)")], False
    if _blank(raw):
        return [("file-empty", "error", 1, 1, "file is empty" if not raw else
                 "file is empty (only whitespace or a byte-order mark): write the document "
                 "or delete the file")], False
    wide = wide_encoding(raw)
    if wide is not None:
        return [("encoding-utf16", "error", 1, 1, wide_message(wide))], False
    if b"\x00" in raw:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return [("file-binary", "error", 1, 1,
                     "file contains NUL bytes: binary data, not Markdown")], False
        line = text.count("\n", 0, text.index("\x00")) + 1
        return [("file-nul", "error", line, 1, "UTF-8 text with NUL characters (U+0000) in it: "
                 "remove them")], True
    return [], True


# Chinese Windows encodings an editor may have saved a document in: (codec, how to say it)
LEGACY_ENCODINGS = (("gb18030", "GBK/GB18030 (Simplified Chinese Windows)"),
                    ("big5", "Big5 (Traditional Chinese Windows)"))


def legacy_encoding(raw: bytes) -> str | None:
    """How to name the Chinese legacy encoding `raw` (not UTF-8) was saved in: the whole of
    it decodes in that codec and most of what is not ASCII is Chinese; else None."""
    for codec, said in LEGACY_ENCODINGS:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        wide = [c for c in text if ord(c) > 0x7F]
        if wide and sum("\u4e00" <= c <= "\u9fff" or "\u3000" <= c <= "\u303f"
                        or "\uff00" <= c <= "\uffef" for c in wide) >= 0.8 * len(wide):
            return said
    return None


def encoding_problems(problems: list[str], text: str, legacy: str | None = None,
                      raw: bytes = b"") -> list[Problem]:
    """The findings of `decode`'s `problems`; `legacy`: the Chinese encoding a file that is
    not UTF-8 looks saved in (`legacy_encoding`), named in its finding; `raw`: the file's
    bytes, whose line endings a file of mixed ones is told by (`line_endings`)."""
    out: list[Problem] = []
    if "not-utf8" in problems:
        line = next((i for i, ln in enumerate(text.split("\n"), 1) if "\ufffd" in ln), 1)
        col = text.split("\n")[line - 1].find("\ufffd") + 1 if line else 1
        said = (f"the file is saved as {legacy}, not UTF-8: save it as UTF-8 (e.g. `iconv -f "
                f"{legacy.split('/')[-1].split(' ')[0]} -t UTF-8`)" if legacy else
                "bytes that are not valid UTF-8 (save the file as UTF-8)")
        out.append(("encoding-not-utf8", "error", line, max(col, 1), said))
    if "bom" in problems:
        out.append(("encoding-bom", "warning", 1, 1,
                    "file starts with a UTF-8 byte-order mark: save it as UTF-8 without BOM "
                    "(`kb check --fix` removes it)"))
    if "crlf" in problems:
        out.append(("encoding-crlf", "warning", *line_endings(raw)))
    return out


def line_endings(raw: bytes) -> tuple[int, int, str]:
    """(line, column, message) of the `encoding-crlf` warning of a file whose bytes are
    `raw`: at line 1 when every line ends so, else at the first line ending in CRLF or CR
    among lines ending in LF, with how many of each. Why: a file pasted together from two
    editors said "Windows (CRLF) or CR line endings" at line 1, which may well end in LF,
    and the editor showing it shows no difference."""
    crlf = raw.count(b"\r\n")
    cr = raw.count(b"\r") - crlf
    lf = raw.count(b"\n") - crlf
    if not lf or not crlf + cr:
        return 1, 1, "Windows (CRLF) or CR line endings; use LF (`kb check --fix` writes LF)"
    first = min(i for i in (raw.find(b"\r\n"), raw.find(b"\r")) if i >= 0)
    # a line ends at each LF and at each CR not before an LF, as `decode` reads it
    line = raw.count(b"\n", 0, first) + raw.count(b"\r", 0, first) \
        - raw.count(b"\r\n", 0, first) + 1
    said = ", ".join(f"{n} in {kind}" for n, kind in ((crlf, "CRLF"), (cr, "CR"), (lf, "LF"))
                     if n)
    return line, 1, (f"mixed line endings (lines ending {said}), the first not in LF here: "
                     "save the file with LF line endings (`kb check --fix` writes LF)")


def bidi_problems(text: str, fm_end_line: int, heading_lines: Iterable[int]) -> list[Problem]:
    """A bidirectional control character (`errors.BIDI_CONTROLS`) on a line of the file
    `text`: an error in the front matter (a title) and in a heading, where a reader trusts
    what the text shows; a warning in the text (prose in a right-to-left script may use
    the isolates; a reviewer should still see that a line shows in another order)."""
    headings = set(heading_lines)
    out: list[Problem] = []
    for n, line in enumerate(text.split("\n"), 1):
        found = bidi_control(line)
        if found is None:
            continue
        where = ("the front matter" if n <= fm_end_line else
                 "a heading" if n in headings else "the text")
        out.append(("text-bidi", "warning" if where == "the text" else "error", n, found[0] + 1,
                    f"bidirectional control character {found[1]} in {where}: the line shows "
                    "in another order than it is written (Trojan Source); delete it"))
    return out


# Git's conflict markers: seven of one character at a line's start, `<<<<<<< HEAD`, a
# `=======` line, `>>>>>>> branch` (and diff3's `||||||| base`)
_OURS = re.compile(r"<{7}(?: .*)?")
_SPLIT = re.compile(r"={7}[ \t]*")
_THEIRS = re.compile(r">{7}(?: .*)?")


def conflict_problems(text: str, fenced: Iterable[tuple[int, int]]) -> list[Problem]:
    """`merge-conflict` at each `<<<<<<<` line followed by a `=======` and a `>>>>>>>` line,
    unless all three lie in one fenced code block (`fenced`: its first and last lines, from
    the document's parse): a document may show a conflict there. Why: a merge whose conflict
    was "marked as resolved" in a Git app, or `git add`ed unedited, committed both sides
    and the markers; the hook passed it (`=======` under a line makes that line a heading),
    and the release served both versions of the passage. A conflict whose sides open a
    fence each is no example: Git wrote its markers around the fence."""
    out: list[Problem] = []
    if "<<<<<<<" not in text:  # nearly every document: no line to read
        return out
    blocks = sorted(fenced)
    starts = [first for first, _ in blocks]

    def block(line: int) -> int | None:
        at = bisect.bisect_right(starts, line) - 1
        return at if at >= 0 and blocks[at][1] >= line else None

    start: int | None = None
    split: int | None = None
    for n, line in enumerate(text.split("\n"), 1):
        if _OURS.fullmatch(line):
            start, split = n, None
        elif start is not None and _SPLIT.fullmatch(line):
            split = n
        elif start is not None and split is not None and _THEIRS.fullmatch(line):
            if block(start) is None or not block(start) == block(split) == block(n):
                out.append(("merge-conflict", "error", start, 1,
                            f"a merge conflict left unresolved: Git's markers from line "
                            f"{start} to line {n} hold both sides; keep the text you want, "
                            "delete the marker lines, then git add the file"))
            start, split = None, None
    return out


def body_problems(body: str, body_line: int, has_front_matter: bool) -> list[Problem]:
    if has_front_matter and not body.strip():
        return [("body-empty", "error", body_line, 1,
                 "document has front matter but no content")]
    return []


# markdownlint's names of its MD001 rule, which `heading-skip` is (`heading_skips`)
MD001 = frozenset({"md001", "heading-increment", "header-increment"})


def rule_off(lint: list[tuple[int, str]], names: frozenset[str]) -> Callable[[int], bool]:
    """Whether the markdownlint rule of `names` is turned off at a line, by the
    `<!-- markdownlint-… -->` comments `lint` holds (`(line, body)` in order), as
    markdownlint reads them: `disable`/`enable` from their line on, `disable-file`/
    `enable-file` for the whole file (the last one wins), `disable-line` on its line,
    `disable-next-line` on the line after it, `capture`/`restore` saving and restoring the
    state; a directive naming no rule names them all."""
    whole = False  # off in the whole file (the last `…-file` directive naming the rule)
    spans: list[tuple[int, bool]] = []  # (line, off from there on)
    lines: set[int] = set()
    state, saved = False, False
    for line, body in lint:
        action, *rules = body.split()
        named = not rules or any(rule.lower() in names for rule in rules)
        action = action.lower().removeprefix("markdownlint-")
        if action == "capture":
            saved = state
        elif action == "restore":
            state = saved
            spans.append((line, state))
        elif not named:
            continue
        elif action in ("disable", "enable"):
            state = action == "disable"
            spans.append((line, state))
        elif action in ("disable-file", "enable-file"):
            whole = action == "disable-file"
        elif action in ("disable-line", "disable-next-line"):
            lines.add(line + (action == "disable-next-line"))

    def off(at: int) -> bool:
        if whole or at in lines:
            return True
        now = False
        for line, state in spans:
            if line > at:
                break
            now = state
        return now
    return off


def heading_skips(levels: list[tuple[int, int]],
                  lint: list[tuple[int, str]] | None = None) -> list[Problem]:
    """`heading-skip` for a heading more than one level below the one before it (`#` then
    `###`), at its (line, level). The document's title (front matter `title`, else its first
    `#`, else its file name) heads every heading path as level 1: a first heading may be a
    `#` or a `##`. Typora and Obsidian show any level; the heading path, the outline and
    screen readers then miss a level. Not where the author turned markdownlint's MD001
    (`heading-increment`, the same rule) off by a comment in the file (`lint`, `rule_off`):
    the levels are as meant there."""
    out: list[Problem] = []
    above = 1
    off = rule_off(lint or [], MD001)
    for line, level in levels:
        if level > above + 1 and not off(line):
            after = "the document's title (level 1)" if line == levels[0][0] \
                else f"a level-{above} heading ({'#' * above})"
            out.append(("heading-skip", "warning", line, 1,
                        f"heading level {level} ({'#' * level}) after {after}: expected level "
                        f"{above + 1} ({'#' * (above + 1)}) at most; a level is skipped in its "
                        "heading path and the outline (write it one level deeper than the "
                        "heading it belongs under)"))
        above = level
    return out


def hash_headings(lines: Iterable[tuple[int, str]]) -> list[Problem]:
    """`heading-no-space` at a paragraph's line written as a heading without the space after
    its `#`s (`##安装`): Typora outside strict mode shows a heading, CommonMark, GitHub,
    Obsidian and kbtools text. One `#` before a word alone (`#待办 #液压`) or a digit
    (`#3机组`) is an Obsidian tag or a number, not named (`kbtools.check.mend`, which makes
    the `--fix` edit)."""
    out: list[Problem] = []
    for line, text in lines:
        fixed = spaced_heading(text)
        if fixed is not None:
            out.append(("heading-no-space", "warning", line, 1,
                        f"{text.rstrip()!r} is no heading (a heading's #s are followed by a "
                        "space; Typora outside strict mode shows one, GitHub, Obsidian and "
                        f"kbtools text): write '{fixed}' (kb check --fix does)"))
    return out


def _no_alt_message(caption: str) -> str:
    """What `image-no-alt` says: of a picture alone, or of one whose HTML wrapper shows a
    caption beside it (Typora's `<center><img …><br>图 1 …</center>`, `<figcaption>`): search
    finds that one by its caption, but a screen reader still names no picture."""
    if not caption:
        return ("an image without alternative text: a screen reader says nothing of it and "
                "search finds no words for it; say what it shows "
                "(![病穗症状](x.png), <img alt=\"病穗症状\">; alt=\"\" for a decoration)")
    shown = caption if len(caption) <= 40 else caption[:39] + "…"
    return (f"a picture captioned {shown!r} has no alternative text: search finds it by its "
            "caption, but a screen reader names no picture (the caption is text beside it, "
            "not its description); write what it shows as alt in its <img> tag, "
            "<img alt=\"…\" src=…>, and keep the caption")


def lines_said(lines: Sequence[int]) -> str:
    """Line numbers as a reader reads them: `[4, 5, 6, 9]` -> "lines 4-6 and 9"."""
    runs: list[list[int]] = []
    for n in sorted(set(lines)):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    said = [f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs]
    if len(runs) == 1 and len(runs[0]) == 1:
        return f"line {said[0]}"
    return "lines " + (f"{', '.join(said[:-1])} and {said[-1]}" if len(said) > 1 else said[0])


def _swallowed_message(line: int, opener: int, fix: int, lines: Sequence[int]) -> str:
    """What `html-swallows-markdown` says of an HTML block opened on line `opener` that
    holds Markdown on `lines` (`line` the first, where the finding stands): every line,
    then why, and what to do (`fix`: the line a blank line above frees, 0 when that is not
    safe to write): write the line's own Markdown as HTML when it stands between the tags of
    the opening line, else a blank line above it."""
    where = "on this line" if len(lines) < 2 else f"on {lines_said(lines)}"
    why = (f"the line {opener} opens with an HTML tag, which makes an HTML block down to the "
           "next blank line")
    if line == opener:
        why = why if len(lines) > 1 else "the line opens with an HTML tag"
        todo = ("write the picture as <img src=… alt=…> (a link as <a href=…>), or the "
                "Markdown on a line of its own with a blank line above it")
    else:
        todo = (f"insert a blank line above line {fix or line}"
                f"{'; kb check --fix inserts it' if fix else ''}")
    return (f"Markdown {where} is raw HTML: {why}, so its pictures and links are never "
            f"checked or shipped and its Markdown shows as written (GitHub too); {todo}")


def _spaced_problem(line: int, col: int, written: str, path: str) -> Problem:
    """`link-space` for a link or image left as text by a space in its path."""
    what = "image" if written.startswith("!") else "link"
    fix = "; kb check --fix writes the first" if encoded_path(path) is not None else ""
    return ("link-space", "warning", line, col,
            f"{written!r} is no {what} (a space in its path; Typora shows one, GitHub, "
            f"Obsidian and kbtools text: never checked or shipped): write "
            f"'{path.replace(' ', '%20').replace(chr(9), '%09')}' (or '<{path}>'){fix}")


def scan_problems(scan: Scan, latex_problem: Callable[[str], str | None] | None,
                  max_table_rows: int = DEFAULT_MAX_TABLE_ROWS,
                  gaps: Iterable[Gap] = ()) -> list[Problem]:
    """The findings of a document's scan; `gaps`: its formulas split by blank lines, each
    one finding at its opening `$$` instead of two stray ones."""
    out: list[Problem] = []
    for line, marker in scan.unclosed_fences:
        out.append(("code-unclosed", "warning", line, 1,
                    f"the code block opened with {marker!r} is never closed: everything after "
                    f"it, headings and tables too, is read as code (close it with {marker!r})"))
    for line in scan.html_tables:
        out.append(("html-table", "warning", line, 1,
                    "an HTML <table>: devices show its HTML source, and search finds no table "
                    "in it (no rows, no CSV, no decision table); write it as a Markdown pipe "
                    "table (| a | b |), a merged cell's value in each row it covers"))
    for line, opener, fix, lines in scan.swallowed:
        out.append(("html-swallows-markdown", "warning", line, 1,
                    _swallowed_message(line, opener, fix, lines)))
    for line in scan.open_comments:
        out.append(("html-comment-unclosed", "warning", line, 1,
                    "an HTML comment `<!--` never closed: everything after it, to the end of "
                    "the document (or of its list item or quote), is one comment: GitHub and "
                    "Typora show none of it, and its headings, links and pictures are not "
                    "read; close it with `-->`"))
    for line, col in scan.comments:
        out.append(("obsidian-comment", "warning", line, col,
                    "an Obsidian %% comment never closed (or closed by a %% with text after it "
                    "on its line): kbtools keeps it as text, so devices show it and search "
                    "finds it; close it with %% (a comment over several lines: %% ending a "
                    "line), or write \\%% for a literal %%"))
    for line, col, caption in scan.images_no_alt:
        out.append(("image-no-alt", "warning", line, col, _no_alt_message(caption)))
    for line, col, label in scan.notes_undefined:
        out.append(("footnote-undefined", "error", line, col,
                    f"footnote [^{label}] has no definition: every viewer shows '[^{label}]' as "
                    f"text; add a line '[^{label}]: …' (the note) or fix the label"))
    for line, label in scan.notes_unused:
        out.append(("footnote-unused", "warning", line, 1,
                    f"footnote definition [^{label}] is never referenced: no reader reaches "
                    f"it; write [^{label}] where the note belongs or delete the definition"))
    out.extend(heading_skips(scan.heading_levels, scan.lint))
    out.extend(hash_headings(scan.hash_lines))
    out.extend(_spaced_problem(*spaced) for spaced in scan.spaced)
    split = {gap.opener: gap for gap in gaps}
    paired = {gap.closer for gap in split.values()}
    for line, col in scan.stray_dollars:
        if line in split:
            out.append(("math-unbalanced", "error", line, col, split[line].message()))
            continue
        if line in paired:
            continue
        out.append(("math-unbalanced", "error", line, col,
                    "'$$' without a matching '$$' (math block not closed): add a line $$ where "
                    "the formula ends (or write \\$\\$ for two dollar signs)"))
    if latex_problem is not None:
        for line, col, latex, display in scan.math:
            try:
                problem = latex_problem(latex) or (None if display else inline_problem(latex))
            except Exception as exc:  # a plug-in must never crash the check
                problem = f"formula check failed: {type(exc).__name__}"
            if problem:
                out.append(("math-invalid", "error", line, col, problem))
    for line, value in scan.csv_names:
        name = annotated_file_name(value)
        problem = unsafe_name(name) if name is not None else None
        if problem is not None:  # the build refuses it (`render_tables`, the same rule)
            out.append(("table-csv-name", "error", line, 1, problem))
    piped = _piped(scan.wikilinks)
    for table in scan.tables:
        if len(table.rows) > max_table_rows:
            out.append(("table-large", "warning", table.line, 1,
                        f"a table of {len(table.rows):,} rows (over [check] max_table_rows, "
                        f"{max_table_rows:,}): each row is a passage of its own to embed and "
                        "search, and the page is too long to read or review; keep data this "
                        "size as a CSV file in assets/ (kept in Git, not shipped to devices) and "
                        "write here the rows readers look up, or raise max_table_rows in kb.toml "
                        "if every row should be found"))
        for line, cells in table.rows:
            if line in table.text_rows:  # a sentence written right after the table
                out.append(("table-cells" if cells != table.header_cells else "table-text-row",
                            "error" if cells != table.header_cells else "warning", line, 1,
                            f"this line has no '|' but Markdown reads it as one more row of "
                            f"the table above (line {table.line}), which only a blank line "
                            "ends: put a blank line between the table and the text"))
            elif cells != table.header_cells:
                out.append(("table-cells", "error", line, 1,
                            f"table row has {_cells(cells)}, the header (line {table.line}) "
                            f"has {_cells(table.header_cells)}: "
                            f"{piped.get(line) or _mend(cells, table.header_cells)}"))
    out.extend(("table-unread", "warning", line, 1, why) for line, why in scan.unread_tables)
    return out


def _piped(wikilinks: list[tuple[int, int, str]]) -> dict[int, str]:
    """line -> what `table-cells` says of the first wikilink there whose `|` ends its table
    cell (`[[pump|泵]]`, `Scan.wikilinks`; one written `\\|` in a cell is whole)."""
    out: dict[int, str] = {}
    for line, _, raw in wikilinks:
        if "|" in raw.replace("\\|", "") and line not in out:
            escaped = raw.replace("|", "\\|")
            out[line] = (f"the '|' of the wikilink {raw} ends its cell (in Obsidian too): write "
                         f"it {escaped}, or the standard link kb check --fix writes")
    return out


def _cells(n: int) -> str:
    return f"{n} cell" if n == 1 else f"{n} cells"


def _mend(cells: int, header: int) -> str:
    """What to do of a row of `cells` cells under a header of `header`: an empty cell
    stands for a merged one (the value repeated reads best: each row is a passage)."""
    if cells < header:
        return (f"add {_cells(header - cells).replace('cell', 'empty cell')} ('| |'), or "
                "repeat a merged cell's value")
    return (f"remove {_cells(cells - header)}, or write a '|' inside a cell as '\\|'")


def duplicate_csv_names(names: Iterable[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """`(doc, line, annotation value)` -> `(doc, line, message)` for every name the build
    would write twice: `data` and `Data.csv` are one file (".csv" added, `name_key`)."""
    first: dict[str, tuple[str, int]] = {}
    out = []
    for doc, line, value in sorted(names):
        name = annotated_file_name(value)
        if name is None or unsafe_name(name) is not None:  # no file, or reported already
            continue
        key = name_key(name)  # a.csv and A.csv collide on case-insensitive disks
        if key in first:
            where = f"{first[key][0]}:{first[key][1]}"
            out.append((doc, line, f"CSV name {name!r} is already used at {where}"))
        else:
            first[key] = (doc, line)
    return out
