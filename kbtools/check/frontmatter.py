"""Front-matter findings: parse problems from the corpus reader, then JSON Schema rules.

Base schema first (unknown keys with a "did you mean", types, timestamps, verified rules),
then the per-category schema selected by `category` (categories = schema files).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from kbtools.check import fm_items
from kbtools.check.fm_example import example_block, opening_problem
from kbtools.check.fm_rules import alternatives, condition, short_message, value_hint
from kbtools.check.fm_values import (
    boolean_hint,
    date_problem,
    iso_date,
    naive_timestamp,
    offset_timestamp,
    schema_timestamp,
    text_hint,
)
from kbtools.check.fm_written import (
    DATE_KEYS,
    TIMESTAMP_KEYS,
    as_read,
    item_position,
    key_line,
    list_edit,
    list_items,
    value_edit,
    written_value,
)
from kbtools.check.links import Edit
from kbtools.check.mend import INVISIBLE, key_renames, key_spelling, misplaced_block, misplaced_edit
from kbtools.check.yaml_syntax import FIXES, syntax_problem, words
from kbtools.corpus import SourceDoc
from kbtools.schemas import validator_for

# keys editors and their templates write for when a note was written (Obsidian's `date`,
# `created`, `updated`; Hugo's `lastmod`), as `mend.key_spelling` spells them: the schema's
# `timestamp` is meant when the front matter has none
TIMESTAMP_ALIASES = frozenset({
    "date", "created", "updated", "modified", "created_at", "updated_at", "modified_at",
    "date_created", "date_modified", "date_updated", "last_modified", "last_updated",
    "lastmod", "created_on", "updated_on"})
# Obsidian's former names of its keys, which Obsidian 1.4 renames to the plural on opening a
# note (`cssclass`, a setting of the editor, is no knowledge: `_editor_setting`)
OBSIDIAN_FORMER = {"alias": "aliases", "tag": "tags"}
# (code, line, col, message) tuples; the caller turns them into Findings with a level.
Problem = tuple[str, int, int, str]


# codes of `parse_problems` and `schema_problems` that are warnings (the others are errors)
WARNING_CODES = frozenset({"fm-tag-hash", "fm-list-joined"})


def parse_problems(src: SourceDoc, schemas_dir: Path | None = None,
                   categories: frozenset[str] = frozenset()) -> list[Problem]:
    """The corpus reader's front-matter errors (a YAML error a `#` caused named at that
    `#`, a missing block with the smallest one the schemas in `schemas_dir` accept), and
    list values written with Obsidian's `#` or joined by Chinese list punctuation
    (`kbtools.check.fm_items`)."""
    out = [syntax_problem(src, e.line, e.col, e.message) if e.code == "yaml-syntax"
           else (e.code, e.line, e.col, e.message + _where_to_close(src.text))
           if e.code == "fm-unterminated"
           else (e.code, e.line, e.col, _misplaced(src.text) or _opening(src.text, schemas_dir, categories)
                 or "no front matter block" + _example(schemas_dir, categories))
           if e.code == "fm-missing" else (e.code, e.line, e.col, e.message)
           for e in src.errors]
    return out + list(fm_items.hash_tags(src)) + list(fm_items.joined_items(src))


def _example(schemas_dir: Path | None, categories: frozenset[str]) -> str:
    return f": begin the file with these lines (each / a new line): " \
        f"{example_block(schemas_dir, categories)}"


def _opening(text: str, schemas_dir: Path | None, categories: frozenset[str]) -> str:
    """`fm_example.opening_problem`'s message, with the block to write when it wants one."""
    message, example = opening_problem(text)
    return message + _example(schemas_dir, categories) if message and example else message


def _misplaced(text: str) -> str:
    """What `fm-missing` says of a front matter block that does not begin the file: its
    `---` below blank lines or after spaces or invisible characters, and closed ("" when
    there is no such block); `kb check --fix` deletes them (`kbtools.check.mend`) when the
    block holds a YAML mapping."""
    block = misplaced_block(text)
    if block is None:
        return ""
    first, prefix, _ = block
    lines = text.split("\n")
    if first:
        unseen = [ch for line in lines[:first] for ch in line if ch in INVISIBLE]
        what = ("the blank line 1" if first == 1 else f"the blank lines 1-{first}") \
            + (f" (it holds an invisible {_codes(unseen)})" if unseen else "")
    else:
        unseen = [ch for ch in prefix if ch in INVISIBLE]
        what = f"the invisible {_codes(unseen)}" if unseen else "the spaces"
    fix = " (kb check --fix does)" if misplaced_edit(text) is not None else ""
    return (f"the front matter block at line {first + 1} does not begin the file, so it is "
            f"read as text: delete {what} before its '---'{fix}")


def _codes(chars: list[str]) -> str:
    """Characters as their code points, each once: `U+FEFF, U+200B`."""
    return ", ".join(f"U+{ord(ch):04X}" for ch in dict.fromkeys(chars))


def _where_to_close(text: str) -> str:
    """Where a front matter never closed ends, as what to write: the first blank line or
    Markdown heading after the opening `---` ("" when there is none)."""
    lines = text.split("\n")
    for number, line in enumerate(lines[1:], 2):
        if number == len(lines) and not line:  # the end of the file
            return f": add a line --- after line {number - 1}, where it ends"
        if not line.strip() or line.startswith("#") and line.lstrip("#")[:1] in (" ", ""):
            return f": add a line --- before line {number}, where it ends"
    return ""


def schema_problems(src: SourceDoc, schemas_dir: Path | None,
                    categories: frozenset[str]) -> list[Problem]:
    meta = src.meta
    if not meta or any(e.code == "fm-not-mapping" for e in src.errors):
        return []
    base = validator_for("frontmatter", schemas_dir)
    meant = frozenset(_typos(src, base).values())
    category = meta.get("category")
    own = validator_for(f"categories/{category}", schemas_dir).schema \
        if isinstance(category, str) and category in categories else {}
    out = list(_unknown_keys(src, base, str(category) if own else "",
                             own.get("properties", {})))
    optional = _optional_empty(src, schema_validators(meta, schemas_dir, categories)) \
        if None in meta.values() else frozenset()
    out.extend(_validate(src, base, "", meant, optional))
    out.extend(_timestamps(src))
    out.extend(_dates(src))
    if isinstance(category, str) and category:
        if category not in categories:
            close = difflib.get_close_matches(category, sorted(categories), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            known = ", ".join(sorted(categories)) or "(none)"
            out.append(("fm-unknown-category", key_line(src, "category"), 1,
                        f"unknown category {category!r} (known: {known}){hint}"))
        else:
            out.extend(_validate(src, validator_for(f"categories/{category}", schemas_dir),
                                 category, meant, optional))
    return out


def schema_validators(meta: dict[str, Any], schemas_dir: Path | None,
                      categories: frozenset[str]) -> list[Draft202012Validator]:
    """The schemas `schema_problems` validates `meta` against: the base one, and its
    category's when it names a known category."""
    category = meta.get("category")
    return [validator_for("frontmatter", schemas_dir), *(
        [validator_for(f"categories/{category}", schemas_dir)]
        if isinstance(category, str) and category in categories else [])]


def schema_free_problems(src: SourceDoc) -> list[Problem]:
    """What `schema_problems` says that needs no schema (`kb check --no-schema`): values YAML
    read as empty because they begin with `#` (Obsidian's `tags: #迁飞性害虫`), timestamps
    and dates that are no real dates."""
    if not src.meta or any(e.code == "fm-not-mapping" for e in src.errors):
        return []
    out = []
    for key, value in src.meta.items():
        paths: list[list[Any]]
        if value is None:
            paths = [[key]]
        elif isinstance(value, list):
            paths = [[key, i] for i, item in enumerate(value) if item is None]
        else:
            paths = []
        for path in paths:
            eaten = _comment_eaten(src, path, None)
            out.extend([eaten] if eaten is not None else [])
    return out + list(_timestamps(src)) + list(_dates(src))


def _typos(src: SourceDoc, validator: Draft202012Validator) -> dict[str, str]:
    """The keys of the front matter the schema does not know, each with the known key it
    is closest to ("" when none is close): `categroy` → `category`, `Title` → `title`."""
    schema = validator.schema
    if schema.get("additionalProperties", True) is not False:
        return {}
    known = sorted(schema.get("properties", {}))
    out = {}
    for key in src.meta:
        if key not in known:  # (`TITLE` is no close match of `title` to difflib)
            spelt = key_spelling(str(key))
            close = [spelt] if spelt in known else ["timestamp"] if _timestamp_alias(
                src, key, known) else difflib.get_close_matches(spelt, known, n=1, cutoff=0.6)
            out[key] = close[0] if close and not _editor_setting(str(key)) else ""
    return out


def _timestamp_alias(src: SourceDoc, key: Any, known: list[str]) -> bool:
    """Whether `key` is an editor's name for the timestamp (`TIMESTAMP_ALIASES`) in a front
    matter that writes no `timestamp` the schema knows."""
    return key_spelling(str(key)) in TIMESTAMP_ALIASES and "timestamp" in known \
        and "timestamp" not in src.meta


def _renamed_as_meant(src: SourceDoc, typos: dict[str, str]) -> frozenset[str]:
    """The keys of `typos` meaning the timestamp under another name whose value says a date
    and time (with its offset or without: the key is renamed, the value kept as written, and
    an offset kbtools cannot guess is then the timestamp finding's to ask for); and
    Obsidian's former names of its keys (`alias`, `tag`: `OBSIDIAN_FORMER`), which Obsidian
    itself renames so, when the schema's key is the one meant."""
    return frozenset(
        str(key) for key, close in typos.items()
        if close == "timestamp" and key_spelling(str(key)) in TIMESTAMP_ALIASES
        and isinstance(value := src.meta.get(key), str)
        and (offset_timestamp(value.replace(" ", "T", 1)) or naive_timestamp(value))
        or close and OBSIDIAN_FORMER.get(key_spelling(str(key))) == close)


def schema_edits(src: SourceDoc, schemas_dir: Path | None) -> list[Edit]:
    """What `kb check --fix` writes for the unknown keys that are known ones written in
    another case or with another separator (`Title:` -> `title:`; `mend.key_renames`), and
    for a list written as one text (`tags: 迁飞性害虫，水稻`; `_list_edit`)."""
    if not src.meta or src.errors:
        return []
    base = validator_for("frontmatter", schemas_dir)
    lists = [e for key, rule in base.schema.get("properties", {}).items()
             if rule.get("type") == "array" and (e := list_edit(src, key))]
    typos = _typos(src, base)
    return [*key_renames(src, typos, _renamed_as_meant(src, typos)).values(), *lists]


def _unknown_keys(src: SourceDoc, validator: Draft202012Validator, category: str = "",
                  declared: Mapping[str, Any] | None = None) -> Iterator[Problem]:
    """The keys the base schema does not know. `declared`: the properties of the schema of
    the document's `category`. Why it is named: a key declared there alone was told to be
    declared "in the schema (schemas/frontmatter.schema.json, or the category's)", where
    it already was; the base schema lists every key a document may have (its
    `additionalProperties: false`), a category's schema only narrows them."""
    typos = _typos(src, validator)
    renamed = key_renames(src, typos, _renamed_as_meant(src, typos))
    for key, close in typos.items():
        fixed = " (`kb check --fix` renames it)" if key in renamed else ""
        hint = (f"; schemas/categories/{category}.schema.json declares it, but the base "
                "schema lists every key a document may have: declare it in "
                "schemas/frontmatter.schema.json too" if declared and key in declared else
                f"; did you mean {close!r}?{fixed}" if close else
                "; the schema has no such key: delete it, or declare it in "
                "schemas/frontmatter.schema.json (the base schema lists every key; a "
                "category's schema may then require it)")
        if _editor_setting(str(key)):
            hint = ("; an editor's setting for this file (Typora, Obsidian), not knowledge: "
                    "delete it (docs/knowledge-authoring.md, \"Writing in Obsidian and Typora\")")
            if str(key).lower() == "typora-root-url":  # its `/…` paths are read from it
                hint = hint.replace("delete it", "delete it once `kb check --fix` has "
                                    "rewritten the paths starting with '/' that Typora reads "
                                    "from it as paths relative to the document")
        yield ("fm-unknown-key", key_line(src, key), 1, f"unknown key {key!r}{hint}")


def _editor_setting(key: str) -> bool:
    """Keys Typora (`typora-copy-images-to`, `typora-root-url`) and Obsidian (`cssclasses`)
    write into a document's front matter to set how the editor treats that file."""
    return key.lower().startswith("typora-") or key.lower() in ("cssclasses", "cssclass")


def _validate(src: SourceDoc, validator: Draft202012Validator, category: str,
              meant: frozenset[str], optional: frozenset[str] = frozenset()
              ) -> Iterator[Problem]:
    """Schema errors as problems; a required key in `meant` (an unknown key's "did you
    mean") is not said to be missing as well: one typo, one finding. `optional`: the empty
    keys the document may leave out (`_optional_empty`)."""
    where = f" (category {category!r})" if category else ""
    for err in sorted(validator.iter_errors(src.meta), key=lambda e: [str(p) for p in e.path]):
        path = list(err.absolute_path)
        below = item_position(src, path) if len(path) > 1 else None
        for code, line, col, message in _map_error(src, err, where, meant, optional,
                                                   validator.schema):
            if below is not None and (line, col) == (key_line(src, path[0]), 1):
                line, col = below  # an item's error at the item, not at its key's line
            yield code, line, col, message


def _keypath(err: ValidationError) -> str:
    return ".".join(str(p) for p in err.absolute_path)


def _map_error(src: SourceDoc, err: ValidationError, where: str,
               meant: frozenset[str] = frozenset(),
               optional: frozenset[str] = frozenset(),
               schema: Mapping[str, Any] | None = None) -> Iterator[Problem]:
    top = err.absolute_path[0] if err.absolute_path else None
    line = key_line(src, top) if top is not None else key_line(src, "")
    said = where  # (fm-verified-without-reviewer says its condition itself)
    if (cond := condition(schema, err, src.meta)) is not None:
        # a rule of a schema's `then`/`else`: at the line of the key its `if` reads
        where = f" ({cond[1]}){where}"
        line = key_line(src, cond[0]) if cond[0] and top is None else line
    kind = err.validator
    if kind == "additionalProperties" and not err.absolute_path:
        return  # reported per key with a suggestion by _unknown_keys
    if kind == "required":
        missing = [k for k in err.validator_value if k not in (err.instance or {})]
        if "allOf" in err.schema_path and {"verified_by", "verified_at"} & set(missing):
            read = as_read(src, "verified", src.meta.get("verified"))
            add = {"verified_by": "verified_by: <the reviewer's email>",
                   "verified_at": 'verified_at: "<when reviewed, e.g. 2026-03-14T09:30:00+08:00>"'}
            todo = " and ".join(add.get(k, k) for k in missing)
            yield ("fm-verified-without-reviewer", key_line(src, "verified"), 1,
                   f"verified: true{read} needs {' and '.join(missing)}{said}: add {todo}, "
                   "or write verified: false until it is reviewed")
            return
        for key in (k for k in missing if k not in meant):
            yield ("fm-missing-key", line, 1, f"required key {key!r} is missing{where}")
        return
    path = _keypath(err) or "(front matter)"
    eaten = _comment_eaten(src, list(err.absolute_path), err.validator_value) \
        if kind == "type" and err.instance is None else None
    if eaten is not None:
        yield eaten
    elif kind == "type":
        got = _empty(err, optional) if err.instance is None else type(err.instance).__name__
        read = as_read(src, top, err.instance, quote=True) \
            if len(err.absolute_path) == 1 else ""
        if err.validator_value == "boolean" and isinstance(err.instance, str | int | float) \
                and len(err.absolute_path) == 1:
            read = boolean_hint(str(top), err.instance, written_value(src, top))
        elif err.validator_value == "array" and isinstance(err.instance, str) \
                and len(err.absolute_path) == 1:
            read = f" (write a list: {top}: [{', '.join(list_items(err.instance, top))}])" + (
                FIXES if list_edit(src, str(top)) else "")
        elif err.validator_value == "string" and len(err.absolute_path) == 1 \
                and top in (*TIMESTAMP_KEYS, *DATE_KEYS) and not isinstance(err.instance, dict):
            form = "YYYY-MM-DDThh:mm:ss+08:00" if top in TIMESTAMP_KEYS else "YYYY-MM-DD"
            read = f" (write {top}: \"{form}\")"
        elif err.validator_value == "string" and top not in (*TIMESTAMP_KEYS, *DATE_KEYS) \
                and (hint := text_hint(
                path, err.instance, written_value(src, top) if len(err.absolute_path) == 1 else None)):
            read = hint
        elif err.validator_value == "string" and isinstance(err.instance, list) \
                and len(err.absolute_path) == 1 and err.instance \
                and all(isinstance(x, str) for x in err.instance):
            read = f" (write one text: {top}: {_plain(', '.join(err.instance))})"
        yield ("fm-type", line, 1,
               f"{path}: expected {err.validator_value}, got {got}{read}{where}")
    elif top in TIMESTAMP_KEYS and kind in ("pattern", "format"):
        written = schema_timestamp(str(err.instance))
        naive = naive_timestamp(str(err.instance))
        fix = (f": write {top}: \"{written}\"" + (FIXES if value_edit(src, top) else "")
               if written else f": it has no offset, which kbtools cannot guess: write {top}: "
               f"\"{naive}+08:00\" with your time zone's offset (Z for UTC)" if naive
               else f": {wrong}: write {top}: \"YYYY-MM-DDThh:mm:ss+08:00\" with a real date "
               "and your time zone's offset" if (wrong := date_problem(str(err.instance)))
               else " (e.g. 2026-03-14T09:30:00+08:00)")
        yield ("fm-timestamp", line, 1,
               f"{path}: {err.instance!r} is not an ISO 8601 timestamp with offset{fix}{where}")
    elif top in DATE_KEYS and kind == "pattern" or kind == "format" and \
            err.validator_value == "date" and len(err.absolute_path) == 1:
        # (a schema's own `format: date` key as the base schema's dates: what to write)
        iso = iso_date(err.instance) if isinstance(err.instance, str) else None
        wrong = date_problem(err.instance) if isinstance(err.instance, str) else None
        fixes = FIXES if top in DATE_KEYS and value_edit(src, top) else ""
        hint = f"date: write {top}: \"{iso}\"" + fixes \
            if iso else f"real date: {wrong}: write {top}: \"YYYY-MM-DD\" with a real date" \
            if wrong else "date (YYYY-MM-DD, e.g. 2026-12-31)"
        yield ("fm-value", line, 1, f"{path}: {err.instance!r} is not a {hint}{where}")
    elif kind == "uniqueItems" and (repeated := _repeated(err.instance)):
        yield ("fm-value", line, 1, f"{path}: {', '.join(map(repr, repeated))} listed more than "
               f"once: keep one of each{where}")
    elif kind in ("anyOf", "oneOf") and not err.absolute_path:
        options = []
        for sub in err.validator_value:
            options.extend(sub.get("required", []))
        yield ("fm-missing-key", line, 1,
               f"one of {', '.join(map(repr, options)) or 'several keys'} is required{where}")
    elif kind in ("anyOf", "oneOf") and err.context:
        yield ("fm-value", line, 1, f"{path}: {alternatives(err)}{where}")
    else:
        read = as_read(src, top, err.instance, quote=True) \
            if len(err.absolute_path) == 1 else ""
        yield ("fm-value", line, 1, f"{path}: {short_message(err)}{read}{value_hint(err)}{where}")




EMPTY_EXAMPLES = {"string": "<text>", "array": "[a, b]", "boolean": "false", "integer": "1",
                  "number": "1"}


def _empty(err: ValidationError, optional: frozenset[str]) -> str:
    """What a type error says of a key written with no value (`author:`): that it is empty
    and what to write, a value of the type the schema wants (or as its description says: <the
    reviewer's email>); a key in `optional`, which the
    document may leave out, may be deleted instead."""
    path = list(err.absolute_path)
    if len(path) != 1 or not isinstance(err.validator_value, str):
        return "nothing (the key is empty)"
    key = str(path[0])
    described = err.schema.get("description") if isinstance(err.schema, dict) else None
    example = f"<{described}>" if isinstance(described, str) and described \
        else EMPTY_EXAMPLES.get(err.validator_value, "<value>")
    return (f"nothing (the key is empty: write {key}: {example}"
            + (", or delete the line)" if key in optional else ")"))


def _optional_empty(src: SourceDoc, validators: list[Draft202012Validator]) -> frozenset[str]:
    """The keys written with no value that the schemas let the document leave out: without
    the key, none of them says it is required (a category's `project`, `verified_by` once
    `verified: true`)."""
    out = set()
    for key in (k for k, v in src.meta.items() if v is None):
        rest = {k: v for k, v in src.meta.items() if k != key}
        if not any(e.validator == "required" and key in e.validator_value
                   and key not in (e.instance or {})
                   for v in validators for e in v.iter_errors(rest)):
            out.add(key)
    return frozenset(out)


def _comment_eaten(src: SourceDoc, path: list[Any], expected: Any) -> Problem | None:
    """A value YAML read as empty because the author wrote `#` first (`tags: #迁飞性害虫`,
    an item `- #水稻`: Obsidian's inline tags), where a comment begins. `expected`: the
    schema's type; None (no schema): only a `#` a word follows (`# note` is a comment as
    YAML writers mean one), and the fix offered both ways."""
    line = src.key_lines.get(str(path[0])) if path else None
    lines = src.text.split("\n")
    if line is None or not 0 < line <= len(lines):
        return None
    key = str(path[0])
    if len(path) == 1:
        written = lines[line - 1].partition(":")[2].strip()
        if not _comment_first(written, expected):
            return None
        listed = f"[{', '.join(words(written))}]"
        quoted = '"' + written.replace('"', '\\"') + '"'
        fix = (f"{listed} for a list of tags (Obsidian's #tag?), or {key}: {quoted} for text"
               if expected is None else f"{listed} (Obsidian's #tag?)" if "array" in expected
               else quoted)
        return ("fm-type", line, lines[line - 1].index("#") + 1,
                f"{key}: {written!r} after '{key}:' is a YAML comment, so {key} is empty: "
                f"write {key}: {fix}")
    items = []  # the lines of the key's block list, by item
    for number in range(line + 1, min(src.fm_end_line, len(lines) + 1)):
        text = lines[number - 1]
        if text[:1] not in (" ", "-", "\t"):
            break
        if text.lstrip().startswith("-"):
            items.append((number, text))
    if len(path) != 2 or not isinstance(path[1], int) or path[1] >= len(items):
        return None
    number, text = items[path[1]]
    written = text.lstrip()[1:].strip()
    if not _comment_first(written, expected):
        return None
    return ("fm-type", number, text.index("#") + 1,
            f"{key}.{path[1]}: {written!r} after '-' is a YAML comment, so the item is empty "
            f"(Obsidian's #tag?): write - {' '.join(words(written))}")


def _plain(text: str) -> str:
    """`text` as a YAML value that reads back as itself: as written when YAML would, else
    double-quoted."""
    try:
        if yaml.safe_load(f"k: {text}\n") == {"k": text}:
            return text
    except yaml.YAMLError:
        pass
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _repeated(items: Any) -> list[Any]:
    """The items a list holds more than once, each once, in order ([] for no list)."""
    out: list[Any] = []
    if isinstance(items, list):
        for i, item in enumerate(items):
            if item in items[:i] and item not in out:
                out.append(item)
    return out


def _comment_first(written: str, expected: Any) -> bool:
    """Whether `written` (a value as typed) is a comment YAML read instead of the value:
    any `#` when the schema expects a value, else one a word follows."""
    if expected is not None:
        return written.startswith("#")
    return written.startswith("#") and written[1:2] not in ("", "#") \
        and not written[1:2].isspace()


def _timestamps(src: SourceDoc) -> Iterator[Problem]:
    """Pattern-valid timestamps that are not real dates (month 13, hour 25 ...)."""
    for key in TIMESTAMP_KEYS:
        value = src.meta.get(key)
        if not isinstance(value, str) or len(value) < 16 or value[10:11] != "T":
            continue
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            if (written := schema_timestamp(value)) is not None:  # full-width digits
                yield ("fm-timestamp", key_line(src, key), 1, f"{key}: {value!r} is not an ISO "
                       f"8601 timestamp with offset: write {key}: \"{written}\""
                       + (FIXES if value_edit(src, key) else ""))
            elif value[-1:] == "Z" or value[-6:-5] in ("+", "-") and value[-3:-2] == ":":
                yield ("fm-timestamp", key_line(src, key), 1, f"{key}: {value!r} is not a valid "
                       f"date: {exc}: write {key}: \"YYYY-MM-DDThh:mm:ss+08:00\" with a real "
                       "date and time")
            # else no offset the schema reads (`… CST`): its pattern's finding says so


def _dates(src: SourceDoc) -> Iterator[Problem]:
    """Pattern-valid dates (YYYY-MM-DD) that are not real dates (2026-02-30)."""
    for key in DATE_KEYS:
        value = src.meta.get(key)
        if not isinstance(value, str) or len(value) != 10 or value[4::3] != "--":
            continue  # not YYYY-MM-DD: the schema's pattern says so
        try:
            date.fromisoformat(value)
        except ValueError as exc:
            yield ("fm-value", key_line(src, key), 1, f"{key}: {value!r} is not a real date: {exc}: "
                   f"write {key}: \"YYYY-MM-DD\" with a real date")
