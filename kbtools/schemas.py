"""JSON Schemas as data: front matter (base + per category), kb.toml, manifest.

A knowledge repo's own `schemas/` folder wins; the copies shipped in the package are the
defaults (and what `kb init` writes).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from kbtools.errors import ConfigError

PACKAGE_SCHEMAS = Path(str(resources.files("kbtools") / "data" / "schemas"))
FORMAT_CHECKER = Draft202012Validator.FORMAT_CHECKER


def _read(path: Path) -> dict[str, Any]:
    try:
        schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return schema
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read schema: {exc}", path=str(path)) from None


@lru_cache(maxsize=64)
def _validator(path: Path) -> Draft202012Validator:
    schema = _read(path)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=FORMAT_CHECKER)


def schema_path(name: str, schemas_dir: Path | None = None) -> Path | None:
    """`name` is "frontmatter", "kb", "manifest" or "categories/<category>"."""
    for base in (schemas_dir, PACKAGE_SCHEMAS):
        if base is None:
            continue
        path = base / f"{name}.schema.json"
        if path.is_file():
            return path
    return None


def validator_for(name: str, schemas_dir: Path | None = None) -> Draft202012Validator:
    path = schema_path(name, schemas_dir)
    if path is None:
        raise ConfigError(f"no schema named {name!r}", path=str(schemas_dir or PACKAGE_SCHEMAS))
    return _validator(path)


def categories(schemas_dir: Path | None = None) -> list[str]:
    """Known categories: one per file in `categories/` (repo's own, else the package's)."""
    for base in (schemas_dir, PACKAGE_SCHEMAS):
        if base is not None and (base / "categories").is_dir():
            return sorted(p.name.removesuffix(".schema.json")
                          for p in (base / "categories").glob("*.schema.json"))
    return []
