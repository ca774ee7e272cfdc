"""`fm-missing` gives the smallest front matter the repository's schemas accept
(`kbtools.check.fm_example`): written as printed, it satisfies every schema, categories that
ask through `anyOf`, `oneOf` or `if`/`then` included, and leaves the document without
findings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kbtools.check.engine import check_paths
from kbtools.config import load_config
from kbtools.schemas import categories
from tests.kbfixtures import REPO

BODY = "# 操作规程\n\n先断电。\n"


def repo_with(tmp_path: Path, schemas: Path, keep: list[str] | None = None) -> Path:
    """A knowledge base with a copy of `schemas` (only the categories in `keep`)."""
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    shutil.copytree(schemas, tmp_path / "schemas")
    for path in (tmp_path / "schemas" / "categories").glob("*.schema.json"):
        if keep is not None and path.name.removesuffix(".schema.json") not in keep:
            path.unlink()
    return tmp_path


def printed_block(root: Path) -> list[str]:
    """The lines `fm-missing` tells the author to write, for a document without them."""
    doc = root / "knowledge" / "note.md"
    doc.write_text(BODY, encoding="utf-8")
    [found] = check_paths([root / "knowledge"], load_config(root))
    assert found.code == "fm-missing"
    lines = found.message.split("(each / a new line): ", 1)[1].split(" / ")
    assert lines[0] == lines[-1] == "---"
    return lines


def findings_when_written(root: Path, lines: list[str]) -> list[str]:
    doc = root / "knowledge" / "note.md"
    doc.write_text("\n".join(lines) + "\n" + BODY, encoding="utf-8")
    return [f.format() for f in check_paths([root / "knowledge"], load_config(root))]


@pytest.mark.parametrize("category", [None, *categories(REPO / "schemas")])
def test_the_printed_block_validates_against_the_repository_s_schemas(tmp_path, category):
    """With the repository's schemas (each category alone, and all of them): the block
    printed is accepted as written. `crop-protection` asks for `disease` or `pest`
    (`anyOf`): the block printed for it alone once lacked both."""
    root = repo_with(tmp_path, REPO / "schemas", None if category is None else [category])
    lines = printed_block(root)
    if category is not None:
        assert f"category: {category}" in lines
    assert findings_when_written(root, lines) == []


def test_any_of_one_of_and_if_then_are_satisfied(tmp_path):
    """Categories asking through `oneOf` (one branch exactly), `anyOf` whose first branch
    needs a value of a pattern, and `if`/`then` (a `const` that brings more keys), and a
    base schema whose `allOf` holds another `if`/`then`: the first branch that validates
    is written, with values the properties accept."""
    root = repo_with(tmp_path, REPO / "schemas", [])
    cats = root / "schemas" / "categories"
    date = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
    schemas = {
        "alpha": {"type": "object", "required": ["status"],
                  "properties": {"status": {"const": "accepted"}},
                  "if": {"properties": {"status": {"const": "accepted"}}},
                  "then": {"required": ["valid_until", "summary"]},
                  "oneOf": [{"required": ["section"]}, {"required": ["location"]}]},
        "beta": {"type": "object",
                 "anyOf": [{"required": ["valid_until"], "properties": {"valid_until": date}},
                           {"required": ["tags"]}],
                 "oneOf": [{"required": ["urgency"]}, {"required": ["lang"]}]},
    }
    for name, schema in schemas.items():
        (cats / f"{name}.schema.json").write_text(json.dumps(schema), "utf-8")
    for name in schemas:
        for path in cats.glob("*.schema.json"):
            path.rename(path.with_suffix(".off") if name not in path.name else path)
        lines = printed_block(root)
        assert f"category: {name}" in lines
        assert findings_when_written(root, lines) == [], (name, lines)
        for path in cats.glob("*.off"):
            path.rename(path.with_suffix(".json"))
    lines = printed_block(root)
    assert "category: beta" in lines and "valid_until: 2026-03-14" in lines
    assert findings_when_written(root, lines) == []
