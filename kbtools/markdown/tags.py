"""Tags as Obsidian reads them, for filters: ``--where tags=病害`` holds for a document tagged
``病害/赤霉病`` too.

Obsidian's nested tags write a hierarchy with ``/`` (``#inbox/to-read``); its search's
``tag:#inbox`` and its Bases' ``file.hasTag("inbox")`` find the notes of every tag nested
under ``inbox``, while a later part alone (``to-read``) finds none of them: the hierarchy is
read from the first part on. Obsidian reads a front-matter tag the same with or without its
``#`` and tags case-insensitively. So, for the ``tags`` key only (`TAG_KEYS`: the key
Obsidian reads as tags; ``aliases``, ``component`` and the rest are plain values, where a
``/`` means what the author wrote, ``N/A`` or ``PLC/HMI``):

* a document's tag matches a filter's value when the two are equal, a leading ``#`` and the
  letter case aside (numbers equal as numbers, as every other filter compares them), or
  when the tag is nested under the value (``病害/赤霉病`` under ``病害``; not ``病害虫``);
* a value ending in ``/`` (``tags=病害/``) names the same branch as without it.

``!=`` is the complement (no tag of the document is the value or nested under it); ``>=``
and ``<=`` compare the tags as written, as they compare any value. The local mask
(`kbtools.query.filters`) and a Milvus engine's stored fields (`kbtools.engine.expr`, which
stores the branches each tag lies under, `parents`) both read the rule from here.

A document's tags are also those its text writes (``#病害/白粉病``, ``#Urgent``), as Obsidian
counts them (its Tags view, ``tag:`` search and Bases' ``file.tags``): the parser reads them
from each inline run's tokens (`read_inline_tags`, a core rule), the build records them with
the document (``body_tags`` in data/docs.jsonl, its front matter kept as written) and the
filters add them to ``tags`` (`with_body_tags`). What is one follows Obsidian's help ("Tag
format"): `INLINE_TAG`, `is_tag`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from kbtools.markdown.wikitext import MARKS, WIKILINK

TAG_KEYS = frozenset({"tags"})  # the front-matter keys read as Obsidian's (nested) tags
BODY_TAGS_KEY = "tags"  # the key a document's inline tags (`#病害` in its text) add to
TAGS_META = "obsidian_tags"  # meta key of an inline run: its inline tags, in order
# Obsidian's inline tag: `#` at the start of a line or after whitespace, then the characters
# its help allows in a tag (letters, numbers, `_`, `-`, `/`), up to any other (a space,
# punctuation, 。 or ，); one that is only digits (`#3`, `#1984`) is no tag (`is_tag`)
INLINE_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
# inline tokens whose text is no tag's: inside a link, code, a formula, HTML, a comment
_SHOWN_AS_IS = frozenset({"text", "softbreak", "hardbreak", "inline_note_open",
                          "inline_note_close"}) | MARKS


def is_tag_key(key: str) -> bool:
    """Whether filters on `key` read its values as nested tags."""
    return key in TAG_KEYS


def tag_text(text: str) -> str:
    """A tag as the filters compare it: without one leading ``#`` (Obsidian's ``#病害`` is the
    tag 病害) and the space around it."""
    text = text.strip()
    return text[1:] if text.startswith("#") else text


def wanted_tag(want: str) -> str:
    """A filter's value as the tag it names: `tag_text`, and without a trailing ``/``
    (``病害/`` is the branch 病害)."""
    text = tag_text(want)
    return text.rstrip("/") or text


def parents(tag: str) -> Iterator[str]:
    """The branches a tag is nested under, outermost first: ``a/b/c`` → ``a``, ``a/b``; one
    for every ``/`` in it (``a//b`` → ``a``, ``a/``), so that a tag is nested under a value
    exactly when it starts with that value and a ``/`` (`nested_under`)."""
    at = tag.find("/")
    while at >= 0:
        yield tag[:at]
        at = tag.find("/", at + 1)


def nested_under(tag: str, want: str) -> bool:
    """Whether the tag `tag` (`tag_text`) lies under the branch `want` (`wanted_tag`), case
    aside: ``病害/赤霉病`` under ``病害``, ``Crops/Wheat`` under ``crops``."""
    return tag.casefold().startswith(want.casefold() + "/")


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


def with_body_tags(value: Any, body: Any) -> Any:
    """A front-matter tags value (`value`: a list, one value or None) with the document's
    inline tags (`body`) after it, as filters read the document's tags: Obsidian counts
    both. `value` itself when there are none."""
    if not body:
        return value
    written = value if isinstance(value, list) else [] if value is None else [value]
    return [*written, *body]
