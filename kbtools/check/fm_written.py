"""A front-matter value as its author wrote it, and what `kb check --fix` writes instead.

The line a top-level key is on (`key_line`), its value as typed on that line
(`written_value`: `yes`, not the `True` YAML read), the reading a finding quotes back
(`as_read`), a list written as one text split into its items (`list_items`), and the
mechanical edits of a value: such a text as a flow list (`list_edit`), a timestamp or date
written another common way as the schema's form (`value_edit`, `value_edits`). Used by the
front-matter findings (`kbtools.check.frontmatter`), which say `--fix` writes it when one of
these edits exists.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import yaml

from kbtools.check.fm_values import iso_date, schema_timestamp
from kbtools.check.links import Edit
from kbtools.corpus import SourceDoc, split_front_matter

TIMESTAMP_KEYS = ("timestamp", "verified_at")
DATE_KEYS = ("valid_until",)


def key_line(src: SourceDoc, key: Any) -> int:
    return src.key_lines.get(str(key), 2 if src.fm_end_line else 1)


# the loader the front matter is read with (`kbtools.corpus`): libyaml when there, which
# reads a tab after `key:` (`crop:\t水稻`) as YAML 1.2 does; the pure one refused it, and
# every item's error went back to column 1 of its key
_COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def item_position(src: SourceDoc, path: Sequence[Any]) -> tuple[int, int] | None:
    """(line, column), 1-based in the file, where the value at `path` (a schema error's path
    below a top-level key: `tags.1`, `pests.0.stage`) begins as written: the item's own
    line in a block list, its column in a flow one (`crop: [黄瓜, 3]`). None when the front
    matter cannot be composed again or does not hold that path. Why: such an error named the
    key's line (`tags:`), leaving the author to count the items."""
    fm = split_front_matter(src.text)[0]
    try:
        node = yaml.compose(fm, Loader=_COMPOSER) if fm is not None else None
    except yaml.YAMLError:
        return None
    for step in path:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value
                         if isinstance(k, yaml.ScalarNode) and k.value == str(step)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) \
                and 0 <= step < len(node.value):
            node = node.value[step]
        else:
            return None
    if node is None:
        return None
    return 2 + node.start_mark.line, node.start_mark.column + 1


def written_value(src: SourceDoc, key: Any) -> str:
    """The value of top-level `key` as the author wrote it on its line (``yes``), "" when
    it is not written on the key's own line (a block below it) or the key has no line."""
    line = src.key_lines.get(str(key))
    lines = src.text.split("\n")
    if line is None or not 0 < line <= len(lines):
        return ""
    value = lines[line - 1].partition(":")[2]
    return re.sub(r"(?:^|\s)#.*$", "", value).strip()


def as_read(src: SourceDoc, key: Any, value: Any, *, quote: bool = False) -> str:
    """`` (written ``yes``, which YAML reads as true)`` when the author's spelling of a
    boolean (or null) is not the one the message shows, else ""; with `quote`, how to keep
    the word (a key that wants text)."""
    shown = {True: "true", False: "false", None: "null"}.get(value) \
        if isinstance(value, bool) or value is None else None
    written = written_value(src, key)
    if shown is None or not written or written.casefold() == shown:
        return ""
    keep = f"; quote it, \"{written}\", to keep the word" if quote else ""
    return f" (written {written!r}, which YAML reads as {shown}{keep})"


def list_edit(src: SourceDoc, key: str) -> Edit | None:
    """The edit writing top-level `key`'s text value, written on its line, as the flow list
    of its items (`迁飞性害虫，水稻` -> `[迁飞性害虫, 水稻]`), when YAML reads that list as those
    items (not `[yes, no]`, two booleans) and no comment follows it; else None."""
    value, written = src.meta.get(key), written_value(src, key)
    line = src.key_lines.get(key, 0)
    text = src.text.split("\n")[line - 1] if line else ""
    if not isinstance(value, str) or not written or "#" in text.partition(":")[2]:
        return None
    new = f"[{', '.join(list_items(value, key))}]"
    try:
        same = yaml.safe_load(new) == list_items(value, key)
    except yaml.YAMLError:
        same = False
    at = text.find(written, text.index(":") + 1)
    return Edit(line, at + 1, written, new) if same and at >= 0 else None


def list_items(text: str, key: Any = None) -> list[str]:
    """A list written as one string (`迁飞性害虫, 水稻`, `稻瘟病、纹枯病`) as its items; the
    `tags` of Obsidian's `tags: 液压 检修`, where no mark parts them, as its words (Obsidian
    reads them so: a tag holds no space)."""
    for mark in "，、;；":
        text = text.replace(mark, ",")
    if key == "tags" and "," not in text:
        return text.split()
    return [item.strip() for item in text.split(",") if item.strip()]


def value_edits(src: SourceDoc) -> list[Edit]:
    """What `kb check --fix` writes for a timestamp written with a space for its `T` and a
    date written another common way (`2026/03/19`, `2026年3月19日`): what their findings say
    to write (`value_edit`)."""
    return [e for key in (*TIMESTAMP_KEYS, *DATE_KEYS) if (e := value_edit(src, key))]


def value_edit(src: SourceDoc, key: str) -> Edit | None:
    """The edit writing top-level `key`'s value as the schema asks, quoted, where only its
    spelling differs (a timestamp's space for `T`; a date's `/`, `.` or 年月日); None for
    another value, one written below its key or one a comment follows."""
    value = src.meta.get(key)
    if not isinstance(value, str):
        return None
    new = (schema_timestamp(value) or "") if key in TIMESTAMP_KEYS else iso_date(value) or ""
    written, line = written_value(src, key), src.key_lines.get(key, 0)
    text = src.text.split("\n")[line - 1] if line else ""
    if not new or new == value or not written or "#" in text.partition(":")[2]:
        return None
    at = text.find(written, text.index(":") + 1)
    return Edit(line, at + 1, written, f'"{new}"') if at >= 0 else None
