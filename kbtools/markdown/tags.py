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
from each inline run's tokens (`kbtools.markdown.inline_tags`, a core rule), the build records them with
the document (``body_tags`` in data/docs.jsonl, its front matter kept as written) and the
filters add them to ``tags`` (`with_body_tags`). What is one follows Obsidian's help ("Tag
format"): `kbtools.markdown.inline_tags`. This module imports no markdown-it: the query
path's filters use it, and a question loads no Markdown parser.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

TAG_KEYS = frozenset({"tags"})  # the front-matter keys read as Obsidian's (nested) tags
BODY_TAGS_KEY = "tags"  # the key a document's inline tags (`#病害` in its text) add to


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


def with_body_tags(value: Any, body: Any) -> Any:
    """A front-matter tags value (`value`: a list, one value or None) with the document's
    inline tags (`body`) after it, as filters read the document's tags: Obsidian counts
    both. `value` itself when there are none."""
    if not body:
        return value
    written = value if isinstance(value, list) else [] if value is None else [value]
    return [*written, *body]
