"""The repo's schemas/ folder is the package's default set (kb init writes the same)."""

from __future__ import annotations

import json

from kbtools.schemas import PACKAGE_SCHEMAS, validator_for
from tests.kbfixtures import REPO


def test_repo_schemas_match_package_defaults():
    repo = {p.relative_to(REPO / "schemas").as_posix(): p.read_bytes()
            for p in (REPO / "schemas").rglob("*.json")}
    pkg = {p.relative_to(PACKAGE_SCHEMAS).as_posix(): p.read_bytes()
           for p in PACKAGE_SCHEMAS.rglob("*.json")}
    assert repo == pkg


def test_verified_true_needs_reviewer_fields():
    v = validator_for("frontmatter")
    doc = {"title": "t", "category": "engineering", "source": "s", "author": "a",
           "timestamp": "2026-01-01T00:00:00+08:00", "verified": True}
    assert any("verified_by" in e.message for e in v.iter_errors(doc))
    doc |= {"verified_by": "r@example.org", "verified_at": "2026-01-02T00:00:00+08:00"}
    assert list(v.iter_errors(doc)) == []
    doc["timestamp"] = "2026-01-01 00:00"
    assert list(v.iter_errors(doc))


def test_all_schemas_are_valid_json_schema():
    from jsonschema import Draft202012Validator

    for p in PACKAGE_SCHEMAS.rglob("*.json"):
        Draft202012Validator.check_schema(json.loads(p.read_text(encoding="utf-8")))
