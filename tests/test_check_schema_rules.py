"""A repository's own schemas may use `oneOf`/`anyOf` alternatives and `if`/`then`/`else`
conditions: `kb check` says which rule a value breaks and why it applies, at the line of
the key, never jsonschema's "is not valid under any of the given schemas". YAML anchors and
aliases gone wrong are named, at their line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from kbfixtures import copy_example

from kbtools.cli import main

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["project"],
    "properties": {"project": {"oneOf": [
        {"type": "string", "minLength": 2},
        {"type": "array", "items": {"type": "string"}}]}},
    "if": {"properties": {"urgency": {"const": "critical"}}, "required": ["urgency"]},
    "then": {"required": ["valid_until"]},
    "else": {"properties": {"executable": {"const": False}}},
}
HEAD = ('---\ntitle: 部署回滚\ncategory: engineering\nsource: runbook\nauthor: a@x.org\n'
        'timestamp: "2026-01-01T09:00:00+08:00"\nverified: false\n')


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_example(tmp_path_factory.mktemp("rules") / "kb", docs=[])
    (root / "schemas" / "categories" / "engineering.schema.json").write_text(
        json.dumps(SCHEMA), "utf-8")
    return root


def checked(repo: Path, monkeypatch, name: str, extra: str) -> list[str]:
    """The lines `kb check` prints (it fails) for knowledge/eng/`name`, the front matter
    HEAD with `extra` after it."""
    doc = repo / "knowledge" / "eng" / name
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(HEAD + extra + "---\n# 回滚\n", "utf-8")
    monkeypatch.chdir(repo)
    res = CliRunner().invoke(main, ["check", "--no-cache", f"knowledge/eng/{name}"])
    assert res.exit_code == 1
    return res.stdout.splitlines()


@pytest.mark.parametrize("extra, expected", [
    # a oneOf value: the rule of the alternative of its type, else the types it takes
    ("project: x\n", "8:1: error: fm-value: project: 'x' is too short: write at least 2 "
     "characters (category 'engineering')"),
    ("project: [web, 3]\n", "8:1: error: fm-value: project: item 2: 3 is not of type "
     "'string' (category 'engineering')"),
    ("project: {a: 1}\n", "8:1: error: fm-value: project: expected string or array, got "
     "dict (category 'engineering')"),
    ("supersedes: []\nproject: web\n", "8:1: error: fm-value: supersedes: [] should be "
     "non-empty"),
    # a then: required since the if holds, at the line of the key the if reads
    ("project: web\nurgency: critical\n", "9:1: error: fm-missing-key: required key "
     "'valid_until' is missing (since urgency is \"critical\") (category 'engineering')"),
    # an else's const, as YAML writes it (it said "False was expected")
    ("project: web\nexecutable: true\n", "9:1: error: fm-value: executable: expected false "
     "(unless urgency is \"critical\") (category 'engineering')"),
], ids=["oneOf-rule", "oneOf-item", "oneOf-types", "base-oneOf", "then", "else-const"])
def test_schema_rules_are_said_with_their_reason(repo: Path, monkeypatch, extra: str,
                                                 expected: str) -> None:
    lines = checked(repo, monkeypatch, "rollback.md", extra)
    assert [ln for ln in lines if "fm-value" in ln or "fm-missing" in ln] \
        == [f"knowledge/eng/rollback.md:{expected}"]


@pytest.mark.parametrize("extra, expected", [
    # libyaml said "found undefined alias" (no name) at the alias
    ('project: web\nurgency: *level\ntags: [&level high]\n',
     "9:10: error: yaml-syntax: the alias *level names no anchor &level written before it: "
     "write &level at the value it repeats, above this line, or the value itself"),
    # ... and of an anchor written twice only "second occurrence"
    ('project: &p web\ntags: [&p 部署]\n',
     "9:8: error: yaml-syntax: the anchor &p is written twice (first on line 8): rename "
     "one, and the aliases *p meaning it"),
], ids=["alias-before-anchor", "anchor-twice"])
def test_anchors_and_aliases_are_named_at_their_line(repo: Path, monkeypatch, extra: str,
                                                     expected: str) -> None:
    assert checked(repo, monkeypatch, "aliases.md", extra) == [
        f"knowledge/eng/aliases.md:{expected}"]
