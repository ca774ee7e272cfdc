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
from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from kbtools.errors import ConfigError
from kbtools.linkscope import is_inside

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
Status = tuple[int, ...]
# a schema file's status, its validator, and the status of each other schema file it was
# compiled with (those its `$ref`s may name)
_known: dict[Path, tuple[Status, Draft202012Validator, tuple[tuple[Path, Status], ...]]] = {}


def _status(path: Path) -> Status:
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _validator(path: Path) -> Draft202012Validator:
    """The validator of the schema file at `path` as it is now: a schema edited while a
    process runs (`kb watch`) is validated with its new text, never with the one read
    before (whose findings the results cache would then keep for the new text); so is one
    whose `$ref` names another schema file that was edited. A file whose status (device,
    inode, size, modification and change times) is the one it had when it was read is not
    read again."""
    now = time.time_ns()
    try:
        status = _status(path)
        known = _known.get(path)
        if known is not None and known[0] == status and all(
                _status(p) == st for p, st in known[2]):
            return known[1]
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Notepad) dropped
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read schema: {exc}", path=str(path)) from None
    others = _other_files(path, text)
    validator = _compiled(path, text, tuple((p, t) for p, _, t in others))
    if all(max(st[3:]) < now - RACY_NS for st in [status, *(st for _, st, _ in others)]):
        _known[path] = (status, validator, tuple((p, st) for p, st, _ in others))
    return validator


def schemas_home(path: Path) -> Path:
    """The schemas folder a schema file lies in: its own, or above `categories/`."""
    return path.parent.parent if path.parent.name == "categories" else path.parent


def _other_files(path: Path, text: str) -> list[tuple[Path, Status, str]]:
    """The other JSON files of `path`'s schemas folder (`schemas_home`), each with its
    status and text, when the schema in `text` has a `$ref` to anything but a part of
    itself (`#/…`); none otherwise. Files whose real path leaves the folder are not read.
    ConfigError naming the file that cannot be read."""
    try:
        refs = [r for _, r in _refs(json.loads(text))]
    except ValueError:
        return []  # `_parse` says what is wrong
    if all(r.startswith("#") for r in refs):
        return []
    home = schemas_home(path)
    real_home = os.path.realpath(home)
    out = []
    for other in sorted(home.rglob("*.json")):
        if other == path or not is_inside(os.path.realpath(other), real_home):
            continue
        try:
            out.append((other, _status(other), other.read_text(encoding="utf-8-sig")))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read schema: {exc}", path=str(other)) from None
    return out


@lru_cache(maxsize=64)
def _compiled(path: Path, text: str, others: tuple[tuple[Path, str], ...] = ()
              ) -> Draft202012Validator:
    schema = _parse(path, text)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(map(str, exc.path)) or "(top level)"
        raise ConfigError(f"not a valid JSON Schema at {where}: {exc.message}",
                          path=str(path), line=_line_of(text, list(exc.path))) from None
    if others and "$id" not in schema:  # its references read from its own file's place
        schema = {"$id": path.as_uri(), **schema}
    registry = _registry(path, others)
    for keys, ref in _unresolvable(schema, registry):
        raise ConfigError(f"$ref {ref!r} resolves to nothing (at {'/'.join(map(str, keys))})"
                          + (": a reference to another schema file names it from this "
                             "one's folder, inside the schemas folder" if others else ""),
                          path=str(path), line=_line_of(text, [*keys, "$ref"]))
    return Draft202012Validator(schema, registry=registry, format_checker=FORMAT_CHECKER)


def _registry(path: Path, others: tuple[tuple[Path, str], ...]) -> Registry[Any]:
    """The JSON Schema specifications, and each of `others` (the other files of `path`'s
    schemas folder) under the names a `$ref` may give it: its file URI, its `$id`, and
    `kbtools/<path in the folder>` (the `$id` form of the schemas `kb init` writes, so
    `"$ref": "../common.schema.json"` from `categories/` names `common.schema.json`)."""
    home = schemas_home(path)
    pairs = []
    for other, text in others:
        contents = _parse(other, text)
        resource = DRAFT202012.create_resource(contents)
        names = {other.as_uri(), f"kbtools/{other.relative_to(home).as_posix()}"}
        if isinstance(contents.get("$id"), str):
            names.add(contents["$id"])
        pairs += [(name, resource) for name in sorted(names)]
    specifications: Registry[Any] = SPECIFICATIONS
    return specifications.with_resources(pairs)


def _refs(schema: Any) -> Iterator[tuple[list[str | int], str]]:
    """Every `$ref` of `schema` with the JSON path of the object holding it."""
    def walk(node: Any, keys: list[str | int]) -> Iterator[tuple[list[str | int], str]]:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                yield keys, node["$ref"]
            for k, v in node.items():
                yield from walk(v, [*keys, k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from walk(v, [*keys, i])
    return walk(schema, [])


def _nested_id(node: Any, top: bool = True) -> bool:
    """Whether a part of `node` below its top carries an `$id` of its own."""
    if isinstance(node, dict):
        return (not top and "$id" in node) or any(_nested_id(v, False) for v in node.values())
    if isinstance(node, list):
        return any(_nested_id(v, False) for v in node)
    return False


def _unresolvable(schema: dict[str, Any], registry: Registry[Any] = SPECIFICATIONS
                  ) -> Iterator[tuple[list[str | int], str]]:
    """Every `$ref` of `schema` that resolves to nothing in `registry`, with the JSON path
    of the object holding it (validation would stop on it with a traceback). Not judged: a
    schema whose parts carry an `$id` of their own (their references resolve against it)."""
    if _nested_id(schema):
        return
    uri = str(schema.get("$id", ""))
    resolver = registry.with_resource(uri, DRAFT202012.create_resource(schema)) \
        .resolver(base_uri=uri)
    for keys, ref in _refs(schema):
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
