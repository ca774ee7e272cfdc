"""A draft's text (`kbtools.agents.draft`): the title's slug, the front matter rendered
a field a line, the body's own front-matter block split off, text a document cannot hold
refused, and a line of the draft named as the line of the body the caller sent."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kbtools.corpus import parse_source
from kbtools.errors import UsageError, bidi_control, valid_unicode
from kbtools.review.verification import VERIFICATION_FIELDS

SLUG_MAX = 48


def argument_name(name: str) -> str:
    """How an error names an argument of `create_draft` to its caller: as the library and the
    MCP tool take it (the CLI passes its flags, `--location`)."""
    return f"the {name} argument"


CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def slugify(title: str) -> str:
    """ASCII slug from a title; non-ASCII titles get a short hash (CJK-safe, stable). Its
    letters and digits as NFKD reads them: typed full-width (`Ｐｕｍｐ　Ｐ－１０１`, as a Chinese
    input method types them) or accented (`Réglage`), they were dropped, and the branch
    and file were named by the hash alone (or `r-glage`)."""
    latin = unicodedata.normalize("NFKD", title).lower().encode("ascii", "ignore").decode()
    ascii_part = re.sub(r"[^a-z0-9]+", "-", latin)
    ascii_part = ascii_part.strip("-")[:SLUG_MAX].strip("-")
    if title.isascii() and ascii_part:
        return ascii_part
    digest = hashlib.sha256(title.encode("utf-8")).hexdigest()[:8]
    return f"{ascii_part}-{digest}" if ascii_part else digest


def yaml_scalar(value: Any) -> str:
    import yaml

    dumped = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True, width=10_000)
    dumped = dumped.strip().removesuffix("...").strip()
    if len(dumped.splitlines()) > 1:  # one line: every string double-quoted, breaks escaped
        dumped = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True,
                                default_style='"', width=10_000).strip()
    return dumped


def render_document(meta: dict[str, Any], body: str) -> str:
    """The document: `meta` as front matter, a line a field (the key quoted as YAML needs
    it, so a key holding a newline or a colon stays one key), then `body`."""
    lines = ["---"] + [f"{yaml_scalar(k)}: {yaml_scalar(v)}" for k, v in meta.items()]
    return "\n".join([*lines, "---", ""]) + body.strip("\n") + "\n"


def lines_said(meta: dict[str, Any], body: str, text: str) -> Callable[[int], str]:
    """How an error names line `n` of the draft `render_document(meta, text)` makes, to the
    caller who sent `body` (the draft's `text` after its own front matter, if any): a line
    of the text as the line of `body` it came from ("line 3 of the body (line 13 of the
    draft)"), a line of the front matter the call wrote as such. An agent was told "line
    13" of a document it never saw and looked for it in its three-line body."""
    first = len(meta) + 3  # ---, a line a field, ---: then the text, stripped of blank lines
    given = body.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")
    written = text.strip("\n")
    end = len(given.rstrip("\n"))
    at = end - len(written)
    body_at = given.count("\n", 0, at) + 1 if written and at >= 0 and given[at:end] == written \
        else None

    def said(n: int) -> str:
        if n < first:
            return f"line {n} of the draft's front matter"
        if body_at is None:
            return f"line {n}"
        return f"line {body_at + n - first} of the body (line {n} of the draft)"
    return said


# what shows a one-line value (a title, an author, a location) on two lines or drives a
# terminal: the C1 controls (NEL U+0085 among them, CSI U+009B) and Unicode's line and
# paragraph separators, which YAML escapes and every reader of the front matter gets back
ONE_LINE_BREAKS = "\u2028\u2029"


def check_text(name: str, value: str | None, *, multiline: bool) -> None:
    """Refuse text a document cannot hold: NUL and other control characters (a body keeps
    tabs and newlines; a one-line value no C1 control or line separator either,
    `ONE_LINE_BREAKS`), and undecodable bytes or lone surrogates (not valid UTF-8)."""
    if value is None:
        return
    if not isinstance(value, str):
        raise UsageError(f"draft {name} must be text, not {type(value).__name__}")
    if valid_unicode(value) != value:
        raise UsageError(f"draft {name} is not valid UTF-8 text (undecodable bytes or lone "
                         "surrogates)")
    allowed = "\t\n\r" if multiline else ""
    bad = next((ch for ch in value if ord(ch) < 32 and ch not in allowed or ch == "\x7f"
                or not multiline and (0x80 <= ord(ch) <= 0x9f or ch in ONE_LINE_BREAKS)), None)
    if bad is not None:
        raise UsageError(f"draft {name} contains the control character {bad!r}; "
                         + ("only tabs and newlines are allowed" if multiline
                            else "it must be one line of text"))
    if not multiline and (bidi := bidi_control(value)) is not None:
        # a title, author or location is shown as one line everywhere (file name, results,
        # citations): "\u202egnp.exe" would read as exe.png. A body may hold the isolates
        # of right-to-left prose; `kb check` warns of each line that does.
        raise UsageError(f"draft {name} contains the bidirectional control character "
                         f"{bidi[1]}, which shows the text in another order than it is "
                         "written; remove it")


BLANK_LINES = re.compile(r"(?:[ \t]*\n)*")  # the empty lines a body may open with


def split_body(body: str, argument: Callable[[str], str] = argument_name
               ) -> tuple[dict[str, Any], str]:
    """A body may bring its own front matter: keep its fields, drop verification ones. A
    block between two `---` lines at its top that is not YAML fields is refused, naming the
    line (kept as text, its fields were lost without a word); a `---` never closed opens
    the text with a rule. Line breaks become LF: a client's CRLF or bare CR (old Mac text,
    some forms and terminals) made a draft `kb check` warns of, read as one line by other
    tools. A byte-order mark and blank lines before the block do not hide it: the body is
    written without them, so the block was a rule and a heading "key: value" in the draft
    and its fields were lost."""
    text = body.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")
    top = BLANK_LINES.match(text)
    if top is not None and text[top.end():].startswith("---"):
        text = text[top.end():]  # the document starts there: its body is written stripped
    if not text.startswith("---"):
        return {}, text
    src = parse_source(text, Path("draft.md"), "draft.md")
    if not src.fm_end_line:
        return {}, text
    bad = [e for e in src.errors if e.code != "fm-empty"]
    if bad:
        raise UsageError(f"{argument('body')} opens with a front-matter block (lines 1-"
                         f"{src.fm_end_line}) that is not YAML fields: line {bad[0].line}: "
                         f"{bad[0].message}; write them as `key: value` lines between the "
                         "two `---` lines")
    meta = {k: v for k, v in src.meta.items() if k not in VERIFICATION_FIELDS}
    return meta, src.body
