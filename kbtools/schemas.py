"""JSON Schemas as data: front matter (base + per category), kb.toml, manifest.

A knowledge repo's own `schemas/` folder wins; the copies shipped in the package are the
defaults (and what `kb init` writes).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema_specifications import REGISTRY as SPECIFICATIONS
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from kbtools.errors import ConfigError

PACKAGE_SCHEMAS = Path(str(resources.files("kbtools") / "data" / "schemas"))
FORMAT_CHECKER = Draft202012Validator.FORMAT_CHECKER


def _parse(path: Path, text: str) -> dict[str, Any]:
    """The schema in `text` (read from `path`); ConfigError naming the file (and the line
    of a JSON syntax error) when it is not a JSON object."""
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        # a comma after the last item (`["project",]`), which JavaScript and Python allow
        comma = text[:exc.pos].rstrip().endswith(",") and text[exc.pos:exc.pos + 1] in "]}"
        raise ConfigError(f"cannot read schema: {exc.msg} (column {exc.colno})" + (
            ": a comma before ] or } (JSON allows none: delete it)" if comma else ""),
            path=str(path), line=exc.lineno) from None
    except ValueError as exc:
        raise ConfigError(f"cannot read schema: {exc}", path=str(path)) from None
    if not isinstance(schema, dict):
        raise ConfigError("not a JSON Schema: the file must hold one JSON object",
                          path=str(path), line=1)
    return schema


def _line_of(text: str, keys: list[str | int]) -> int:
    """The line of the value at the JSON path `keys` in `text` (each key searched for in
    turn after the one before: the line of the innermost key found)."""
    at = 0
    for key in keys:
        if isinstance(key, str) and (found := text.find(json.dumps(key), at)) >= 0:
            at = found
    return text.count("\n", 0, at) + 1


# a file whose modification time is this close to when its status was taken may change
# again within the same timestamp tick (git's "racy" rule): its status is not kept
RACY_NS = 1_000_000_000
_known: dict[Path, tuple[tuple[int, ...], Draft202012Validator]] = {}


def _validator(path: Path) -> Draft202012Validator:
    """The validator of the schema file at `path` as it is now: a schema edited while a
    process runs (`kb watch`) is validated with its new text, never with the one read
    before (whose findings the results cache would then keep for the new text). A file
    whose status (device, inode, size, modification and change times) is the one it had
    when it was read is not read again."""
    now = time.time_ns()
    try:
        st = os.stat(path)
        status = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if (known := _known.get(path)) is not None and known[0] == status:
            return known[1]
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Notepad) dropped
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read schema: {exc}", path=str(path)) from None
    validator = _compiled(path, text)
    if max(st.st_mtime_ns, st.st_ctime_ns) < now - RACY_NS:
        _known[path] = (status, validator)
    return validator


@lru_cache(maxsize=64)
def _compiled(path: Path, text: str) -> Draft202012Validator:
    schema = _parse(path, text)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(map(str, exc.path)) or "(top level)"
        raise ConfigError(f"not a valid JSON Schema at {where}: {exc.message}",
                          path=str(path), line=_line_of(text, list(exc.path))) from None
    for keys, ref in _unresolvable(schema):
        raise ConfigError(f"$ref {ref!r} resolves to nothing (at {'/'.join(map(str, keys))})",
                          path=str(path), line=_line_of(text, [*keys, "$ref"]))
    return Draft202012Validator(schema, format_checker=FORMAT_CHECKER)


def _unresolvable(schema: dict[str, Any]) -> Iterator[tuple[list[str | int], str]]:
    """Every `$ref` of `schema` that resolves to nothing, with the JSON path of the object
    holding it (validation would stop on it with a traceback). Not judged: a schema whose
    parts carry an `$id` of their own (their references resolve against it)."""
    refs: list[tuple[list[str | int], str]] = []
    nested_id = False

    def walk(node: Any, keys: list[str | int]) -> None:
        nonlocal nested_id
        if isinstance(node, dict):
            nested_id = nested_id or (bool(keys) and "$id" in node)
            if isinstance(node.get("$ref"), str):
                refs.append((keys, node["$ref"]))
            for k, v in node.items():
                walk(v, [*keys, k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, [*keys, i])

    walk(schema, [])
    if nested_id:
        return
    uri = str(schema.get("$id", ""))
    resolver = SPECIFICATIONS.with_resource(uri, DRAFT202012.create_resource(schema)) \
        .resolver(base_uri=uri)
    for keys, ref in refs:
        try:
            resolver.lookup(ref)
        except Unresolvable:
            yield keys, ref


def schema_path(name: str, schemas_dir: Path | None = None) -> Path | None:
    """`name` is "frontmatter", "kb", "manifest" or "categories/<category>"."""
    for base in (schemas_dir, PACKAGE_SCHEMAS):
        if base is None:
            continue
        path = base / f"{name}.schema.json"
        if path.is_file():
            return path
    return None


# the package's own schemas by name, read once a process: they are this code's, and a
# running `kb serve` or `kb watch` must not validate with a newer kbtools' schemas after
# `pip install -U` replaced them (nor fail while pip has removed them)
_package: dict[str, Draft202012Validator] = {}


def validator_for(name: str, schemas_dir: Path | None = None) -> Draft202012Validator:
    path = schema_path(name, schemas_dir)
    if path is not None and path.parent != PACKAGE_SCHEMAS / Path(name).parent:
        return _validator(path)  # the repo's own: read again when edited
    if name not in _package:
        if path is None:
            raise ConfigError(f"no schema named {name!r}",
                              path=str(schemas_dir or PACKAGE_SCHEMAS))
        _package[name] = _validator(path)
    return _package[name]


def categories(schemas_dir: Path | None = None) -> list[str]:
    """Known categories: one per file in `categories/` (repo's own, else the package's)."""
    for base in (schemas_dir, PACKAGE_SCHEMAS):
        if base is not None and (base / "categories").is_dir():
            return sorted(p.name.removesuffix(".schema.json")
                          for p in (base / "categories").glob("*.schema.json"))
    return []
