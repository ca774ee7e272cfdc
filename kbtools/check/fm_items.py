"""Front-matter list items as editors and Chinese input write them: what the index would keep
of each is not what the author meant.

- Obsidian's inline tag, quoted so YAML keeps it (`tags: ["#迁飞性害虫"]`): indexed with its
  `#` (`fm-tag-hash`, a warning).
- Several values typed into one item with Chinese list punctuation (`tags: [液压、检修]`,
  `- 油路，液压油路`): YAML splits a list at ASCII commas only, so the item is one value,
  `液压、检修`, and `--where tags=液压`, facets and routing miss the document
  (`fm-list-joined`, a warning). `kb check --fix` splits such an item of a one-line flow
  list (`[液压, 检修]`), when YAML reads the list written so as those items; an item of a
  block list is told, each value's `- ` line being the author's to write.

An item is taken for values joined only when every part between the marks is a term (at
most `TERM_CHARS` Chinese characters or `TERM_WORDS` words, no sentence punctuation): a
sentence such as `先断电，再验电后开机。` in a list of steps is left alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from kbtools.check.links import Edit
from kbtools.check.yaml_syntax import FIXES, fm_lines
from kbtools.corpus import SourceDoc
from kbtools.markdown.tags import is_tag_key

Problem = tuple[str, int, int, str]  # (code, line, col, message), as `frontmatter`'s
JOINERS = "、，；"  # list punctuation of Chinese input, which YAML does not split at
OPENERS, CLOSERS = "（([【「“《", "）)]】」”》"  # a mark between them parts no values
TERM_CHARS = 12  # a part of more Chinese characters than this is prose, not a value
TERM_WORDS = 4  # nor one of more words (an English term: `fusarium head blight`)
SENTENCE_MARKS = frozenset("。！？!?：:\n")


def hash_tags(src: SourceDoc) -> Iterator[Problem]:
    """A list item (of any top-level list) written `"#迁飞性害虫"`: Obsidian's inline tag,
    quoted so YAML keeps it; the index would keep the `#`, so facets and routing miss the
    document (and `--where` too, but on `tags`, whose filters read a tag without its `#`:
    `kbtools.markdown.tags`)."""
    lines = dict(fm_lines(src))
    for key, value in src.meta.items():
        if not isinstance(value, list):
            continue
        for item in value:
            if isinstance(item, str) and obsidian_tag(item):
                missed = "facets and routing miss it" if is_tag_key(str(key)) else \
                    f"`--where {key}={item[1:]}`, facets and routing miss it"
                yield ("fm-tag-hash", item_line(src, key, item, lines), 1,
                       f"{key}: {item!r} keeps Obsidian's '#' in the index, so {missed}: "
                       f"write {item[1:]!r} (Obsidian reads it without '#' the same)")


def obsidian_tag(item: str) -> bool:
    """`#迁飞性害虫`, `#病害/真菌`: `#` and a word as Obsidian writes a tag (no space, not
    only digits: `#1` is no tag to Obsidian)."""
    word = item[1:]
    return item.startswith("#") and bool(word) and not word.startswith("#") \
        and not any(ch.isspace() for ch in word) and not word.isdigit()


def item_line(src: SourceDoc, key: Any, item: str, lines: dict[int, str]) -> int:
    """The line of the front matter below top-level `key` (its own line first) that holds
    `item`, else the key's line."""
    start = src.key_lines.get(str(key), 2 if src.fm_end_line else 1)
    for number in sorted(n for n in lines if n >= start):
        if number > start and lines[number][:1] not in (" ", "-", "\t"):
            break  # the next top-level key
        if item in lines[number]:
            return number
    return start


def split_item(item: str) -> list[str]:
    """The values an item joins with Chinese list punctuation (`液压、检修` -> `液压`, `检修`),
    or [] when it joins none: one value, a mark inside brackets (`稻瘟病（叶瘟、穗颈瘟）`, one
    value naming its kinds), or parts that are no terms (prose)."""
    parts, _ = _parted(item)
    return parts if len(parts) > 1 and all(map(_term, parts)) else []


def _parted(item: str) -> tuple[list[str], str]:
    """`item` parted at its marks outside brackets, and the first such mark ("" for none)."""
    parts, marks, depth, start = [], "", 0, 0
    for at, ch in enumerate(item):
        if ch in OPENERS:
            depth += 1
        elif ch in CLOSERS:
            depth = max(0, depth - 1)
        elif ch in JOINERS and not depth:
            parts.append(item[start:at].strip())
            marks, start = marks or ch, at + 1
    parts.append(item[start:].strip())
    return parts, marks


def _term(part: str) -> bool:
    """Whether `part` reads as one value (`草地贪夜蛾`, `fusarium head blight`), not prose:
    at most TERM_CHARS Chinese characters and TERM_WORDS words, no sentence punctuation."""
    cjk = sum(1 for ch in part if "\u3400" <= ch <= "\u9fff")
    return bool(part) and cjk <= TERM_CHARS and len(part.split()) <= TERM_WORDS \
        and not SENTENCE_MARKS & set(part)


def joined_items(src: SourceDoc) -> Iterator[Problem]:
    """`fm-list-joined` at each list item that joins several values (`split_item`), saying
    the list to write and whether `kb check --fix` writes it (`joined_edit`)."""
    lines = dict(fm_lines(src))
    for key, value in src.meta.items():
        if not isinstance(value, list):
            continue
        items = _split_list(value)
        for item in value:
            parts = split_item(item) if isinstance(item, str) else []
            if not parts:
                continue
            line = item_line(src, key, item, lines)
            col = lines.get(line, "").find(item) + 1 or 1
            mark = _parted(item)[1]
            fix = FIXES if joined_edit(src, key) else \
                ", or each on a `- ` line of its own" if line != src.key_lines.get(str(key)) \
                else ""
            yield ("fm-list-joined", line, col,
                   f"{key}: {item!r} is one item, its values joined by {mark!r} (YAML splits "
                   f"a list at ',' only), so `--where {key}={parts[0]}`, facets and routing "
                   f"miss it: write {key}: [{', '.join(items)}]{fix}")


def _split_list(value: list[Any]) -> list[str]:
    """The items of `value` with each joined one split into its values."""
    out: list[str] = []
    for item in value:
        out.extend(split_item(item) if isinstance(item, str) and split_item(item)
                   else [str(item)])
    return out


def joined_edits(src: SourceDoc) -> list[Edit]:
    """What `kb check --fix` writes for the joined items of `src` (`joined_edit`)."""
    if not src.meta or src.errors:
        return []
    return [e for key, value in src.meta.items() if isinstance(value, list)
            and (e := joined_edit(src, key)) is not None]


def joined_edit(src: SourceDoc, key: Any) -> Edit | None:
    """The edit writing top-level `key`'s flow list, written whole on its line with no
    comment (`tags: [液压、检修, 安全]`), with each joined item split (`[液压, 检修, 安全]`):
    only when an item is joined, the values are all different and YAML reads the new list
    as exactly those values (no `yes`, `010` among them); else None."""
    value = src.meta.get(key)
    line = src.key_lines.get(str(key), 0)
    lines = src.text.split("\n")
    if not isinstance(value, list) or not 0 < line <= len(lines) \
            or not any(isinstance(i, str) and split_item(i) for i in value):
        return None
    text = lines[line - 1]
    written = text.partition(":")[2].strip()
    if not (written.startswith("[") and written.endswith("]")) or "#" in written:
        return None
    items = _split_list(value)
    new = f"[{', '.join(items)}]"
    try:
        same = yaml.safe_load(new) == items and len(set(items)) == len(items)
    except yaml.YAMLError:
        same = False
    at = text.find(written, text.index(":") + 1)
    return Edit(line, at + 1, written, new) if same and at >= 0 else None
