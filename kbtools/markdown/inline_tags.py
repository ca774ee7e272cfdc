"""Obsidian's tags written in a document's text (``#病害/赤霉病``, ``#Urgent``), read from the
parser's tokens: a core rule of the one configured parser (`kbtools.markdown.parser`) puts
each inline run's tags in its meta, and `inline_tags` collects a document's. What is one
follows Obsidian's help ("Tag format"): `INLINE_TAG`, `is_tag`. How filters read tags is
`kbtools.markdown.tags` (kept free of markdown-it for the query path).
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from kbtools.markdown.wikitext import MARKS, WIKILINK

TAGS_META = "obsidian_tags"  # meta key of an inline run: its inline tags, in order
# Obsidian's inline tag: `#` at the start of a line or after whitespace, then the characters
# its help allows in a tag (letters, numbers, `_`, `-`, `/`), up to any other (a space,
# punctuation, 。 or ，); one that is only digits (`#3`, `#1984`) is no tag (`is_tag`)
INLINE_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
# inline tokens whose text is no tag's: inside a link, code, a formula, HTML, a comment
_SHOWN_AS_IS = frozenset({"text", "softbreak", "hardbreak", "inline_note_open",
                          "inline_note_close"}) | MARKS


def is_tag(word: str) -> bool:
    """Whether `word` (after its `#`) is a tag Obsidian reads: at least one character that is
    no digit (``#y1984``, ``#3机组``; not ``#1984``)."""
    return bool(word) and not word.isdigit()


def read_inline_tags(state: StateCore) -> None:
    """A core rule run before ``text_join`` (escapes are still tokens of their own): each
    inline run's Obsidian tags, as written and in order, in its `TAGS_META` meta. Read from
    the run's text tokens only: no tag inside a link's text, a code span, a formula, an
    inline HTML tag's text, an Obsidian comment or a wikilink, none after an escape
    (``\\#x``) or any character but whitespace (``C#``, ``url#anchor``); a heading's `#`s
    are no part of its run, and code blocks have none."""
    for tok in state.tokens:
        if tok.type == "inline" and tok.children and "#" in tok.content:
            found = [m.group(1) for m in INLINE_TAG.finditer(_run_text(tok.children))
                     if is_tag(m.group(1))]
            if found:
                tok.meta[TAGS_META] = tuple(found)


def _run_text(children: list[Token]) -> str:
    """An inline run's text as tags are read in it: each text token's text; emphasis marks
    nothing (``**#重点**`` holds the tag); line breaks a line break; every other token, and
    the text inside a link or a wikilink, NUL characters, which end a tag and start none."""
    out: list[str] = []
    links = 0
    for child in children:
        kind = child.type
        links += (kind == "link_open") - (kind == "link_close")
        if kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind in _SHOWN_AS_IS and not links:
            out.append(child.content if kind == "text" else "")
        else:
            out.append("\0" * max(1, len(child.content)))
    text = "".join(out)
    return WIKILINK.sub(lambda m: "\0" * len(m.group(0)), text) if "[[" in text else text


def inline_tags(tokens: list[Token]) -> tuple[str, ...]:
    """The Obsidian tags of a document's text (`read_inline_tags`), each once, in order."""
    found = (t for tok in tokens if tok.type == "inline" for t in tok.meta.get(TAGS_META, ()))
    return tuple(dict.fromkeys(found))
