"""Front-matter findings: parse problems from the corpus reader, then JSON Schema rules.

Base schema first (unknown keys with a "did you mean", types, timestamps, verified rules),
then the per-category schema selected by `category` (categories = schema files).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from kbtools.corpus import SourceDoc
from kbtools.schemas import validator_for

TIMESTAMP_KEYS = ("timestamp", "verified_at")
# (code, line, col, message) tuples; the caller turns them into Findings with a level.
Problem = tuple[str, int, int, str]


def parse_problems(src: SourceDoc) -> list[Problem]:
    return [(e.code, e.line, e.col, e.message) for e in src.errors]


def schema_problems(src: SourceDoc, schemas_dir: Path | None,
                    categories: frozenset[str]) -> list[Problem]:
    meta = src.meta
    if not meta or any(e.code == "fm-not-mapping" for e in src.errors):
        return []
    base = validator_for("frontmatter", schemas_dir)
    out = list(_unknown_keys(src, base))
    out.extend(_validate(src, base, ""))
    out.extend(_timestamps(src))
    out.extend(_dates(src))
    category = meta.get("category")
    if isinstance(category, str) and category:
        if category not in categories:
            close = difflib.get_close_matches(category, sorted(categories), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            known = ", ".join(sorted(categories)) or "(none)"
            out.append(("fm-unknown-category", _line(src, "category"), 1,
                        f"unknown category {category!r} (known: {known}){hint}"))
        else:
            out.extend(_validate(src, validator_for(f"categories/{category}", schemas_dir),
                                 category))
    return out


def _line(src: SourceDoc, key: Any) -> int:
    return src.key_lines.get(str(key), 2 if src.fm_end_line else 1)


def _written(src: SourceDoc, key: Any) -> str:
    """The value of top-level `key` as the author wrote it on its line (``yes``), "" when
    it is not written on the key's own line (a block below it) or the key has no line."""
    line = src.key_lines.get(str(key))
    lines = src.text.split("\n")
    if line is None or not 0 < line <= len(lines):
        return ""
    value = lines[line - 1].partition(":")[2]
    return re.sub(r"(?:^|\s)#.*$", "", value).strip()


def _as_read(src: SourceDoc, key: Any, value: Any, *, quote: bool = False) -> str:
    """`` (written ``yes``, which YAML reads as true)`` when the author's spelling of a
    boolean (or null) is not the one the message shows, else ""; with `quote`, how to keep
    the word (a key that wants text)."""
    shown = {True: "true", False: "false", None: "null"}.get(value) \
        if isinstance(value, bool) or value is None else None
    written = _written(src, key)
    if shown is None or not written or written.casefold() == shown:
        return ""
    keep = f"; quote it, \"{written}\", to keep the word" if quote else ""
    return f" (written {written!r}, which YAML reads as {shown}{keep})"


def _unknown_keys(src: SourceDoc, validator: Draft202012Validator) -> Iterator[Problem]:
    schema = validator.schema
    if schema.get("additionalProperties", True) is not False:
        return
    known = sorted(schema.get("properties", {}))
    for key in src.meta:
        if key in known:
            continue
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        if _editor_setting(str(key)):
            hint = ("; an editor's setting for this file (Typora, Obsidian), not knowledge: "
                    "delete it (docs/knowledge-authoring.md, \"Writing in Obsidian and Typora\")")
        yield ("fm-unknown-key", _line(src, key), 1, f"unknown key {key!r}{hint}")


def _editor_setting(key: str) -> bool:
    """Keys Typora (`typora-copy-images-to`, `typora-root-url`) and Obsidian (`cssclasses`)
    write into a document's front matter to set how the editor treats that file."""
    return key.lower().startswith("typora-") or key.lower() in ("cssclasses", "cssclass")


def _validate(src: SourceDoc, validator: Draft202012Validator, category: str) -> Iterator[Problem]:
    where = f" (category {category!r})" if category else ""
    for err in sorted(validator.iter_errors(src.meta), key=lambda e: [str(p) for p in e.path]):
        yield from _map_error(src, err, where)


def _keypath(err: ValidationError) -> str:
    return ".".join(str(p) for p in err.absolute_path)


def _map_error(src: SourceDoc, err: ValidationError, where: str) -> Iterator[Problem]:
    top = err.absolute_path[0] if err.absolute_path else None
    line = _line(src, top) if top is not None else _line(src, "")
    kind = err.validator
    if kind == "additionalProperties" and not err.absolute_path:
        return  # reported per key with a suggestion by _unknown_keys
    if kind == "required":
        missing = [k for k in err.validator_value if k not in (err.instance or {})]
        if "allOf" in err.schema_path and {"verified_by", "verified_at"} & set(missing):
            read = _as_read(src, "verified", src.meta.get("verified"))
            yield ("fm-verified-without-reviewer", _line(src, "verified"), 1,
                   f"verified: true{read} needs {' and '.join(missing)}{where}")
            return
        for key in missing:
            yield ("fm-missing-key", line, 1, f"required key {key!r} is missing{where}")
        return
    path = _keypath(err) or "(front matter)"
    if kind == "type":
        got = type(err.instance).__name__
        read = _as_read(src, top, err.instance, quote=True) \
            if len(err.absolute_path) == 1 else ""
        yield ("fm-type", line, 1,
               f"{path}: expected {err.validator_value}, got {got}{read}{where}")
    elif top in TIMESTAMP_KEYS and kind in ("pattern", "format"):
        yield ("fm-timestamp", line, 1,
               f"{path}: {err.instance!r} is not an ISO 8601 timestamp with offset "
               f"(e.g. 2026-03-14T09:30:00+08:00){where}")
    elif top in DATE_KEYS and kind == "pattern":
        yield ("fm-value", line, 1,
               f"{path}: {err.instance!r} is not a date (YYYY-MM-DD, e.g. 2026-12-31){where}")
    elif kind in ("anyOf", "oneOf") and not err.absolute_path:
        options = []
        for sub in err.validator_value:
            options.extend(sub.get("required", []))
        yield ("fm-missing-key", line, 1,
               f"one of {', '.join(map(repr, options)) or 'several keys'} is required{where}")
    else:
        read = _as_read(src, top, err.instance, quote=True) \
            if len(err.absolute_path) == 1 else ""
        yield ("fm-value", line, 1, f"{path}: {err.message}{read}{where}")


def _timestamps(src: SourceDoc) -> Iterator[Problem]:
    """Pattern-valid timestamps that are not real dates (month 13, hour 25 ...)."""
    for key in TIMESTAMP_KEYS:
        value = src.meta.get(key)
        if not isinstance(value, str) or len(value) < 16 or value[10:11] != "T":
            continue
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            yield ("fm-timestamp", _line(src, key), 1, f"{key}: {value!r} is not a valid date: {exc}")


DATE_KEYS = ("valid_until",)


def _dates(src: SourceDoc) -> Iterator[Problem]:
    """Pattern-valid dates (YYYY-MM-DD) that are not real dates (2026-02-30)."""
    for key in DATE_KEYS:
        value = src.meta.get(key)
        if not isinstance(value, str) or len(value) != 10:
            continue
        try:
            date.fromisoformat(value)
        except ValueError as exc:
            yield ("fm-value", _line(src, key), 1, f"{key}: {value!r} is not a real date: {exc}")
